//! `kvbench.runs[i].cluster` of a `--cluster-mode` report: the options, each
//! node's counts, share and latency, the redirect totals and the per-second
//! redirects, as docs/output.md describes them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::report::model::histogram::CompressedHistogram;
use crate::report::model::named::Named;
use crate::report::model::rounded;

/// A `--cluster-mode` phase: the options, each node that answered, and what
/// routing cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "phaseCluster")]
pub struct PhaseCluster {
    /// `--max-redirects`.
    pub max_redirects: u32,
    /// `--read-from`: `primary`, `replica` or `any`. A string, so that a
    /// mode added later still reads.
    pub read_from: String,
    /// One entry per node that answered (a reply or a redirect), sorted by
    /// address (host, then port as a number).
    pub nodes: Vec<NodeSummary>,
    /// What routing cost over the phase.
    pub redirects: Redirects,
    /// Redirects and retries of each second of the phase.
    pub per_second: PerSecond,
}

/// One node of `cluster.nodes`: a cluster node that answered during the
/// phase (a reply or a redirect).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "clusterNode")]
pub struct NodeSummary {
    /// `host:port`.
    pub address: String,
    /// `master` or `replica` at discovery; `null` when unknown.
    pub role: Option<String>,
    /// Slots it served at discovery; `null` when unknown.
    #[schemars(range(max = 16384))]
    pub slots: Option<u64>,
    /// Replies, error replies included, redirects not.
    pub count: u64,
    /// Replies per second of the phase.
    // Unrounded in the model; the JSON writes two places.
    #[serde(serialize_with = "rounded::places2")]
    pub ops_per_sec: f64,
    /// Its replies over every node's, 0 to 1 (6 decimals).
    #[schemars(range(min = 0, max = 1))]
    #[serde(serialize_with = "rounded::places6")]
    pub share: f64,
    /// Replies carrying a value.
    pub hits: u64,
    /// Nil replies.
    pub misses: u64,
    /// Error replies (redirects past `--max-redirects` included).
    pub errors: u64,
    /// `-MOVED` replies it sent that were followed.
    pub moved: u64,
    /// `-ASK` replies it sent that were followed.
    pub ask: u64,
    /// Reads it answered as a replica (`--read-from replica` or `any`).
    pub replica_reads: u64,
    /// Its latency, from its merged histogram.
    pub latency: NodeLatency,
    /// That histogram (µs), compressed as the runs' `histograms` are, so
    /// that `kvbench merge` can add the machines' and read the percentiles
    /// of the union; absent from files written before it was kept.
    #[serde(default)]
    pub latency_histogram: Option<CompressedHistogram>,
    /// The node's own INFO commandstats calls during the phase, by command
    /// sent (lower case); `null` without its evidence, and always `null` in
    /// a merged file (each machine's INFO counts every machine's calls).
    pub server_calls: Option<Named<u64>>,
}

/// `cluster.nodes[i].latency`, ms.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NodeLatency {
    /// Exact mean.
    // Unrounded in the model; the JSON writes three places.
    #[serde(serialize_with = "rounded::places3")]
    pub avg_ms: f64,
    /// Median, from the node's histogram merged over every thread.
    pub p50_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// 99.9th percentile.
    pub p99_9_ms: f64,
}

/// `cluster.redirects`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Redirects {
    /// `-MOVED` followed.
    pub moved: u64,
    /// `-ASK` followed.
    pub ask: u64,
    /// Requests sent again after `-TRYAGAIN` or `-CLUSTERDOWN`.
    pub retries: u64,
    /// Requests not sent because their node's connection was down.
    pub node_down: u64,
    /// Slot-map refreshes asked for.
    pub refreshes: u64,
    /// `ASKING` answered with an error (sent to the node an `-ASK` named):
    /// the request after it was not served as asked (absent from files written before it
    /// was counted).
    #[serde(default)]
    pub asking_refused: u64,
}

/// `cluster.per_second`: one entry per second of the phase, as
/// `Time-Serie`'s seconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PerSecond {
    /// `-MOVED` followed.
    pub moved: Vec<u64>,
    /// `-ASK` followed.
    pub ask: Vec<u64>,
    /// Retries.
    pub retries: Vec<u64>,
}
