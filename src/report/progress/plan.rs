//! Where the plan stands: which phase of how many, how much of it is done, and
//! the time left in the phase and in the whole plan (prefill, warm-up, runs).
//!
//! A phase that lasts `--test-time` knows its end; one counted in requests
//! (`-n`, `allkeys`, the prefill) is estimated from its rate so far, and so
//! are the later runs of such a plan. The rate of the prefill (pipelined
//! SETs) is a rough guide to the runs' rate, so an ETA given during the
//! prefill of a plan counted in requests is rough too.

use std::time::{Duration, Instant};

use crate::config::{Config, Stop};
use crate::engine::master::results::Phase;

/// The plan's shape and the current phase's place in it.
#[derive(Debug, Clone)]
pub struct PlanClock {
    run_count: u32,
    warmup: Duration,
    run_stop: Stop,
    /// Requests one run plans (`-n` times the connections, or the key range).
    run_requests: u64,
    key_range: u64,
    /// When the first phase began.
    started: Option<Instant>,
    phase: Phase,
    stop: Stop,
    /// Requests the current phase plans; 0 for a timed phase.
    planned: u64,
}

impl PlanClock {
    /// The plan of this configuration, before its first phase.
    pub fn new(config: &Config) -> Self {
        let key_range = config.keys.range.len();
        PlanClock {
            run_count: config.run_count,
            warmup: config.warmup,
            run_stop: config.stop,
            run_requests: planned_requests(config.stop, config.connections(), key_range),
            key_range,
            started: None,
            phase: Phase::Warmup,
            stop: config.stop,
            planned: 0,
        }
    }

    /// A phase begins at `now`; the plan's clock starts with the first.
    pub fn start_phase(&mut self, phase: Phase, stop: Stop, now: Instant) {
        self.started.get_or_insert(now);
        self.phase = phase;
        self.stop = stop;
        self.planned = match (phase, stop) {
            (Phase::Prefill, _) => self.key_range,
            (_, Stop::Time(_)) => 0,
            _ => self.run_requests,
        };
    }

    /// Time since the first phase began.
    pub fn plan_elapsed(&self, now: Instant) -> Duration {
        self.started
            .map_or(Duration::ZERO, |s| now.saturating_duration_since(s))
    }

    /// Requests (keys, in the prefill) the current phase plans; 0 if timed.
    pub fn planned(&self) -> u64 {
        self.planned
    }

    /// `prefill`, `warm-up`, or `run k/n`: the phase as the progress line names it.
    pub fn phase_name(&self, phase: Phase) -> String {
        match phase {
            Phase::Prefill => "prefill".to_string(),
            Phase::Warmup => "warm-up".to_string(),
            Phase::Run(k) => format!("run {k}/{}", self.run_count),
        }
    }

    /// Whether the current phase's length is an estimate: it is counted in
    /// requests (or keys), not timed.
    pub fn phase_estimated(&self) -> bool {
        !matches!(self.stop, Stop::Time(_)) || self.phase == Phase::Prefill
    }

    /// Whether the whole plan's length is an estimate: a phase still to come
    /// (or this one) is counted in requests.
    pub fn plan_estimated(&self) -> bool {
        self.phase_estimated() || !matches!(self.run_stop, Stop::Time(_))
    }

    /// Time left in the phase; `None` while a counted phase has no rate yet.
    pub fn phase_left(&self, elapsed: Duration, done: u64, per_sec: f64) -> Option<Duration> {
        match self.stop {
            Stop::Time(d) if self.phase != Phase::Prefill => Some(d.saturating_sub(elapsed)),
            _ => at_rate(self.planned.saturating_sub(done), per_sec),
        }
    }

    /// Time left in the whole plan: the phase's, then every later phase's.
    pub fn plan_left(&self, phase_left: Option<Duration>, per_sec: f64) -> Option<Duration> {
        let (warmup, runs_left) = match self.phase {
            Phase::Prefill => (self.warmup, self.run_count),
            Phase::Warmup => (Duration::ZERO, self.run_count),
            Phase::Run(k) => (Duration::ZERO, self.run_count.saturating_sub(k)),
        };
        let one_run = match self.run_stop {
            Stop::Time(d) => Some(d),
            _ => at_rate(self.run_requests, per_sec),
        };
        let runs = if runs_left == 0 {
            Some(Duration::ZERO)
        } else {
            one_run.map(|d| d.saturating_mul(runs_left))
        };
        Some(phase_left?.saturating_add(warmup).saturating_add(runs?))
    }
}

/// Requests a run plans: `-n` per connection, or one per key with `allkeys`.
fn planned_requests(stop: Stop, connections: usize, key_range: u64) -> u64 {
    match stop {
        Stop::Requests(n) => n.saturating_mul(connections as u64),
        Stop::AllKeys => key_range,
        Stop::Time(_) => 0,
    }
}

/// How long `count` requests take at `per_sec`; `None` with no rate yet.
fn at_rate(count: u64, per_sec: f64) -> Option<Duration> {
    if count == 0 {
        return Some(Duration::ZERO);
    }
    (per_sec > 0.0)
        .then(|| Duration::try_from_secs_f64(count as f64 / per_sec).ok())
        .flatten()
}

#[cfg(test)]
mod tests;
