//! `runs[i].server_latency`: the server's own time per command (Redis 7's
//! `LATENCY HISTOGRAM` and `INFO commandstats` `usec_per_call`, differenced
//! around the phase) beside kvbench's latency, and what lies between them:
//! queueing, the network and the client (docs/output.md).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::report::model::named::Named;
use crate::report::model::schema;

/// `server_latency`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "serverLatency")]
pub struct ServerLatency {
    /// The server answered `LATENCY HISTOGRAM` before and after the phase.
    pub available: bool,
    /// Why not, when not available.
    pub unavailable: Option<LatencyUnavailable>,
    /// By row (`SET`, `GET`, `HSET`) as `totals` is; empty when not
    /// available.
    #[schemars(schema_with = "schema::by_command::<OpServerLatency>")]
    pub ops: Named<OpServerLatency>,
}

/// `server_latency.unavailable`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LatencyUnavailable {
    /// `no_latency_histogram` (before Redis 7), `latency_tracking_off` or
    /// `no_control_connection` (in `--cluster-mode`, any node's); older
    /// files may say `cluster_mode`.
    pub kind: String,
    /// In words.
    pub message: String,
}

/// One op: the server's time and kvbench's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OpServerLatency {
    /// The server's name of the command (`get`, `config|get`).
    pub command: String,
    /// Calls in the server's histogram during the phase (every client's;
    /// in `--cluster-mode` the masters' summed, with replicas' reads).
    pub server_calls: u64,
    /// `INFO commandstats`: µs per call over the phase (every client's);
    /// `null` without calls.
    pub usec_per_call: Option<f64>,
    /// The server's median, µs: the lower edge of its power-of-two bucket
    /// (the median is at least this).
    pub server_p50_us: Option<u64>,
    /// The upper edge of that bucket (the median is at most this).
    pub server_p50_max_us: Option<u64>,
    /// The server's 99th percentile, µs: its bucket's lower edge, at most
    /// kvbench's p99 for the op (each request's time at the client holds
    /// its time in the server).
    pub server_p99_us: Option<u64>,
    /// The upper edge of that bucket.
    pub server_p99_max_us: Option<u64>,
    /// kvbench's median for the op, µs.
    pub kvbench_p50_us: u64,
    /// kvbench's 99th percentile, µs.
    pub kvbench_p99_us: u64,
    /// kvbench's p50 minus the server's: queueing, network and client (at
    /// most this, since the server's is its bucket's lower edge).
    pub outside_server_p50_us: Option<i64>,
    /// The same at p99.
    pub outside_server_p99_us: Option<i64>,
}
