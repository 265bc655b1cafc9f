//! A phase's summary in the `kvbench` object (`runs[i]`, `warmup`,
//! `prefill`): its timing, rates, exact counts by command, errors, the
//! server's and the client machine's account, and what only some phases
//! carry (the open loop, a cluster's nodes, the warm-up's steadiness, a
//! run's precision).

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::report::model::cluster::PhaseCluster;
use crate::report::model::histogram::CompressedHistogram;
use crate::report::model::host::ClientUse;
use crate::report::model::load_gap::LoadGap;
use crate::report::model::named::Named;
use crate::report::model::open_loop::OpenLoop;
use crate::report::model::precision::Precision;
use crate::report::model::section::Section;
use crate::report::model::server::{ServerEvidence, ServerUse};
use crate::report::model::server_latency::ServerLatency;
use crate::report::model::warmup::Steadiness;
use crate::report::model::watched::{Limit, Watched};
use crate::report::model::{rounded, schema};

/// A phase summary (`runs[i]`, `warmup`, `prefill`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "phase")]
pub struct PhaseSummary {
    /// `"RUN #1"`, `"WARM-UP"`, `"PREFILL"`.
    #[schemars(regex(pattern = r"^(RUN #[0-9]+|WARM-UP|PREFILL)$"))]
    pub phase: String,
    /// Wall-clock start, ms since the epoch.
    pub start_time_ms: u64,
    /// With `--start-at`: this phase's actual start minus its planned start,
    /// ms (at most `--start-tolerance`); `null` for a phase that was not
    /// aligned (the prefill, later phases of a `-n` run, every phase without
    /// `--start-at`).
    #[serde(default, serialize_with = "rounded::opt_places::<3, _>")]
    #[schemars(range(min = 0))]
    pub start_lag_ms: Option<f64>,
    /// The run time, ms: from the common start until the last thread
    /// stopped sending (the deadline, an interrupt, or its last reply when it
    /// ran out of requests). The drain is `drain_ms`, apart.
    // Exact in the model, whole milliseconds in the JSON.
    #[serde(rename = "duration_ms", with = "rounded::millis")]
    #[schemars(with = "u64")]
    pub duration: Duration,
    /// How long the replies in flight when sending stopped were awaited, ms
    /// (at most 5 s); not in `duration_ms`.
    #[serde(rename = "drain_ms", default, with = "rounded::millis")]
    #[schemars(with = "u64")]
    pub drain: Duration,
    /// Connections that were closed or reconnecting when sending stopped.
    #[serde(default)]
    pub connections_down_at_end: u64,
    /// `null`, or why the phase did not offer its whole load (see
    /// `reason`).
    #[serde(default)]
    pub incomplete: Option<Incomplete>,
    /// All replies per second of run time.
    #[schemars(range(min = 0))]
    #[serde(serialize_with = "rounded::places2")]
    pub ops_per_sec: f64,
    /// Replies that were not errors, per second: `ops_per_sec` minus
    /// `errors_per_sec`.
    #[serde(default, serialize_with = "rounded::places2")]
    #[schemars(range(min = 0))]
    pub successes_per_sec: f64,
    /// Error replies (`-OOM`, `-ERR`, …) per second; memtier's `Ops/sec`
    /// counts them as operations.
    #[serde(default, serialize_with = "rounded::places2")]
    #[schemars(range(min = 0))]
    pub errors_per_sec: f64,
    /// CPU seconds (user + system) each worker thread used in the phase.
    // Unrounded in the model; the JSON writes four places.
    #[serde(serialize_with = "crate::report::model::rounded::each_places4")]
    pub thread_cpu_s: Vec<f64>,
    /// Exact counts by command: `SET` and `GET` for the default pair;
    /// `HSET`, `LRANGE`, … (a repeated line numbered, `GET#2`) for
    /// `--command` runs.
    #[schemars(schema_with = "schema::by_command::<OpTotals>")]
    pub totals: Named<OpTotals>,
    /// Errors by kind.
    pub errors: Errors,
    /// With `--rate` or `--rate-limiting`; `null` in a closed loop.
    pub open_loop: Option<OpenLoop>,
    /// The server's own account of the phase; `null` when it does not
    /// answer INFO.
    pub server: Option<ServerEvidence>,
    /// Why the server's account of the phase is missing when its control
    /// connection failed (a server that never answers INFO has none and no
    /// reason); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_evidence_lost: Option<String>,
    /// This client machine's CPU and network during the phase (absent from
    /// files written before it, and from a merged file, whose machines'
    /// are in `kvbench.rounds`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "ClientUse")]
    pub client: Option<ClientUse>,
    /// Each server process's CPU and network, second by second (absent
    /// without INFO, in `--cluster-mode` and from older files). A merged
    /// run has one entry per server process, read by any of its machines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub server_use: Vec<ServerUse>,
    /// `--watch`: each component behind the target over the phase (the
    /// sampling machine's; a merged run carries them from it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub watched: Vec<Watched>,
    /// The component nearest its capacity in this phase, or why none
    /// limited it (absent from files written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Limit")]
    pub limit: Option<Limit>,
    /// The time load was due and none was applied (absent from files
    /// written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "LoadGap")]
    pub load_gap: Option<LoadGap>,
    /// Each row's whole latency histogram of the phase, by command (`SET`,
    /// `GET`, `HSET`) as `totals` is: what `kvbench merge` adds across
    /// machines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "schema::by_command::<CompressedHistogram>")]
    pub histograms: Option<Named<CompressedHistogram>>,
    /// `--cluster-mode` only (absent for one server): each node that
    /// answered, and what routing cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "PhaseCluster")]
    pub cluster: Option<PhaseCluster>,
    /// The server's own latency per op beside kvbench's (Redis 7
    /// `LATENCY HISTOGRAM`); absent for a target without INFO and from
    /// older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "ServerLatency")]
    pub server_latency: Option<ServerLatency>,
    /// Warm-up only: whether its throughput and p99 had settled, and how
    /// long `--warmup-time auto` took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Steadiness")]
    pub steadiness: Option<Steadiness>,
    /// A measured run only: its ops/sec and printed percentiles, each with
    /// its 95 % interval (absent from other phases and older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Precision")]
    pub precision: Option<Precision>,
    /// Warm-up only: its full section in memtier's layout.
    #[serde(rename = "ALL STATS", default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Section")]
    pub all_stats: Option<Section>,
}

/// `incomplete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Incomplete {
    /// Stable name: `interrupted` (a signal or `--max-errors` cut the phase
    /// short; it is left out of BEST, WORST and the aggregate) or
    /// `connections_lost`.
    pub reason: String,
    /// In words.
    pub message: String,
}

/// Exact counts of one command, not rates.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "opTotals")]
pub struct OpTotals {
    /// Replies received.
    pub count: u64,
    /// GET replies carrying a value (0 for SET).
    pub hits: u64,
    /// GET nil replies (0 for SET).
    pub misses: u64,
    /// Error replies (`-ERR …`).
    pub errors: u64,
    /// Request bytes of the replies received, counted at the reply as
    /// memtier does: a request lost in flight adds nothing.
    pub bytes_tx: u64,
    /// Reply bytes received.
    pub bytes_rx: u64,
    /// Exact sum of the row's latencies in microseconds (the mean is this
    /// over `count`); absent from files written before it was added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub latency_sum_us: Option<u64>,
    /// With `--command`: error replies by first word (`ERR`, `OOM`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Named<u64>")]
    pub errors_by_kind: Option<Named<u64>>,
    /// With `--command`: the command's name (`HSET`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub command: Option<String>,
    /// With `--retry-on-error`: error replies answered by sending the
    /// request again (not in `count`: a request counts once, at the reply
    /// that settles it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub retries: Option<u64>,
}

/// `errors`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "errors")]
pub struct Errors {
    /// Error replies by their first word (`ERR`, `OOM`, …, `OTHER` for any
    /// other), every kind written.
    #[schemars(schema_with = "schema::server_error_kinds")]
    pub server: Named<u64>,
    /// Connections lost (closed or failed) during the phase.
    pub connection: u64,
    /// Reconnect attempts refused: the connect failed, or the handshake got
    /// an error reply.
    pub refused: u64,
    /// Requests unanswered within `--request-timeout`; each resets its
    /// connection.
    pub timeouts: u64,
    /// Reconnects started, after a fault or on purpose
    /// (`--reconnect-interval`).
    pub reconnects: u64,
    /// Replies that could not be parsed.
    pub protocol: u64,
    /// Requests sent but never answered because their connection was lost.
    pub lost_requests: u64,
    /// RESP3 push frames (invalidations, pub/sub messages): answering no
    /// request, counted apart (absent from reports before RESP3).
    #[serde(default)]
    pub pushes: u64,
    /// RESP3 attribute frames the server sent before or inside replies:
    /// validated, skipped and counted (absent from reports before they were
    /// counted).
    #[serde(default)]
    pub attributes: u64,
}
