//! The server's side of a report: what the server is (`kvbench.server`), its
//! own account of each phase (a phase summary's `server`: INFO before and
//! after, the difference, the slow log), and where kvbench's threads ran
//! relative to it (`kvbench.placement`).
//!
//! INFO's sections stay `serde_json::Value` maps: their fields are the
//! server's, and differ between versions and servers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::named::Named;
use super::{rounded, schema};
use crate::engine::master::placement::Reason;

/// `server` of a phase: INFO around it and the difference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "serverEvidence")]
pub struct ServerEvidence {
    /// INFO server, memory, persistence, stats, cpu, keyspace, commandstats
    /// just before the phase: `{section: {field: value}}`, numbers as
    /// numbers.
    pub info_before: Map<String, Value>,
    /// The same just after the phase.
    pub info_after: Map<String, Value>,
    /// After minus before.
    pub delta: Delta,
    /// Server CPU seconds per 1000 requests.
    #[schemars(range(min = 0))]
    #[serde(serialize_with = "rounded::opt_places::<6, _>")]
    pub cpu_s_per_1000_requests: Option<f64>,
    /// `--slowlog`: entries logged during the run, oldest first; `null`
    /// otherwise.
    pub slowlog: Option<Vec<SlowlogEntry>>,
    /// `--cluster-mode`: every node whose INFO `delta` sums, with its role
    /// before and after the phase (a replica throughout adds only its reads
    /// and refused calls; a node that changed role makes the write counts
    /// uncomparable); absent for one server.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<NodeRoles>,
}

/// One node of a phase's `server.nodes`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NodeRoles {
    /// `host:port`.
    pub address: String,
    /// `master` or `replica` before the phase.
    pub role_before: String,
    /// The same after it.
    pub role_after: String,
}

impl NodeRoles {
    /// A master before or after the phase: all its counts are in the sum.
    pub fn counted(&self) -> bool {
        self.role_before == "master" || self.role_after == "master"
    }
}

/// `delta`. The per-command calls are optional: they are SET's and GET's
/// today, and a report of other commands has other names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Delta {
    /// The server's run_id changed during the phase: its counters
    /// restarted, and the deltas cover the new process only.
    pub server_restarted: bool,
    /// `cmdstat_set` calls during the phase: the witness of `Sets` `Count`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub set_calls: Option<u64>,
    /// `cmdstat_get` calls during the phase: the witness of `Gets` `Count`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub get_calls: Option<u64>,
    /// `cmdstat_set` rejected_calls (Redis 7): SETs refused before they
    /// ran, e.g. `-OOM`; not part of `set_calls`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub set_rejected_calls: Option<u64>,
    /// `cmdstat_get` rejected_calls (Redis 7); not part of `get_calls`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub get_rejected_calls: Option<u64>,
    /// `cmdstat_set` failed_calls (Redis 7): SETs that ran and answered an
    /// error; part of `set_calls`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub set_failed_calls: Option<u64>,
    /// `cmdstat_get` failed_calls (Redis 7); part of `get_calls`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub get_failed_calls: Option<u64>,
    /// Per command of the op table (`set`, `hset`, …): the server's calls
    /// beside kvbench's replies. Absent in files written before the op table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Named<CommandDelta>")]
    pub commands: Option<Named<CommandDelta>>,
    /// `total_commands_processed`.
    pub total_commands_processed: u64,
    /// `keyspace_hits`.
    pub keyspace_hits: u64,
    /// `keyspace_misses`.
    pub keyspace_misses: u64,
    /// `total_forks`: forks (RDB saves, AOF rewrites) during the phase.
    pub total_forks: u64,
    /// Server CPU seconds, user + system.
    #[schemars(range(min = 0))]
    #[serde(serialize_with = "rounded::places6")]
    pub cpu_s: f64,
    /// Bytes the server read from its clients (`total_net_input_bytes`;
    /// memcached's `bytes_read`); absent when the server does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub net_input_bytes: Option<u64>,
    /// Bytes it wrote to them (`total_net_output_bytes`; `bytes_written`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub net_output_bytes: Option<u64>,
    /// Keys before.
    pub keys_before: u64,
    /// Keys after.
    pub keys_after: u64,
    /// Bytes before; `null` for a server without `used_memory` (memcached).
    pub used_memory_before: Option<u64>,
    /// Bytes after.
    pub used_memory_after: Option<u64>,
}

/// `runs[i].server_use[j]`: one server process's CPU and network, second
/// by second, read on the control connection during the phase (INFO's
/// `used_cpu_*` and `total_net_*_bytes`, memcached's `rusage_*` and
/// `bytes_read`/`bytes_written`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerUse {
    /// INFO's `run_id` (memcached's pid and start time): a merge keeps one
    /// series per process, however many machines read it.
    pub run_id: String,
    /// The target the machine gave for it.
    pub target: String,
    /// Each completed second of the phase.
    pub per_second: Vec<ServerSecond>,
}

/// One second of `server_use[j].per_second`; a field is `null` where the
/// server does not say, or where it restarted during that second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerSecond {
    /// CPU, user + system, percent of one core.
    #[schemars(range(min = 0))]
    pub cpu_percent: Option<f64>,
    /// Bytes per second read from its clients.
    #[schemars(range(min = 0))]
    pub net_input_bytes_per_sec: Option<f64>,
    /// Bytes per second written to them.
    #[schemars(range(min = 0))]
    pub net_output_bytes_per_sec: Option<f64>,
    /// Commands per second the server processed, every client's (Redis's
    /// `total_commands_processed`; the control connection's few included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub ops_per_sec: Option<f64>,
    /// The server's own time per op in this second (Redis 7's `LATENCY
    /// HISTOGRAM`, differenced between readings), by row as `totals`;
    /// absent where the server does not keep it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "schema::by_command::<SecondServerLatency>")]
    pub latency: Option<Named<SecondServerLatency>>,
}

/// One op of `server_use[j].per_second[k].latency`: the bucket edges, µs,
/// of the server's median and 99th percentile in that second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SecondServerLatency {
    /// The server's name of the command (`get`).
    pub command: String,
    /// Calls in the second (every client's).
    pub calls: u64,
    /// The median's bucket: at least this.
    pub p50_us: u64,
    /// At most this.
    pub p50_max_us: u64,
    /// The 99th percentile's bucket: at least this.
    pub p99_us: u64,
    /// At most this.
    pub p99_max_us: u64,
}

/// One command's counts in `delta.commands`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CommandDelta {
    /// The server's `cmdstat_<name>` calls.
    pub calls: u64,
    /// Calls refused before they ran.
    pub rejected_calls: u64,
    /// Calls that ran and failed.
    pub failed_calls: u64,
    /// kvbench's replies for that command.
    pub kvbench_replies: u64,
}

/// One slow log entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SlowlogEntry {
    /// The server's id.
    pub id: i64,
    /// Seconds since the epoch.
    pub timestamp: i64,
    /// µs.
    pub duration_us: i64,
    /// The command's words.
    pub command: Vec<String>,
}

/// `kvbench.server`: what the server is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ServerContext {
    /// `redis_version`.
    pub version: Option<String>,
    /// `standalone`, `cluster`, …
    pub mode: Option<String>,
    /// The server's OS.
    pub os: Option<String>,
    /// Bytes; 0 = unlimited.
    pub maxmemory: Option<u64>,
    /// The eviction policy.
    pub maxmemory_policy: Option<String>,
    /// AOF on.
    pub appendonly: Option<bool>,
    /// `always`, `everysec`, `no`; `null` when CONFIG GET is refused.
    pub appendfsync: Option<String>,
    /// RDB save points; empty when snapshots are off; `null` when CONFIG
    /// GET is refused.
    pub save: Option<String>,
    /// I/O threads.
    pub io_threads_active: Option<u64>,
    /// A memcached server's own settings; absent for Redis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memcached: Option<MemcachedContext>,
}

/// `kvbench.server.memcached`: what `stats` says of its settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MemcachedContext {
    /// `limit_maxbytes`: the memory for items, bytes.
    pub limit_maxbytes: Option<u64>,
    /// `threads`: worker threads.
    pub threads: Option<u64>,
}

/// `kvbench.placement`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Placement {
    /// The CPU each worker thread was pinned to, by thread; `null` = not
    /// pinned (the kernel places it).
    pub thread_cpus: Vec<Option<u32>>,
    /// CPUs this process may use.
    pub available_cpus: Vec<u32>,
    /// The server runs on this machine.
    pub server_local: bool,
    /// The local server's process id (INFO server process_id), when it was
    /// found in /proc.
    pub server_pid: Option<u32>,
    /// The union of the CPUs the local server's threads may run on
    /// (io-threads included).
    pub server_cpus: Option<Vec<u32>>,
    /// How many threads the local server has.
    #[schemars(range(min = 1))]
    pub server_threads: Option<u32>,
    /// Why the threads were placed so.
    #[schemars(schema_with = "schema::placement_reason")]
    pub reason: Reason,
    /// The report's Placement line.
    pub summary: String,
}
