//! Warnings: things about a result that the reader must know before trusting it.
//!
//! Each warning is a variant with the numbers that triggered it; its `Display`
//! says what happened and what to change. Warnings are printed at the end of the
//! text report and on stderr, and stored in the JSON. The checks that raise them
//! live in [`checks`].

pub mod checks;
pub mod cluster;
mod display;
pub mod human;
mod memcached;
pub mod redirects;
pub mod stall;
pub mod watched;

use crate::config::{FlagSet, Headline, WarningKind};
use crate::engine::stats::gaps::GapSpan;
use crate::protocol::resp::ServerErrorKind;

pub use checks::{collect, rate_check};
pub use cluster::HotShardCause;
pub use human::Shown;
pub use redirects::RedirectLoop;
pub use stall::QuietSecond;

/// A worker thread at or above this share of one CPU is saturated: the result
/// measures the client, not the server.
pub const SATURATED_CPU_PERCENT: f64 = 90.0;

/// What held an open-loop run below its target rate.
#[derive(Debug, Clone, PartialEq)]
pub enum RateLimit {
    /// A kvbench worker thread was near saturation.
    Client {
        /// The busiest thread's CPU use, % of one CPU.
        busiest_cpu_percent: f64,
    },
    /// Replies came too slowly for the requests the connections may keep in
    /// flight (Little's law: in flight ÷ service time bounds the rate).
    Server {
        /// Most requests in flight at once: connections × pipeline.
        in_flight: usize,
        /// Mean service time, ms.
        mean_service_ms: f64,
        /// The rate that concurrency can carry at that service time.
        max_rate: f64,
    },
    /// Connections broke during the run: what fell due on them while they
    /// were down was sent late or never.
    LostConnections {
        /// Connection faults counted (closed, refused, timed out, garbled).
        faults: u64,
        /// Connections not ready when sending stopped.
        down_at_end: usize,
        /// Connections in the run.
        connections: usize,
    },
}

/// What [`Warning::GetsMostlyMiss`] advises, by what the run was asked to do
/// and which command line it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissFix {
    /// `--prefill` wrote the whole range: something removed keys since.
    Prefilled,
    /// A run without `--prefill`: add it.
    Prefill,
    /// A `kvbench suite` test, which takes no `--prefill`: its SET test
    /// writes the keys its GET test reads.
    SuiteSetFirst,
}

/// Where an estimated dataset does not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryLimit {
    /// The server's `maxmemory`.
    MaxMemory,
    /// `MemAvailable` of this machine (the server runs here).
    FreeMemory,
}

/// One warning about a result.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
    /// An open-loop run fell short of its target rate.
    RateNotMet {
        /// Which run.
        phase: String,
        /// `--rate`, requests per second.
        target: f64,
        /// Replies per second achieved.
        achieved: f64,
        /// Requests due before the deadline that were never sent.
        unsent: u64,
        /// The likely cause.
        limit: RateLimit,
    },
    /// A worker thread was near saturation: the numbers are the client's limit.
    ClientBound {
        /// Which run.
        phase: String,
        /// The busiest thread's CPU use, % of one CPU.
        busiest_cpu_percent: f64,
        /// Whose flag for threads the advice names.
        flags: FlagSet,
    },
    /// So few keys that every request hits the same few (the one-key default of
    /// redis-benchmark is the classic).
    KeyRangeTooSmall {
        /// Keys in the range.
        keys: u64,
        /// Requests of the measured runs.
        requests: u64,
        /// Whose flags widen the range.
        flags: FlagSet,
    },
    /// GETs on keys nobody wrote: the run measures misses as much as it
    /// measures GETs (the share said by the rate, "most" only below 50 %).
    GetsMostlyMiss {
        /// GET hit rate, %.
        hit_rate: f64,
        /// What would have written the keys first.
        fix: MissFix,
    },
    /// `--miss-rate-threshold`: more GETs missed than the threshold allows
    /// (memtier 2.4's warning after a run).
    MissRateAboveThreshold {
        /// GET miss rate of the measured runs, %.
        miss_rate: f64,
        /// `--miss-rate-threshold`, %.
        threshold: f64,
        /// GETs answered (hits and misses).
        answered: u64,
    },
    /// The server runs on this machine: client and server share its CPUs.
    SameMachine {
        /// The target, as printed.
        target: String,
        /// kvbench's threads ran on CPUs the server may not use.
        apart: bool,
        /// How to split this machine's CPUs, with its numbers (see
        /// [`crate::engine::master::placement::Placement::split_advice`]).
        advice: Option<String>,
    },
    /// The keys × values written would not fit.
    DatasetTooLarge {
        /// Estimated bytes the server would need.
        estimate: u64,
        /// The limit, bytes.
        limit: u64,
        /// Which limit.
        which: MemoryLimit,
        /// Whose flags shrink the dataset.
        flags: FlagSet,
    },
    /// Runs this short are dominated by start-up and noise.
    ShortRun {
        /// The run's length, seconds.
        secs: f64,
        /// Which flags lengthen it: `--test-time`, or the suite's `-n`.
        flags: FlagSet,
    },
    /// Too many replies were errors: the rates measure refusals.
    ErrorReplies {
        /// Error replies in the measured runs.
        errors: u64,
        /// All replies in the measured runs.
        replies: u64,
        /// The most frequent kind.
        kind: ServerErrorKind,
        /// Replies of that kind.
        kind_count: u64,
        /// The server's `maxmemory`, when it has one (bytes).
        maxmemory: Option<u64>,
        /// The server's `maxmemory-policy`.
        policy: Option<String>,
        /// The server is memcached, whose errors have other causes and fixes.
        memcached: bool,
        /// Whose flags the advice names.
        flags: FlagSet,
        /// `--cluster-mode`: what the redirects counted as errors say.
        redirects: Option<RedirectLoop>,
    },
    /// The server counted different numbers of requests than kvbench.
    CountMismatch {
        /// Which run.
        phase: String,
        /// The command name: `SET`, `GET`, `HSET`.
        op: String,
        /// kvbench's count.
        client: u64,
        /// The server's `cmdstat` calls, with the ones it rejected before
        /// running them (Redis 7 `rejected_calls`).
        server: u64,
    },
    /// The control connection failed: the server's own account of the run
    /// (its counts, CPU, the cross-check) is missing.
    EvidenceLost {
        /// Which run.
        phase: String,
        /// What failed.
        reason: String,
    },
    /// The server process changed during a run (its run_id differs).
    ServerRestarted {
        /// Which run.
        phase: String,
    },
    /// Context: every write waits for an fsync.
    FsyncAlways,
    /// Context: the server forked (RDB save or AOF rewrite) during a run.
    BackgroundSave {
        /// Which run.
        phase: String,
        /// Forks during it.
        forks: u64,
    },
    /// Identical runs disagreed by more than 10 %.
    RunsDisagree {
        /// Highest over lowest ops/sec.
        max_over_min: f64,
    },
    /// A paced run's response time and service time tell different stories:
    /// requests waited for their turn before they were sent.
    LatencyMeasuresDiverge {
        /// Which run.
        phase: String,
        /// What the headline (memtier's fields) shows.
        headline: Headline,
        /// p99 service time (reply − actual send), ms.
        service_p99_ms: f64,
        /// p99 response time (reply − intended send), ms.
        response_p99_ms: f64,
        /// Connection faults in the run (0 when none was lost): requests due
        /// on a connection that was down waited for it, not for the server.
        faults: u64,
        /// Connections not ready when sending stopped.
        down_at_end: usize,
    },
    /// `--cluster-mode`: one master served far more than its share of the
    /// replies (see [`cluster::HOT_SHARD_FACTOR`]).
    HotShard {
        /// `host:port`.
        node: String,
        /// Its replies over every master's, 0 to 1.
        share: f64,
        /// One over the masters that answered.
        fair_share: f64,
        /// Masters that answered.
        masters: usize,
        /// The likely cause.
        cause: HotShardCause,
    },
    /// Something paused the run (see [`stall`]).
    Stall {
        /// Which run.
        phase: String,
        /// The slowest reply and the p99.9, ms, when the slowest is far
        /// above it.
        slowest: Option<(f64, f64)>,
        /// A second with far fewer replies than the median second.
        quiet: Option<QuietSecond>,
        /// The load gaps of the run: spans of 1 s or more with no reply at
        /// all while load was due ([`crate::engine::stats::gaps`]).
        gaps: Vec<GapSpan>,
        /// Connections' own gaps: how many, and their seconds in all (said
        /// when no span covered every connection).
        connection_gaps: Option<(u64, f64)>,
    },
}

impl Warning {
    /// A short stable name for the JSON.
    pub fn kind(&self) -> &'static str {
        self.warning_kind().as_str()
    }

    /// Which kind of warning this is (what `--no-warning` names).
    pub fn warning_kind(&self) -> WarningKind {
        match self {
            Warning::RateNotMet { .. } => WarningKind::RateNotMet,
            Warning::ClientBound { .. } => WarningKind::ClientBound,
            Warning::KeyRangeTooSmall { .. } => WarningKind::KeyRangeTooSmall,
            Warning::GetsMostlyMiss { .. } => WarningKind::GetsMostlyMiss,
            Warning::SameMachine { .. } => WarningKind::SameMachine,
            Warning::DatasetTooLarge { .. } => WarningKind::DatasetTooLarge,
            Warning::ShortRun { .. } => WarningKind::ShortRun,
            Warning::ErrorReplies { .. } => WarningKind::ErrorReplies,
            Warning::CountMismatch { .. } => WarningKind::CountMismatch,
            Warning::ServerRestarted { .. } => WarningKind::ServerRestarted,
            Warning::EvidenceLost { .. } => WarningKind::EvidenceLost,
            Warning::FsyncAlways => WarningKind::FsyncAlways,
            Warning::BackgroundSave { .. } => WarningKind::BackgroundSave,
            Warning::RunsDisagree { .. } => WarningKind::RunsDisagree,
            Warning::LatencyMeasuresDiverge { .. } => WarningKind::LatencyMeasuresDiverge,
            Warning::HotShard { .. } => WarningKind::HotShard,
            Warning::Stall { .. } => WarningKind::Stall,
            Warning::MissRateAboveThreshold { .. } => WarningKind::MissRateAboveThreshold,
        }
    }
}
