//! The `kvbench` object: what memtier's layout lacks (exact totals, phase
//! summaries with the server's own account, run-to-run variance, warnings,
//! placement), as docs/output.md describes it.
//!
//! Counts keyed by command (`totals`, `errors.server`) are [`Named`] maps, so
//! that the commands beyond SET and GET read without a change here. `config`
//! stays a `serde_json::Value` map: it is the `--show-config` object, which
//! grows with every flag, and has no shape this reader should fix. The
//! server's side (INFO, placement) is in [`crate::report::model::server`],
//! a cluster run's nodes in [`crate::report::model::cluster`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::config::{Arrival, Headline};
use crate::report::model::cluster::PhaseCluster;
use crate::report::model::histogram::CompressedHistogram;
use crate::report::model::host::ClientUse;
use crate::report::model::named::Named;
use crate::report::model::section::Section;
use crate::report::model::server::{Placement, ServerContext, ServerEvidence};
use crate::report::model::shard::{Merged, Round, ShardInfo, ShardRow};

/// `kvbench` in a single report (or a sweep's cell).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kvbench {
    /// Version of this object's layout.
    pub schema_version: u32,
    /// kvbench's version.
    pub tool_version: String,
    /// False in a snapshot or when a run was incomplete.
    pub complete: bool,
    /// `-x`.
    pub runs_planned: u32,
    /// Measured runs that ran to their end.
    pub runs_completed: u32,
    /// Master seed.
    pub seed: u64,
    /// `host:port`, `[v6]:port` or `unix:PATH`.
    pub target: String,
    /// What a latency measures, in words.
    pub latency: String,
    /// `"microseconds"`.
    pub latency_unit_of_histograms: String,
    /// Every effective setting (open: one key per flag).
    pub config: Map<String, Value>,
    /// One summary per finished measured run.
    pub runs: Vec<PhaseSummary>,
    /// What the server is.
    pub server: Option<ServerContext>,
    /// Where the worker threads ran.
    #[serde(default)]
    pub placement: Option<Placement>,
    /// Which shard of a multi-machine run, and its timing; `null` on one
    /// machine without `--start-at` (absent from reports before shards).
    #[serde(default)]
    pub shard: Option<ShardInfo>,
    /// `--prefill`'s phase.
    pub prefill: Option<PhaseSummary>,
    /// Spread of the runs' ops/sec, with `-x 2` or more.
    pub variance: Option<Variance>,
    /// The phase cut short, and why.
    pub interrupted: Option<Interrupted>,
    /// The warm-up, with its section under `ALL STATS`.
    pub warmup: Option<PhaseSummary>,
    /// Exact counts over all finished runs, by command.
    pub totals: Option<Named<OpTotals>>,
    /// GET hits over hits plus misses, percent.
    pub hit_rate_percent: Option<f64>,
    /// Errors over all finished runs.
    pub errors: Option<Errors>,
    /// What to know before trusting the numbers.
    pub warnings: Vec<Warning>,
    /// Whether the numbers measure the workload asked for (absent from
    /// reports written before the verdict).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// In a sweep's cell: which cell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<Cell>,
    /// In a merged file: one row per machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<Vec<ShardRow>>,
    /// In a merged file: what was merged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged: Option<Merged>,
    /// In a merged file: each run's totals beside every machine's and
    /// server's CPU and network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<Vec<Round>>,
}

/// A phase summary (`runs[i]`, `warmup`, `prefill`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseSummary {
    /// `"RUN #1"`, `"WARM-UP"`, `"PREFILL"`.
    pub phase: String,
    /// ms since the epoch.
    pub start_time_ms: u64,
    /// With `--start-at`: actual start minus planned start, ms; `null` for
    /// a phase that was not aligned.
    #[serde(default)]
    pub start_lag_ms: Option<f64>,
    /// Run time, ms.
    pub duration_ms: u64,
    /// Time spent awaiting replies in flight, ms.
    #[serde(default)]
    pub drain_ms: u64,
    /// Connections down when sending stopped.
    #[serde(default)]
    pub connections_down_at_end: u64,
    /// Why the phase's load was not all offered.
    #[serde(default)]
    pub incomplete: Option<Incomplete>,
    /// Replies per second of run time.
    pub ops_per_sec: f64,
    /// Replies that were not errors, per second.
    #[serde(default)]
    pub successes_per_sec: f64,
    /// Error replies per second.
    #[serde(default)]
    pub errors_per_sec: f64,
    /// CPU seconds of each worker thread.
    pub thread_cpu_s: Vec<f64>,
    /// Exact counts by command.
    pub totals: Named<OpTotals>,
    /// Errors by kind.
    pub errors: Errors,
    /// With `--rate` or `--rate-limiting`.
    pub open_loop: Option<OpenLoop>,
    /// The server's own account of the phase.
    pub server: Option<ServerEvidence>,
    /// This client machine's CPU and network during the phase (absent from
    /// files written before it, and from a merged file, whose machines'
    /// are in `kvbench.rounds`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientUse>,
    /// Each row's whole latency histogram, by command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histograms: Option<Named<CompressedHistogram>>,
    /// Each row's histogram of each second (keyed as `Time-Serie`), by command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histograms_per_second: Option<Named<Named<CompressedHistogram>>>,
    /// `--cluster-mode` only: the nodes and what routing cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<PhaseCluster>,
    /// The warm-up's full section.
    #[serde(rename = "ALL STATS", default, skip_serializing_if = "Option::is_none")]
    pub all_stats: Option<Section>,
}

/// `incomplete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Incomplete {
    /// Stable name (`connections_lost`).
    pub reason: String,
    /// In words.
    pub message: String,
}

/// Exact counts of one command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpTotals {
    /// Replies.
    pub count: u64,
    /// Replies carrying a value.
    pub hits: u64,
    /// Nil replies.
    pub misses: u64,
    /// Error replies.
    pub errors: u64,
    /// Request bytes.
    pub bytes_tx: u64,
    /// Reply bytes.
    pub bytes_rx: u64,
    /// Exact sum of the latencies, µs (absent from reports before it was written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_sum_us: Option<u64>,
    /// With `--command`: error replies by first word (`ERR`, `OOM`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors_by_kind: Option<Named<u64>>,
    /// With `--command`: the command's name (`HSET`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// `errors`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Errors {
    /// Error replies by first word (`ERR`, `OOM`, …, `OTHER`).
    pub server: Named<u64>,
    /// Connections lost.
    pub connection: u64,
    /// Reconnects refused.
    pub refused: u64,
    /// Request timeouts.
    pub timeouts: u64,
    /// Reconnects made.
    pub reconnects: u64,
    /// Replies that could not be parsed.
    pub protocol: u64,
    /// Requests sent and never answered.
    pub lost_requests: u64,
    /// RESP3 push frames received (absent from reports before RESP3).
    #[serde(default)]
    pub pushes: u64,
    /// RESP3 attribute frames skipped (absent from reports before they were counted).
    #[serde(default)]
    pub attributes: u64,
}

/// A latency block of `open_loop`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyBlock {
    /// Samples.
    #[serde(rename = "Count")]
    pub count: u64,
    /// ms.
    #[serde(rename = "Average Latency")]
    pub average_latency_ms: f64,
    /// `p50.00` → ms.
    #[serde(flatten)]
    pub percentiles_ms: Named<f64>,
    /// ms.
    #[serde(rename = "Max Latency")]
    pub max_latency_ms: f64,
    /// µs, V2 + deflate + base64.
    #[serde(rename = "Compressed Histogram")]
    pub compressed: CompressedHistogram,
}

/// `open_loop`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenLoop {
    /// The asked rate.
    pub target_ops_per_sec: f64,
    /// Arrival process.
    pub arrival: Arrival,
    /// The achieved rate.
    pub achieved_ops_per_sec: f64,
    /// False when `rate_not_met` was raised.
    pub met: bool,
    /// Requests due and never sent.
    pub never_sent: u64,
    /// Requests due and unsent at the end of each second.
    pub backlog_per_second: Vec<u64>,
    /// The busiest worker's CPU use.
    pub busiest_thread_cpu_percent: f64,
    /// Actual minus intended send; `null` when the lag was not recorded.
    pub schedule_lag: Option<LatencyBlock>,
    /// What the memtier sections show.
    pub headline: Headline,
    /// Reply minus actual send, by row; `null` for a row without it.
    pub service_time: Named<Option<LatencyBlock>>,
    /// Reply minus intended send, by row.
    pub response_time: Named<LatencyBlock>,
    /// The requests never sent, by row: deadline minus intended send (empty
    /// in a file written before kvbench kept them apart from the replies).
    #[serde(default)]
    pub never_sent_wait: Named<Option<LatencyBlock>>,
}

/// `kvbench.variance`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Variance {
    /// Each run's total ops/sec.
    pub ops_per_sec: Vec<f64>,
    /// Mean.
    pub mean: f64,
    /// Median.
    pub median: f64,
    /// Lowest.
    pub min: f64,
    /// Highest.
    pub max: f64,
    /// max / min.
    pub max_over_min: f64,
    /// Sample standard deviation / mean.
    pub cv: f64,
    /// 95 % CI of the mean, low end.
    pub ci95_low: f64,
    /// High end.
    pub ci95_high: f64,
    /// max/min above 1.10.
    pub noisy: bool,
}

/// What cut a phase short.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum InterruptCause {
    /// SIGINT or SIGTERM.
    #[serde(rename = "signal")]
    Signal,
    /// `--max-errors`.
    #[serde(rename = "max-errors")]
    MaxErrors,
}

/// `kvbench.interrupted`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interrupted {
    /// `RUN #n`, `WARM-UP`, `PREFILL`.
    pub phase: String,
    /// Why.
    pub cause: InterruptCause,
    /// The signal number.
    pub signal: Option<i32>,
}

/// `kvbench.cell`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// Stable name (`rate_not_met`).
    pub kind: String,
    /// What happened and what to change.
    pub message: String,
    /// `--no-warning` left it out of the text report and stderr; written
    /// only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub silenced: bool,
}

/// `kvbench.verdict`: the whole result's, and each section's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// No reason makes the result invalid.
    pub valid: bool,
    /// Why not.
    pub reasons: Vec<VerdictReason>,
    /// Each result section's own, by title (absent in a sweep's or suite's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sections: Option<Named<SectionVerdict>>,
}

impl Verdict {
    /// Each reason as a line, `RUN #1: message`, as the text report and
    /// stderr show them.
    pub fn lines(&self) -> Vec<String> {
        self.reasons
            .iter()
            .map(|r| match &r.phase {
                Some(phase) => format!("{phase}: {}", r.message),
                None => r.message.clone(),
            })
            .collect()
    }
}

/// One section's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionVerdict {
    /// No reason makes the section invalid.
    pub valid: bool,
    /// Why not.
    pub reasons: Vec<VerdictReason>,
}

/// One reason a result is not valid. `kind` stays a string, as a warning's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictReason {
    /// Stable name (`error_replies`).
    pub kind: String,
    /// The cause, with its numbers, and what to change.
    pub message: String,
    /// Where it was found (`RUN #2`, a sweep cell, a suite test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
}
