//! The shard side of the `kvbench` object: `shard` (which machine of a
//! sharded run wrote this file, read leniently: every field may be absent)
//! and, in a file written by `kvbench merge`, `shards` (a row per machine)
//! and `merged` (which files, and whether the set was complete).

use serde::{Deserialize, Serialize};

use crate::config::ShardSource;

/// The machine's clock against the coordinator's, measured at the start and
/// at the end of the benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardClock {
    /// Server minus local time before the first phase, ms.
    #[serde(default)]
    pub offset_start_ms: Option<f64>,
    /// The same at the end, ms.
    #[serde(default)]
    pub offset_end_ms: Option<f64>,
    /// Round trip of the best sample, ms.
    #[serde(default)]
    pub rtt_ms: Option<f64>,
    /// Samples taken.
    #[serde(default)]
    pub samples: Option<u64>,
}

/// `kvbench.shard`: one machine of a sharded run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardInfo {
    /// From 0.
    pub index: u32,
    /// Machines in the set.
    pub count: u32,
    /// Where the index came from; `None` when absent or unknown to this reader.
    #[serde(default, deserialize_with = "lenient_source")]
    pub source: Option<ShardSource>,
    /// The machine's host name.
    #[serde(default)]
    pub host: Option<String>,
    /// `--start-at`: the planned common start, ms since the epoch.
    #[serde(default)]
    pub start_at_ms: Option<u64>,
    /// How late this machine started against the plan, ms.
    #[serde(default)]
    pub start_lag_ms: Option<f64>,
    /// The planned start reached later than `--start-tolerance` (exit 4).
    #[serde(default)]
    pub late: Option<ShardLate>,
    /// Its clock against the server's `TIME`.
    #[serde(default)]
    pub clock: Option<ShardClock>,
    /// `--start-at barrier`: how this machine met the others; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub barrier: Option<ShardBarrier>,
}

/// `kvbench.shard.barrier`: what `--start-at barrier` did (its `T` is
/// `start_at_ms`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardBarrier {
    /// The run id every shard of the run met under.
    pub run_id: String,
    /// This machine's place in the order of arrival, from 1.
    pub arrival: u64,
    /// From its arrival until `T` was known, ms.
    pub waited_ms: f64,
}

/// `kvbench.shard.late`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardLate {
    /// `RUN #2`, `WARM-UP`.
    pub phase: String,
    /// How late, ms.
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardRow {
    /// Its shard index; `None` for a plain (unsharded) file.
    pub index: Option<u32>,
    /// Its host, when it said.
    pub host: Option<String>,
    /// Its total ops/sec over all its runs.
    pub ops_per_sec: f64,
    /// Its hit rate, percent.
    pub hit_rate: Option<f64>,
    /// Its p99 over all its runs, ms.
    pub p99_ms: Option<f64>,
    /// How late it started against the plan, ms.
    pub start_lag_ms: Option<f64>,
    /// Its clock offset at the start, ms.
    pub clock_offset_ms: Option<f64>,
    /// The file it came from, as given.
    pub file: String,
}

/// `kvbench.merged`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    pub sha256: Vec<String>,
}
