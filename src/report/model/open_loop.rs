//! `kvbench.runs[i].open_loop` of a `--rate` or `--rate-limiting` report:
//! the schedule, how well it was kept, and both latency measures, as
//! docs/output.md describes them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::{Arrival, Headline};
use crate::report::model::histogram::CompressedHistogram;
use crate::report::model::named::Named;
use crate::report::model::{rounded, schema};

/// A latency block of `open_loop`: count, mean, the `--print-percentiles`
/// values and the max (ms), and its compressed histogram (µs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "latencyBlock")]
pub struct LatencyBlock {
    /// Samples (replies, or requests never sent).
    #[serde(rename = "Count")]
    pub count: u64,
    /// Mean, ms.
    // Unrounded in the model; the JSON writes three places.
    #[serde(rename = "Average Latency", serialize_with = "rounded::places3")]
    pub average_latency_ms: f64,
    /// `p50.00` → ms.
    #[serde(flatten)]
    #[schemars(schema_with = "schema::percentiles_ms")]
    pub percentiles_ms: Named<f64>,
    /// Highest, ms.
    #[serde(rename = "Max Latency")]
    pub max_latency_ms: f64,
    /// µs, V2 + deflate + base64.
    #[serde(rename = "Compressed Histogram")]
    pub compressed: CompressedHistogram,
}

/// `open_loop` of `--rate` and `--rate-limiting` runs: the schedule and how
/// well it was kept, and both latency measures. The memtier sections show the
/// headline: response time with `--rate`, service time with
/// `--rate-limiting` (memtier's meaning).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "openLoop")]
pub struct OpenLoop {
    /// `--rate` (or `--rate-limiting` x connections).
    #[schemars(range(min = 0))]
    pub target_ops_per_sec: f64,
    /// `--arrival`.
    #[schemars(schema_with = "schema::arrival")]
    pub arrival: Arrival,
    /// Replies per second over the phase.
    #[schemars(range(min = 0))]
    #[serde(serialize_with = "rounded::places2")]
    pub achieved_ops_per_sec: f64,
    /// False when a `rate_not_met` warning was raised for this run.
    pub met: bool,
    /// Requests due before the deadline that were never sent (the pipeline
    /// window stayed full, or their connection was down). They are no
    /// replies: memtier's fields and `service_time`/`response_time` leave
    /// them out; their wait is in `never_sent_wait`.
    pub never_sent: u64,
    /// Requests due and not yet sent at the end of each second.
    pub backlog_per_second: Vec<u64>,
    /// The busiest worker thread's CPU use, % of one CPU.
    #[schemars(range(min = 0))]
    #[serde(serialize_with = "rounded::places1")]
    pub busiest_thread_cpu_percent: f64,
    /// Actual minus intended send time of every request; `null` when the lag
    /// was not recorded.
    pub schedule_lag: Option<LatencyBlock>,
    /// Which measure the memtier sections, text tables and HDR files show:
    /// `response_time` with `--rate`, `service_time` with `--rate-limiting`.
    #[schemars(schema_with = "schema::headline")]
    pub headline: Headline,
    /// Service time (reply − actual send) by row; `null` for a row without it.
    #[schemars(schema_with = "schema::by_row::<Option<LatencyBlock>>")]
    #[schemars(extend("required" = ["Totals"]))]
    pub service_time: Named<Option<LatencyBlock>>,
    /// Response time (reply − intended send on the schedule) by row, of the
    /// replies (the requests never sent are in `never_sent_wait`).
    #[schemars(schema_with = "schema::by_row::<LatencyBlock>")]
    #[schemars(extend("required" = ["Totals"]))]
    pub response_time: Named<LatencyBlock>,
    /// The requests never sent, by row: `Count` (their number) and deadline
    /// − intended send time, the least each would have waited (wrk2's rule
    /// carried to the end of the run). Add its histogram to
    /// `response_time`'s for the response time of every request due. Empty
    /// in a file written before kvbench kept them apart from the replies.
    #[serde(default)]
    #[schemars(schema_with = "schema::by_row::<Option<LatencyBlock>>")]
    pub never_sent_wait: Named<Option<LatencyBlock>>,
}
