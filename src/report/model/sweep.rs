//! A sweep file: one complete report per cell, the summary table, and the
//! sweep's own `kvbench` object (its progress and its cells' verdict).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::report::model::named::Named;
use crate::report::model::{Report, kvbench, rounded, schema};

/// The swept flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SweepParameter {
    /// `--threads`.
    Threads,
    /// `--clients`.
    Clients,
    /// `--pipeline`.
    Pipeline,
    /// `--data-size`.
    DataSize,
    /// `--ratio`.
    Ratio,
}

/// A row of the sweep's summary table, per cell with a measured run (a cut
/// one too, marked `cut`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "sweepRow", transform = schema::require_set_get_rates)]
pub struct SweepRow {
    /// The swept values, `pipeline=16`.
    pub cell: String,
    /// Total ops/sec.
    #[serde(serialize_with = "rounded::places2")]
    #[schemars(range(min = 0))]
    pub ops_per_sec: f64,
    /// SET ops/sec.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "rounded::opt_places::<2, _>"
    )]
    #[schemars(with = "f64", range(min = 0))]
    pub set_ops_per_sec: Option<f64>,
    /// GET ops/sec.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "rounded::opt_places::<2, _>"
    )]
    #[schemars(with = "f64", range(min = 0))]
    pub get_ops_per_sec: Option<f64>,
    /// ms.
    #[serde(serialize_with = "rounded::places3")]
    #[schemars(range(min = 0))]
    pub avg_latency_ms: f64,
    /// ms.
    #[schemars(range(min = 0))]
    pub p50_latency_ms: f64,
    /// ms.
    #[schemars(range(min = 0))]
    pub p99_latency_ms: f64,
    /// ms.
    #[schemars(range(min = 0))]
    pub p99_9_latency_ms: f64,
    /// `p50.00` → ms for each `--print-percentiles`, keyed as in the
    /// sections (absent from files written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "schema::percentiles_ms")]
    pub latency_percentiles_ms: Option<Named<f64>>,
    /// GET hit rate.
    #[serde(serialize_with = "rounded::opt_places::<2, _>")]
    pub hit_rate_percent: Option<f64>,
    /// Total ops/sec over the first cell's.
    #[serde(serialize_with = "rounded::places4")]
    #[schemars(range(min = 0))]
    pub ratio_to_first: f64,
    /// A stop (a signal, `--max-errors`) cut the cell short: its numbers
    /// cover a partial run, or the runs that ended before the cut one; the
    /// text marks the row (cut). False in files written before it.
    #[serde(default)]
    pub cut: bool,
    /// The total ops/sec of the cell's slowest and fastest completed run;
    /// `null` with fewer than two (absent from files written before it).
    #[serde(default)]
    pub ops_per_sec_spread: Option<SweepSpread>,
}

/// `ops_per_sec_spread` of a sweep's summary row.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SweepSpread {
    /// The slowest run's total ops/sec.
    #[serde(serialize_with = "rounded::places2")]
    #[schemars(range(min = 0))]
    pub min: f64,
    /// The fastest run's.
    #[serde(serialize_with = "rounded::places2")]
    #[schemars(range(min = 0))]
    pub max: f64,
    /// max / min.
    #[serde(serialize_with = "rounded::places4")]
    #[schemars(range(min = 0))]
    pub max_over_min: f64,
}

/// `sweep`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Sweep {
    /// The swept flags.
    pub parameters: Vec<SweepParameter>,
    /// One report per finished or started cell, in sweep order; each is a
    /// complete memtier-compatible document whose `kvbench.cell` says which
    /// cell it is.
    #[schemars(schema_with = "schema::cells")]
    pub cells: Vec<Report>,
    /// A row per cell with a measured run (a cut one too, marked `cut`):
    /// the whitepaper-style comparison.
    pub summary: Vec<SweepRow>,
}

/// The sweep document's own `kvbench`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = schema::require_verdict)]
pub struct SweepKvbench {
    /// Version of this object's layout; bumped on incompatible changes.
    #[schemars(schema_with = "schema::schema_version")]
    pub schema_version: u32,
    /// kvbench's version.
    pub tool_version: String,
    /// True once every cell has finished all its runs.
    pub complete: bool,
    /// Cells in the sweep.
    #[schemars(range(min = 2))]
    pub cells_planned: u32,
    /// Cells finished.
    pub cells_completed: u32,
    /// The cell a stop cut (its own document says `kvbench.interrupted` and
    /// `complete: false`); `null` for a sweep run to its end (absent from
    /// sweeps written before it).
    #[serde(default)]
    pub interrupted: Option<SweepInterrupted>,
    /// Every cell's findings, each phase prefixed by its cell; the exit code
    /// follows it (absent from sweeps written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "kvbench::Verdict")]
    pub verdict: Option<kvbench::Verdict>,
}

/// The sweep's `kvbench.interrupted`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SweepInterrupted {
    /// The cut cell's index, from 0.
    pub index: u32,
    /// Its label, `pipeline=4`.
    pub cell: String,
    /// The phase cut (`RUN #n`, `WARM-UP` or `PREFILL`); `null` when the
    /// cell had measured nothing yet and is not among the cells.
    pub phase: Option<String>,
    /// Why.
    pub cause: kvbench::InterruptCause,
    /// The signal number.
    pub signal: Option<i32>,
}

/// A sweep (comma lists for `--threads`, `--clients`, `--pipeline`,
/// `--data-size`, `--ratio`): every cell as a complete benchmark report, and
/// the comparison table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "sweepDocument")]
pub struct SweepDocument {
    /// The cells and the summary.
    pub sweep: Sweep,
    /// Progress of the sweep.
    pub kvbench: SweepKvbench,
}
