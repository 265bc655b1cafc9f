//! `runs[i].watched` and `runs[i].limit`: the components behind the target
//! (`--watch`: shards, hosts, a proxy) over the phase, and the component
//! nearest its capacity — the whitepaper's per-round question, "which part
//! limited this round?" (docs/scale-out.md, "Through a proxy").
//!
//! A merged file carries the one sampling machine's entries into every
//! round (`kvbench.rounds[i].watched`), with the round's own `limit`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::named::Named;
use super::server::ServerSecond;

/// One watched component over a phase. Which fields it has follows its
/// `role`: a shard's commands, hits and CPU; a host's cores and
/// interfaces; a proxy's backends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Watched {
    /// How it was read: `redis`, `memcached`, `node` or `twemproxy`.
    pub kind: String,
    /// `shard`, `host` or `proxy`.
    pub role: String,
    /// `host:port` as given to `--watch`, never with credentials.
    pub address: String,
    /// Why some or all of its figures are missing; `null` when it answered.
    pub error: Option<String>,
    /// Seconds its figures cover (a shard's by its own clock).
    #[schemars(range(min = 0))]
    pub seconds: f64,
    /// A shard: INFO's `run_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// A shard: commands per second it processed, every client's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub ops_per_sec: Option<f64>,
    /// A shard: its calls during the phase (run or refused), by command,
    /// lower case (its control connection's own INFO included under `info`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls: Option<Named<u64>>,
    /// A shard: keyspace hits (memcached: `get_hits`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hits: Option<u64>,
    /// A shard: keyspace misses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub misses: Option<u64>,
    /// A shard: hits over hits plus misses, percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 100))]
    pub hit_rate_percent: Option<f64>,
    /// A shard: keys at the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<u64>,
    /// A shard: CPU of every thread, percent of one core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub cpu_percent: Option<f64>,
    /// A shard: its main thread's CPU, percent of one core (Redis's
    /// `used_cpu_*_main_thread`); what a Redis shard saturates first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub main_thread_cpu_percent: Option<f64>,
    /// A shard: threads that serve clients (Redis's active I/O threads,
    /// memcached's workers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<u64>,
    /// A shard: bytes per second it read from its clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub net_input_bytes_per_sec: Option<f64>,
    /// A shard: bytes per second it wrote to them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub net_output_bytes_per_sec: Option<f64>,
    /// A host: its cores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cores: Option<u32>,
    /// A host: cores kept busy on average.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub busy_cores: Option<f64>,
    /// A host: busy share of all its cores, percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 100))]
    pub host_cpu_percent: Option<f64>,
    /// A host: each interface that carried traffic during the phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interfaces: Option<Vec<WatchedInterface>>,
    /// A proxy: client connections open at the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_connections: Option<u64>,
    /// A proxy: what each backend was sent during the phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backends: Option<Vec<ProxyBackend>>,
    /// A shard's CPU, network and commands each second, as `server_use`'s.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_second: Vec<ServerSecond>,
    /// A host's busy cores each second.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub busy_cores_per_second: Vec<f64>,
}

/// One interface of a watched host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WatchedInterface {
    /// Its name (`eth0`).
    pub device: String,
    /// Bytes per second received.
    #[schemars(range(min = 0))]
    pub rx_bytes_per_sec: f64,
    /// Bytes per second sent.
    #[schemars(range(min = 0))]
    pub tx_bytes_per_sec: f64,
    /// Bytes per second the link carries; `null` where the host does not
    /// know (loopback, most virtual links).
    pub speed_bytes_per_sec: Option<f64>,
}

/// One backend of a watched proxy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ProxyBackend {
    /// The proxy's pool.
    pub pool: String,
    /// The backend's name in the proxy's config.
    pub server: String,
    /// Requests forwarded to it.
    pub requests: u64,
    /// Replies it sent.
    pub responses: u64,
    /// Its errors, time-outs and closed connections.
    pub errors: u64,
}

/// `limit`: the component nearest its capacity, or why none limited the
/// phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Limit {
    /// `shard 127.0.0.1:7001`, `host 127.0.0.1:9100`, `client`, … ; `null`
    /// when no component reached [`LIMIT_PERCENT`] of its capacity.
    pub component: Option<String>,
    /// What was measured: `main-thread CPU`, `CPU`, `kvbench CPU`, `eth0`.
    pub measure: Option<String>,
    /// How much it used, in `unit`s.
    pub used: Option<f64>,
    /// Its capacity, in `unit`s.
    pub capacity: Option<f64>,
    /// `cores` or `bytes/s`.
    pub unit: Option<String>,
    /// `used` over `capacity`, percent.
    pub utilization_percent: Option<f64>,
    /// The verdict in words.
    pub text: String,
    /// What was not watched, so the verdict cannot speak for it.
    pub unwatched: Vec<String>,
}

/// The utilization, percent, from which a component is named as the limit.
pub const LIMIT_PERCENT: f64 = 80.0;
