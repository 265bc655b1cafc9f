//! `kvbench.runs[i].precision`: how well a measured run's headline figures
//! are known, each with its 95 % interval by batch means
//! ([`crate::engine::stats::precision`], docs/precision.md).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::report::model::named::Named;
use crate::report::model::rounded::{places2, places4};
use crate::report::model::schema;

/// `precision`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Precision {
    /// The whole seconds the intervals rest on (the final, partial second
    /// left out).
    pub seconds: u64,
    /// Replies per second; `null` when the run was too short for ten
    /// batches whose values are not autocorrelated.
    pub ops_per_sec: Option<Figure>,
    /// Per op row (`Sets`, `Gets`, `Totals`), each printed percentile's
    /// latency in ms; `null` as for `ops_per_sec`.
    #[schemars(schema_with = "schema::by_row_percentile::<Figure>")]
    pub latency_ms: Named<Named<Option<Figure>>>,
    /// `--test-time auto`: the whole seconds after which every
    /// `--target-precision` was met and the run ended; absent when it ran
    /// to `--max-test-time`, and without `auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub met_after_s: Option<u64>,
}

/// A figure and its 95 % interval: `value ± half_width`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "precisionFigure")]
pub struct Figure {
    /// The figure over the whole run (the one the report prints).
    #[serde(serialize_with = "places4")]
    pub value: f64,
    /// Half the interval's width, in the figure's unit.
    #[serde(serialize_with = "places4")]
    pub half_width: f64,
    /// `half_width` as a percentage of `value`.
    #[serde(serialize_with = "places2")]
    pub relative_percent: f64,
    /// The batch length the interval was computed over, s.
    pub batch_s: u64,
    /// How many batches (at least 10).
    #[schemars(range(min = 10))]
    pub batches: u64,
}

/// `kvbench.runs_auto`: `-x auto`, the runs repeated until the median run's
/// figures were known as `--target-precision` asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunsAuto {
    /// `--max-run-count`.
    pub max_runs: u32,
    /// The runs after which every target was met; `null` when the runs
    /// reached `max_runs` first.
    pub met_after_runs: Option<u32>,
    /// Each figure named, its median over the completed runs and the
    /// median's nonparametric 95 % interval (`null` under six runs).
    pub figures: Vec<MedianFigure>,
}

/// One figure's median run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MedianFigure {
    /// As `--target-precision` names it: `ops`, `p99`.
    pub figure: String,
    /// The bound asked, % of the figure.
    pub within_percent: f64,
    /// The median (ops/sec, or ms for a percentile) and its interval.
    pub median: Option<MedianValue>,
}

/// A median and its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MedianValue {
    /// The median run's figure.
    #[serde(serialize_with = "places4")]
    pub value: f64,
    /// The interval's lower end.
    #[serde(serialize_with = "places4")]
    pub low: f64,
    /// Its upper end.
    #[serde(serialize_with = "places4")]
    pub high: f64,
    /// Half the interval's width, % of the median.
    #[serde(serialize_with = "places2")]
    pub relative_percent: f64,
}
