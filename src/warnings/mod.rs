//! Warnings: things about a result that the reader must know before trusting it.
//!
//! Each warning is a variant with the numbers that triggered it; its `Display`
//! says what happened and what to change. Warnings are printed at the end of the
//! text report and on stderr, and stored in the JSON. The checks that raise them
//! live in [`checks`].

pub mod checks;
mod memcached;

use std::fmt;

use crate::config::Headline;
use crate::protocol::resp::ServerErrorKind;

pub use checks::{collect, rate_check};

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
    },
    /// So few keys that every request hits the same few (the one-key default of
    /// redis-benchmark is the classic).
    KeyRangeTooSmall {
        /// Keys in the range.
        keys: u64,
        /// Requests of the measured runs.
        requests: u64,
    },
    /// GETs on keys nobody wrote: the run measures misses.
    GetsMostlyMiss {
        /// GET hit rate, %.
        hit_rate: f64,
        /// `--prefill` was given (then anything below 100 % is a surprise).
        prefilled: bool,
    },
    /// The server runs on this machine: client and server share its CPUs.
    SameMachine {
        /// The target, as printed.
        target: String,
        /// kvbench's threads ran on CPUs the server may not use.
        apart: bool,
        /// How to split this machine's CPUs, with its numbers (see
        /// [`crate::placement::Placement::split_advice`]).
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
    },
    /// Runs this short are dominated by start-up and noise.
    ShortRun {
        /// The run's length, seconds.
        secs: f64,
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
    },
}

impl Warning {
    /// A short stable name for the JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            Warning::RateNotMet { .. } => "rate_not_met",
            Warning::ClientBound { .. } => "client_bound",
            Warning::KeyRangeTooSmall { .. } => "key_range_too_small",
            Warning::GetsMostlyMiss { .. } => "gets_mostly_miss",
            Warning::SameMachine { .. } => "same_machine",
            Warning::DatasetTooLarge { .. } => "dataset_too_large",
            Warning::ShortRun { .. } => "short_run",
            Warning::ErrorReplies { .. } => "error_replies",
            Warning::CountMismatch { .. } => "count_mismatch",
            Warning::ServerRestarted { .. } => "server_restarted",
            Warning::EvidenceLost { .. } => "server_evidence_lost",
            Warning::FsyncAlways => "fsync_always",
            Warning::BackgroundSave { .. } => "background_save",
            Warning::RunsDisagree { .. } => "runs_disagree",
            Warning::LatencyMeasuresDiverge { .. } => "latency_measures_diverge",
        }
    }
}

/// The likely cause of a flood of one error kind, and what to change.
fn error_cause(
    f: &mut fmt::Formatter<'_>,
    kind: ServerErrorKind,
    maxmemory: Option<u64>,
    policy: Option<&str>,
) -> fmt::Result {
    match kind {
        ServerErrorKind::Oom => {
            let limit = maxmemory.map_or("its maxmemory".to_string(), |m| {
                format!("its maxmemory ({:.0} MiB)", mib(m))
            });
            write!(
                f,
                "The server is full: it reached {limit} with maxmemory-policy {} and refuses writes; raise maxmemory, choose an eviction policy (allkeys-lru), or shrink --key-maximum or --data-size.",
                policy.unwrap_or("noeviction")
            )
        }
        ServerErrorKind::Loading => write!(
            f,
            "The server was still loading its dataset; wait until INFO persistence says loading:0, then run again."
        ),
        ServerErrorKind::Busy => write!(
            f,
            "A script or function blocked the server; end it (SCRIPT KILL / FUNCTION KILL) and run again."
        ),
        ServerErrorKind::ReadOnly => write!(
            f,
            "The target is a read-only replica; point --server/--port at the primary, or use --ratio 0:1 for reads only."
        ),
        ServerErrorKind::NoAuth | ServerErrorKind::WrongPass | ServerErrorKind::NoPerm => write!(
            f,
            "The credentials or the user's permissions do not allow these commands; check --authenticate and the user's ACL."
        ),
        ServerErrorKind::Moved | ServerErrorKind::Ask => write!(
            f,
            "The target is a cluster node that does not own these keys; benchmark a standalone server or one node's slots."
        ),
        ServerErrorKind::WrongType => write!(
            f,
            "The keys hold values of another type; use an empty database (--select-db) or another --key-prefix."
        ),
        ServerErrorKind::Err | ServerErrorKind::Other => write!(
            f,
            "See the server's log and INFO errorstats for the message; the numbers are not a measurement of the workload."
        ),
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::RateNotMet {
                phase,
                target,
                achieved,
                unsent,
                limit,
            } => {
                write!(
                    f,
                    "{phase}: the target rate was not met: {achieved:.0} of {target:.0} requests/s ({:.1} %), {unsent} requests due were never sent. ",
                    100.0 * achieved / target
                )?;
                match limit {
                    RateLimit::Client {
                        busiest_cpu_percent,
                    } => write!(
                        f,
                        "The client is the limit: a kvbench thread used {busiest_cpu_percent:.0} % of a CPU; add threads (-t) on free CPUs or lower --rate."
                    ),
                    RateLimit::Server {
                        in_flight,
                        mean_service_ms,
                        max_rate,
                    } => write!(
                        f,
                        "The server (or the path to it) is the limit: at a mean service time of {mean_service_ms:.3} ms, {in_flight} requests in flight (connections × pipeline) carry at most about {max_rate:.0} requests/s; if the server has headroom, raise --clients or --pipeline, otherwise lower --rate."
                    ),
                    RateLimit::LostConnections {
                        faults,
                        down_at_end,
                        connections,
                    } => write!(
                        f,
                        "Lost connections are the cause, not the server's capacity: {faults} connection fault(s), and {down_at_end} of {connections} connection(s) down at the end; requests due while a connection was down were sent late (their response time counts from their intended time) or never. See kvbench.errors for the kinds."
                    ),
                }
            }
            Warning::ClientBound {
                phase,
                busiest_cpu_percent,
            } => write!(
                f,
                "{phase}: a kvbench worker thread used {busiest_cpu_percent:.0} % of a CPU: the result is client-bound and measures kvbench as much as the server; add threads (-t) on CPUs the server does not use, or run the client on another machine."
            ),
            Warning::KeyRangeTooSmall { keys, requests } => write!(
                f,
                "the key range holds only {keys} keys for {requests} requests: every request hits the same few keys, so hit rates, eviction, fork and persistence costs look nothing like production; widen --key-minimum/--key-maximum."
            ),
            Warning::GetsMostlyMiss {
                hit_rate,
                prefilled: true,
            } => write!(
                f,
                "the GET hit rate is {hit_rate:.2} % although --prefill wrote the whole range: something removed keys (eviction under maxmemory, expiry, another client, a FLUSH); check the server before trusting GET numbers."
            ),
            Warning::GetsMostlyMiss {
                hit_rate,
                prefilled: false,
            } => write!(
                f,
                "the GET hit rate is only {hit_rate:.2} %: most GETs asked for keys nobody wrote, and a miss is cheaper than a hit; add --prefill (or prefill with --ratio 1:0 --key-pattern P:P -n allkeys) before a GET benchmark."
            ),
            Warning::SameMachine {
                target,
                apart: true,
                ..
            } => write!(
                f,
                "the server ({target}) runs on this machine: kvbench's threads were kept off its CPUs, but both still share the machine's caches, memory bandwidth and network stack, so the numbers compare configurations on this machine and are no capacity figure; use a separate client machine for that."
            ),
            Warning::SameMachine {
                target,
                apart: false,
                advice,
            } => write!(
                f,
                "the server ({target}) runs on this machine: kvbench and the server compete for the same CPUs, so the numbers compare configurations on this machine and are no capacity figure; pin them apart ({}) or use a separate client machine.",
                advice
                    .as_deref()
                    .unwrap_or("taskset for the server, --cpus for kvbench")
            ),
            Warning::DatasetTooLarge {
                estimate,
                limit,
                which,
            } => {
                let what = match which {
                    MemoryLimit::MaxMemory => "the server's maxmemory",
                    MemoryLimit::FreeMemory => "this machine's available memory",
                };
                write!(
                    f,
                    "the key range × value size needs about {:.0} MiB, more than {what} ({:.0} MiB): expect evictions or errors, or swapping that measures the disk; shrink --key-maximum or --data-size.",
                    mib(*estimate),
                    mib(*limit)
                )
            }
            Warning::ShortRun { secs } => write!(
                f,
                "each run lasted {secs:.1} s: runs under 10 s are dominated by start-up, caches warming and noise; use --test-time 10 or more (the whitepaper method uses 600 s)."
            ),
            Warning::ErrorReplies {
                errors,
                replies,
                kind,
                kind_count,
                maxmemory,
                policy,
                memcached,
            } => {
                write!(
                    f,
                    "{errors} of {replies} replies ({:.1} %) were errors, most of them {} ({kind_count}): the rates count refusals, not work. ",
                    100.0 * *errors as f64 / *replies as f64,
                    kind.as_str()
                )?;
                if *memcached {
                    return memcached::error_cause(f, *kind);
                }
                error_cause(f, *kind, *maxmemory, policy.as_deref())
            }
            Warning::CountMismatch {
                phase,
                op,
                client,
                server,
            } => write!(
                f,
                "{phase}: the server counted {server} {op} calls but kvbench {client}: another client used the server during the run, or requests were lost; the numbers are not a clean measurement."
            ),
            Warning::EvidenceLost { phase, reason } => write!(
                f,
                "{phase}: the server's evidence is missing because {reason}: its counts, CPU use and the cross-check of kvbench's numbers are not in this report; the server may be at maxclients, unreachable, or its password changed (check --authenticate and maxclients)."
            ),
            Warning::ServerRestarted { phase } => write!(
                f,
                "{phase}: the server restarted during the run: connections were lost and reconnected (see Errors), its counters started again, and the numbers mix the old and the new process; repeat the run for a clean measurement."
            ),
            Warning::FsyncAlways => write!(
                f,
                "context: the server runs with appendfsync always, so every write waits for the disk; SET numbers measure the disk."
            ),
            Warning::BackgroundSave { phase, forks } => write!(
                f,
                "context: the server forked {forks} time(s) during {phase} (an RDB save or an AOF rewrite), which costs latency and memory while it runs."
            ),
            Warning::RunsDisagree { max_over_min } => write!(
                f,
                "identical runs differed by up to {:.1} % (max/min {max_over_min:.3}): differences between configurations smaller than that are noise on this setup; use longer runs or more of them.",
                (max_over_min - 1.0) * 100.0
            ),
            Warning::LatencyMeasuresDiverge {
                phase,
                headline,
                service_p99_ms,
                response_p99_ms,
            } => {
                write!(
                    f,
                    "{phase}: the p99 response time ({response_p99_ms:.3} ms, from each request's intended send time) is {:.1} times the p99 service time ({service_p99_ms:.3} ms, from the actual send): requests waited for their turn before they were sent, because the server or the pipeline window held them back. ",
                    response_p99_ms / service_p99_ms.max(0.001)
                )?;
                match headline {
                    Headline::ServiceTime => write!(
                        f,
                        "memtier's fields show service time, as memtier measures --rate-limiting, which leaves that wait out; the response time is in kvbench.runs[].open_loop.response_time, and --rate makes it the headline."
                    ),
                    Headline::ResponseTime => write!(
                        f,
                        "The headline (response time) includes that wait; service time alone, as memtier's --rate-limiting reports it, would hide it (kvbench.runs[].open_loop.service_time)."
                    ),
                }
            }
        }
    }
}
