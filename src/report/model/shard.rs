//! The shard side of the `kvbench` object: `shard` (which machine of a
//! sharded run wrote this file, read leniently: every field may be absent)
//! and, in a file written by `kvbench merge`, `shards` (a row per machine)
//! and `merged` (which files, and whether the set was complete).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::ShardSource;
use crate::report::model::watched::{Limit, Watched};
use crate::report::model::{rounded, schema};

/// The machine's clock against the coordinator's, measured at the start and
/// at the end of the benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShardClock {
    /// Server minus local time before the first phase, ms (positive: the
    /// server is ahead).
    #[serde(default, serialize_with = "rounded::opt_places::<3, _>")]
    pub offset_start_ms: Option<f64>,
    /// The same after the last phase, ms; their difference is the drift
    /// over the run.
    #[serde(default, serialize_with = "rounded::opt_places::<3, _>")]
    pub offset_end_ms: Option<f64>,
    /// Round trip of the sample kept, ms: the offset is known to within half
    /// of it.
    #[serde(default, serialize_with = "rounded::opt_places::<3, _>")]
    #[schemars(range(min = 0))]
    pub rtt_ms: Option<f64>,
    /// `TIME` round trips per measurement.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub samples: Option<u64>,
}

/// `kvbench.shard`: one machine of a sharded run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "shard")]
pub struct ShardInfo {
    /// This shard, from 0 (0 on one machine).
    pub index: u32,
    /// Shards of the run (1 on one machine).
    #[schemars(range(min = 1))]
    pub count: u32,
    /// Where index and count came from: `--shard-index`/`--shard-count`, or
    /// the launcher's environment; `null` on one machine (or, read back,
    /// unknown to this reader).
    #[serde(default, deserialize_with = "lenient_source")]
    #[schemars(schema_with = "schema::shard_source")]
    pub source: Option<ShardSource>,
    /// The machine's host name.
    #[serde(default)]
    pub host: Option<String>,
    /// `--start-at`: the planned common start, ms since the epoch.
    #[serde(default)]
    pub start_at_ms: Option<u64>,
    /// The first aligned phase's actual start minus its planned start, ms;
    /// `null` without `--start-at`.
    #[serde(default, serialize_with = "rounded::opt_places::<3, _>")]
    #[schemars(range(min = 0))]
    pub start_lag_ms: Option<f64>,
    /// The planned start this shard reached later than `--start-tolerance`;
    /// it ran no more phases and exited with code 4. `null` otherwise.
    #[serde(default)]
    pub late: Option<ShardLate>,
    /// This machine's clock against the server's `TIME`: the lowest-round-trip
    /// of several samples, offset = server time − middle of the round trip;
    /// `null` when the server has no `TIME` (memcached).
    #[serde(default)]
    pub clock: Option<ShardClock>,
    /// `--start-at barrier`: how this machine met the others; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub barrier: Option<ShardBarrier>,
}

/// `kvbench.shard.barrier`: what `--start-at barrier` did (its `T` is
/// `start_at_ms`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShardBarrier {
    /// The run id every shard of the run met under.
    pub run_id: String,
    /// This machine's place in the order of arrival, from 1.
    pub arrival: u64,
    /// From its arrival until `T` was known, ms.
    #[serde(serialize_with = "rounded::places3")]
    pub waited_ms: f64,
}

/// `kvbench.shard.late`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShardLate {
    /// `RUN #2`, `WARM-UP`.
    #[schemars(regex(pattern = r"^(RUN #[0-9]+|WARM-UP)$"))]
    pub phase: String,
    /// How late, ms.
    #[schemars(range(min = 0))]
    #[serde(serialize_with = "rounded::places3")]
    pub lag_ms: f64,
}

/// A source this reader does not know reads as unknown rather than failing.
fn lenient_source<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<ShardSource>, D::Error> {
    let value = Option::<serde_json::Value>::deserialize(deserializer)?;
    Ok(value.and_then(|v| serde_json::from_value(v).ok()))
}

/// `kvbench.shards[i]` of a merged file: one machine's own figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShardRow {
    /// Its shard index; `None` for a plain (unsharded) file.
    pub index: Option<u32>,
    /// Its host, when it said.
    pub host: Option<String>,
    /// Its total ops/sec over all its runs.
    #[schemars(range(min = 0))]
    pub ops_per_sec: f64,
    /// Its GET hit rate, percent.
    #[schemars(range(min = 0, max = 100))]
    pub hit_rate: Option<f64>,
    /// Its p99 latency over all its runs, ms.
    #[schemars(range(min = 0))]
    pub p99_ms: Option<f64>,
    /// How late it started against the plan, ms.
    pub start_lag_ms: Option<f64>,
    /// Its clock offset at the start, ms.
    pub clock_offset_ms: Option<f64>,
    /// The file it came from, as given.
    pub file: String,
}

/// `kvbench.merged`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Merged {
    /// The files merged, in the order given.
    pub files: Vec<String>,
    /// Some shards are missing (`--allow-partial`), or the files carried no
    /// shard object.
    pub partial: bool,
    /// The missing shard indexes.
    pub missing: Vec<u32>,
    /// The SHA-256 of the measured data of every machine's file the merge
    /// holds, 64 hex digits each, in the order merged (a merged file given
    /// to `kvbench merge` brings its own list); no measurement is in it twice.
    /// Absent from files merged before it was written.
    #[serde(default)]
    #[schemars(inner(regex(pattern = "^[0-9a-f]{64}$")), extend("uniqueItems" = true))]
    pub sha256: Vec<String>,
    /// How far apart the machines started RUN #1, ms on the reference
    /// clock (each start corrected by its machine's clock offset when
    /// every machine measured one); absent when a start is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "f64", range(min = 0))]
    pub start_skew_ms: Option<f64>,
    /// Whether `start_skew_ms` is corrected by the clock offsets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub clocks_corrected: Option<bool>,
    /// Per run, the common window's length, s: the span in which every
    /// machine was sending, which the merged rates are over. Empty for a
    /// set of runs made one after the other (no shard object).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(inner(range(min = 0)))]
    pub common_window_s: Vec<f64>,
}

/// `kvbench.rounds[i]` in a merged file: one run of the set as the
/// whitepaper tabulates it — the total rate, hit rate and percentiles, and
/// what every client machine and every server did meanwhile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Round {
    /// `RUN #1`.
    pub phase: String,
    /// The set's replies per second (over the common window).
    #[schemars(range(min = 0))]
    pub ops_per_sec: f64,
    /// GET hits over hits plus misses, percent.
    #[schemars(range(min = 0, max = 100))]
    pub hit_rate_percent: Option<f64>,
    /// The merged p50, ms.
    #[schemars(range(min = 0))]
    pub p50_ms: Option<f64>,
    /// The merged p99, ms.
    #[schemars(range(min = 0))]
    pub p99_ms: Option<f64>,
    /// The merged p99.9, ms.
    #[schemars(range(min = 0))]
    pub p99_9_ms: Option<f64>,
    /// Each client machine, in the files' order.
    pub clients: Vec<RoundClient>,
    /// Each server process the set drove.
    pub servers: Vec<RoundServer>,
    /// `--watch`: the components behind the target in this round (shards,
    /// hosts, the proxy), as the sampling machine read them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub watched: Vec<Watched>,
    /// The component nearest its capacity in this round, or why none
    /// limited it (absent from files written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Limit")]
    pub limit: Option<Limit>,
}

/// One client machine's run in a [`Round`] (its `runs[i].client`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RoundClient {
    /// The server it drove (`kvbench.target`).
    #[serde(default)]
    pub target: String,
    /// Its own replies per second in this run.
    #[serde(default)]
    pub ops_per_sec: f64,
    /// Its GET hit rate in this run, percent (absent from files written
    /// before it was kept, and without GETs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 100))]
    pub hit_rate_percent: Option<f64>,
    /// Its shard index.
    pub index: Option<u32>,
    /// Its host name.
    pub host: Option<String>,
    /// Its file.
    pub file: String,
    /// kvbench's CPU, percent of one core; `null` when its file has no
    /// `client` (an older kvbench).
    #[schemars(range(min = 0))]
    pub process_cpu_percent: Option<f64>,
    /// The machine's CPU, percent of all cores.
    #[schemars(range(min = 0, max = 100))]
    pub machine_cpu_percent: Option<f64>,
    /// Bytes per second received on its interface towards the target.
    #[schemars(range(min = 0))]
    pub net_rx_bytes_per_sec: Option<f64>,
    /// Bytes per second sent.
    #[schemars(range(min = 0))]
    pub net_tx_bytes_per_sec: Option<f64>,
    /// The machine's cores (absent from files written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cores: Option<u32>,
    /// Its own p99 in this run, ms, from its histograms of every row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub p99_ms: Option<f64>,
}

/// One server's run in a [`Round`], from its INFO over the set's window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RoundServer {
    /// INFO's `run_id` (memcached's pid and start time).
    pub run_id: String,
    /// The target the machines gave for it.
    #[serde(default)]
    pub target: String,
    /// Seconds between the earliest INFO before and the latest after, by
    /// the server's clock (`server_time_usec`; the run time without it).
    #[schemars(range(min = 0))]
    pub seconds: f64,
    /// Its CPU (`used_cpu_user` + `used_cpu_sys`), percent of one core.
    #[schemars(range(min = 0))]
    pub cpu_percent: f64,
    /// Bytes per second it read from its clients.
    #[schemars(range(min = 0))]
    pub net_input_bytes_per_sec: Option<f64>,
    /// Bytes per second it wrote to them.
    #[schemars(range(min = 0))]
    pub net_output_bytes_per_sec: Option<f64>,
}
