//! Warnings: things about a result that the reader must know before trusting it.
//!
//! Each warning is a variant with the numbers that triggered it; its `Display`
//! says what happened and what to change, using the flags of the run. Warnings are
//! printed at the end of the text report and on stderr, and stored in the JSON.

use std::fmt;

use crate::config::Config;
use crate::results::PhaseResult;

/// A worker thread at or above this share of one CPU is saturated: the result
/// measures the client, not the server.
pub const SATURATED_CPU_PERCENT: f64 = 90.0;
/// An open-loop run met its rate if it completed at least this share of it.
pub const RATE_MET_FRACTION: f64 = 0.95;
/// A backlog worth more than this many seconds of the schedule at the end of a
/// run means the client fell behind for good, not in a passing stall.
pub const BACKLOG_BEHIND_SECS: f64 = 0.05;
/// Requests left unsent at the deadline that are still timing noise: a request
/// due microseconds before the deadline may meet a loop that has just stopped
/// sending. Up to one per connection, or 0.1 % of the schedule, is noise.
pub const UNSENT_NOISE_FRACTION: f64 = 0.001;

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
}

impl Warning {
    /// A short stable name for the JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            Warning::RateNotMet { .. } => "rate_not_met",
        }
    }
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
                }
            }
        }
    }
}

/// Checks an open-loop phase against its target; `None` when it met it (or the
/// run is a closed loop).
pub fn rate_check(config: &Config, phase: &PhaseResult) -> Option<Warning> {
    let rate = config.rate?;
    let target = rate.total_per_sec;
    let achieved = phase.ops_per_sec();
    let behind_secs = phase.series.last().map_or(0, |s| s.backlog) as f64 / target;
    let scheduled = target * phase.duration.as_secs_f64();
    let unsent_noise = (config.connections() as f64).max(UNSENT_NOISE_FRACTION * scheduled);
    let kept_up = behind_secs <= BACKLOG_BEHIND_SECS && phase.unsent as f64 <= unsent_noise;
    if achieved >= RATE_MET_FRACTION * target && kept_up {
        return None;
    }
    let busiest_cpu_percent = phase.busiest_thread_cpu_percent();
    let limit = if busiest_cpu_percent >= SATURATED_CPU_PERCENT {
        RateLimit::Client {
            busiest_cpu_percent,
        }
    } else {
        let totals = phase.stats.totals();
        let mean_service_ms = totals.mean_service_us() / 1000.0;
        let in_flight = config.connections() * config.pipeline;
        let max_rate = if mean_service_ms > 0.0 {
            in_flight as f64 * 1000.0 / mean_service_ms
        } else {
            0.0
        };
        RateLimit::Server {
            in_flight,
            mean_service_ms,
            max_rate,
        }
    };
    Some(Warning::RateNotMet {
        phase: phase.phase.to_string(),
        target,
        achieved,
        unsent: phase.unsent,
        limit,
    })
}

/// Every warning about these results, in report order.
pub fn collect(config: &Config, results: &crate::results::Results) -> Vec<Warning> {
    results
        .runs
        .iter()
        .filter_map(|run| rate_check(config, run))
        .collect()
}
