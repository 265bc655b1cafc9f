//! The choices a validated [`super::Config`] makes, each an enum or a small
//! struct of them: when a phase stops, which command line's flags advice
//! names, the open loop's arrivals and what its headline measures, the
//! fault policy, and the CPU pinning.

use std::time::Duration;

/// When a run (or the warm-up) ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stop {
    /// Each connection sends this many requests.
    Requests(u64),
    /// The connections together send one request per key in the range (`-n allkeys`).
    AllKeys,
    /// The run lasts this long; requests in flight at the end are awaited.
    Time(Duration),
}

/// The command line a configuration came from, so that advice names flags
/// the user can type there: `kvbench suite` takes redis-benchmark's flags
/// and no `--prefill`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagSet {
    /// A benchmark run's memtier-style flags (also `capacity`'s steps).
    Run,
    /// A `kvbench suite` test's.
    Suite,
}

impl FlagSet {
    /// The flag that sets the worker threads (`-t` is the suite's test list).
    pub fn threads(self) -> &'static str {
        match self {
            FlagSet::Run => "-t",
            FlagSet::Suite => "--threads",
        }
    }

    /// How to widen the key range: memtier's bounds, or the suite's `-r`.
    pub fn widen_keys(self) -> &'static str {
        match self {
            FlagSet::Run => "widen --key-minimum/--key-maximum",
            FlagSet::Suite => "raise -r",
        }
    }

    /// The flags that shrink the dataset: the key range and the value size.
    pub fn shrink_dataset(self) -> &'static str {
        match self {
            FlagSet::Run => "shrink --key-maximum or --data-size",
            FlagSet::Suite => "shrink -r or -d",
        }
    }
}

/// How intended send times are spaced in open-loop mode; the report's
/// `open_loop.arrival` is its [`Arrival::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrival {
    /// Evenly spaced, staggered across connections.
    Constant,
    /// Exponential gaps: a Poisson process per connection (and in total).
    Poisson,
}

impl Arrival {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Arrival::Constant => "constant",
            Arrival::Poisson => "poisson",
        }
    }
}

/// What the headline latency measures: memtier's fields, the text tables and
/// the HDR files (the report's `open_loop.headline`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Headline {
    /// From the actual send to the reply: a closed loop, and memtier's
    /// `--rate-limiting`, whose latency memtier measures from the actual send.
    ServiceTime,
    /// From each request's intended send time on the schedule: kvbench's `--rate`.
    ResponseTime,
}

/// Open-loop load: a request schedule independent of the server's replies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// Requests per second, all connections together.
    pub total_per_sec: f64,
    /// Spacing of intended send times.
    pub arrival: Arrival,
    /// What becomes of the send times a stall made the connection miss.
    pub missed: Missed,
}

/// What a paced connection does with the send times it missed while it could
/// not send (a server stall, a full pipeline, a descheduled thread).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missed {
    /// kvbench's `--rate`: every intended send time is kept and sent late,
    /// timed from its intended time (no coordinated omission).
    Kept,
    /// memtier's `--rate-limiting`, a cap: what a stall missed is skipped,
    /// so that a connection never sends more than its share in a second.
    Skipped,
}

/// What to do about faults during a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaultPolicy {
    /// Reconnect broken connections.
    pub reconnect: bool,
    /// Attempts per outage; 0 = no limit.
    pub max_reconnect_attempts: u32,
    /// Backoff growth per attempt (at least 1).
    pub backoff_factor: f64,
    /// `--reconnect-interval`: requests per connection before a planned reconnect; 0 = never.
    pub reconnect_interval: u64,
    /// `--request-timeout`.
    pub request_timeout: Option<Duration>,
    /// `--max-errors`.
    pub max_errors: Option<u64>,
    /// `--max-error-share`, as a fraction (0.01 = 1 %): above it the
    /// verdict says the result is not valid.
    pub max_error_share: f64,
    /// `--allow-invalid`: an invalid verdict still exits 0.
    pub allow_invalid: bool,
}

/// How worker threads are placed on CPUs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pinning {
    /// `--no-pin`: the kernel decides.
    Off,
    /// Round-robin over the CPUs the process may use.
    Auto,
    /// Round-robin over these CPUs (`--cpus`).
    Cpus(Vec<usize>),
}
