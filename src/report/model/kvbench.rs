//! The `kvbench` object: what memtier's layout lacks (exact totals, phase
//! summaries with the server's own account, run-to-run variance, warnings,
//! placement), as docs/output.md describes it.
//!
//! Counts keyed by command (`totals`, `errors.server`) are [`Named`] maps, so
//! that the commands beyond SET and GET read without a change here. `config`
//! stays a `serde_json::Value` map: it is the `--show-config` object, which
//! grows with every flag, and has no shape this reader should fix. The
//! server's side (INFO, placement) is in [`crate::report::model::server`],
//! a cluster run's nodes in [`crate::report::model::cluster`], the open
//! loop in [`crate::report::model::open_loop`] and the verdict in
//! [`crate::report::model::verdict`], a phase's summary in
//! [`crate::report::model::phase`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::report::model::aggregate::Aggregate;
use crate::report::model::capacity::Capacity;
use crate::report::model::named::Named;
pub use crate::report::model::open_loop::{LatencyBlock, OpenLoop};
pub use crate::report::model::phase::{Errors, Incomplete, OpTotals, PhaseSummary};
use crate::report::model::precision::RunsAuto;
use crate::report::model::server::{Placement, ServerContext};
use crate::report::model::shard::{Merged, Round, ShardInfo, ShardRow};
pub use crate::report::model::verdict::{SectionVerdict, Verdict, VerdictReason};
use crate::report::model::{rounded, schema};

/// The units of every `Compressed Histogram`.
pub const HISTOGRAM_UNIT: &str = "microseconds";

/// `kvbench` in a single report (or a sweep's cell): what memtier's layout
/// lacks (exact integer totals, the warm-up, errors by kind, the seed, the
/// complete configuration).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "kvbench", transform = schema::require_verdict)]
pub struct Kvbench {
    /// Version of this object's layout; bumped on incompatible changes.
    #[schemars(schema_with = "schema::schema_version")]
    pub schema_version: u32,
    /// kvbench's version.
    #[schemars(regex(pattern = r"^[0-9]+\.[0-9]+\.[0-9]+"))]
    pub tool_version: String,
    /// False in a snapshot written after an earlier phase, or when a run was
    /// incomplete; true once every planned run has finished.
    pub complete: bool,
    /// `-x`.
    #[schemars(range(min = 1))]
    pub runs_planned: u32,
    /// Measured runs finished so far (the warm-up is not counted).
    pub runs_completed: u32,
    /// Master seed; `--seed` with this value repeats the key sequences.
    /// Below 2^53, so every JSON reader keeps it exact.
    #[schemars(range(max = 9007199254740991u64))]
    pub seed: u64,
    /// Server address (`host:port`, `[v6]:port` or `unix:PATH`), with
    /// ` (auth <redacted>)` when credentials are used.
    pub target: String,
    /// What a latency measures, in words (service time in a closed loop).
    pub latency: String,
    /// Unit of the values in every `Compressed Histogram`: `"microseconds"`.
    #[schemars(extend("const" = HISTOGRAM_UNIT))]
    pub latency_unit_of_histograms: String,
    /// Every effective setting, typed (also printed by `--show-config`); the
    /// password is never written.
    #[schemars(schema_with = "crate::report::build::settings::kvbench_config_schema")]
    pub config: Map<String, Value>,
    /// One summary per completed measured run, in order.
    #[schemars(schema_with = "schema::runs")]
    pub runs: Vec<PhaseSummary>,
    /// What the server is (from INFO and CONFIG GET before the first phase);
    /// `null` when it does not answer INFO.
    pub server: Option<ServerContext>,
    /// Where the worker threads ran and why (docs/design.md, CPU placement);
    /// `null` only in files written before the workers started.
    #[serde(default)]
    pub placement: Option<Placement>,
    /// Which shard of a multi-machine run this report is, and its timing
    /// (docs/scale-out.md); `null` on one machine without `--start-at`
    /// (absent from reports before shards).
    #[serde(default)]
    pub shard: Option<ShardInfo>,
    /// `--prefill`: every key of the range written once before the warm-up;
    /// `null` without it.
    #[schemars(schema_with = "schema::prefill")]
    pub prefill: Option<PhaseSummary>,
    /// With `-x 2` or more: the spread of the runs' total ops/sec; `null`
    /// for one run.
    pub variance: Option<Variance>,
    /// `-x auto` only: how many runs it took for the median run to be
    /// known as asked (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "RunsAuto")]
    pub runs_auto: Option<RunsAuto>,
    /// The phase that was cut short and why: a SIGINT or SIGTERM, or
    /// `--max-errors`; `null` when the run was not stopped early.
    /// `complete` is then false.
    pub interrupted: Option<Interrupted>,
    /// The warm-up (`--warmup-time`) with its section under `ALL STATS`,
    /// excluded from every other number; `null` when there was none.
    #[schemars(schema_with = "schema::warmup")]
    pub warmup: Option<PhaseSummary>,
    /// Exact counts over all completed measured runs, by command (zeros
    /// before the first run completes).
    #[schemars(schema_with = "schema::by_command::<OpTotals>")]
    pub totals: Option<Named<OpTotals>>,
    /// GET hits / (hits + misses) x 100 over all completed runs, 4 decimals;
    /// `null` when no GET was answered.
    #[schemars(range(min = 0, max = 100))]
    pub hit_rate_percent: Option<f64>,
    /// Errors over all completed measured runs.
    #[schemars(with = "Errors")]
    pub errors: Option<Errors>,
    /// With `-x 2` or more: what the aggregate section lacks of the runs
    /// it takes together (the open loop's other latency, each cluster
    /// node); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate: Option<Aggregate>,
    /// What the reader must know before trusting the numbers, with advice.
    pub warnings: Vec<Warning>,
    /// Whether the numbers measure the workload asked for (absent from
    /// reports written before the verdict).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Verdict")]
    pub verdict: Option<Verdict>,
    /// In a sweep: which cell this report is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Cell")]
    pub cell: Option<Cell>,
    /// Written by `kvbench merge` only: one row per merged file (machine),
    /// with its own figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<ShardRow>")]
    pub shards: Option<Vec<ShardRow>>,
    /// Written by `kvbench merge` only: which files, and whether the set was
    /// complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Merged")]
    pub merged: Option<Merged>,
    /// Written by `kvbench merge` only: each run of the set with its total
    /// rate, hit rate and percentiles, beside every client machine (its
    /// `runs[i].client`) and every server (INFO over the set's window: CPU
    /// and network).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<Round>")]
    pub rounds: Option<Vec<Round>>,
    /// Written by `kvbench capacity` only: the search for the most
    /// throughput under the latency SLOs (docs/capacity.md); the report's
    /// runs are its confirmation run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Capacity")]
    pub capacity: Option<Capacity>,
}

/// `kvbench.variance`.
// Unrounded in the model: the JSON writes rates to two places, the ratio to
// four and the CV to six.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Variance {
    /// Each run's total ops/sec, in run order.
    #[schemars(length(min = 2))]
    #[serde(serialize_with = "rounded::each_places2")]
    pub ops_per_sec: Vec<f64>,
    /// Mean.
    #[serde(serialize_with = "rounded::places2")]
    pub mean: f64,
    /// Median.
    #[serde(serialize_with = "rounded::places2")]
    pub median: f64,
    /// Lowest.
    #[serde(serialize_with = "rounded::places2")]
    pub min: f64,
    /// Highest.
    #[serde(serialize_with = "rounded::places2")]
    pub max: f64,
    /// max / min.
    #[schemars(range(min = 1))]
    #[serde(serialize_with = "rounded::places4")]
    pub max_over_min: f64,
    /// Sample standard deviation / mean.
    #[schemars(range(min = 0))]
    #[serde(serialize_with = "rounded::places6")]
    pub cv: f64,
    /// 95 % confidence interval of the mean (Student's t), lower end.
    #[serde(serialize_with = "rounded::places2")]
    pub ci95_low: f64,
    /// High end.
    #[serde(serialize_with = "rounded::places2")]
    pub ci95_high: f64,
    /// The median run's nonparametric 95 % interval, lower end (the
    /// order statistics Binomial(n, ½) allows; docs/precision.md); `null`
    /// under six runs, absent from older files.
    #[serde(default, serialize_with = "rounded::opt_places::<2, _>")]
    pub median_ci95_low: Option<f64>,
    /// High end.
    #[serde(default, serialize_with = "rounded::opt_places::<2, _>")]
    pub median_ci95_high: Option<f64>,
    /// max/min above 1.10: differences between configurations below the
    /// spread are noise.
    pub noisy: bool,
}

/// What cut a phase short.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum InterruptCause {
    /// SIGINT or SIGTERM.
    #[serde(rename = "signal")]
    Signal,
    /// `--max-errors`.
    #[serde(rename = "max-errors")]
    MaxErrors,
}

/// `kvbench.interrupted`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Interrupted {
    /// `RUN #n`, `WARM-UP`, `PREFILL`.
    #[schemars(regex(pattern = r"^(RUN #[0-9]+|WARM-UP|PREFILL)$"))]
    pub phase: String,
    /// A SIGINT/SIGTERM, or more errors than `--max-errors`.
    pub cause: InterruptCause,
    /// The signal number; `null` for `max-errors`.
    #[schemars(range(min = 1))]
    pub signal: Option<i32>,
}

/// `kvbench.cell`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Cell {
    /// From 0.
    pub index: u32,
    /// `pipeline=16`.
    pub label: String,
    /// Swept flag → its value here.
    pub parameters: Named<String>,
}

/// One warning. `kind` stays a string: a reader must keep a kind added by a
/// newer kvbench rather than refuse the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Warning {
    /// Stable name (`rate_not_met`).
    #[schemars(regex(pattern = r"^[a-z_]+$"))]
    pub kind: String,
    /// What happened and what to change.
    pub message: String,
    /// `--no-warning` left this kind out of the text report and stderr;
    /// written only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[schemars(schema_with = "schema::only_true")]
    pub silenced: bool,
}
