//! Aligned phases (`--start-at`): the planned start of each phase on this
//! machine's clock, the wait until it, and what a shard records of it — each
//! phase's lag, the first phase late beyond `--start-tolerance`, and the
//! clock offsets of [`crate::engine::master::run::clock`].
//!
//! The first phase after the prefill starts at `T`; with `--test-time`, run
//! *k* starts at `T + warm-up + (k − 1) × (test time + --run-gap)`, so every
//! run of every shard covers the same wall-clock window. The prefill is not
//! aligned: it runs as soon as the connections are ready. With `-n` only the
//! first phase is aligned, since a run's end is not known in advance.
//!
//! A warm-up followed by an aligned run 1 stops sending [`HANDOFF`] before
//! run 1's planned start, so that its drain and the server's evidence
//! happen before that start rather than after it; the evidence before each
//! aligned phase is read [`EVIDENCE_LEAD`] before its planned start, not
//! after it, so that the phase starts at the planned instant itself.

use std::time::{Duration, Instant, SystemTime};

use crate::config::{Config, Stop};
use crate::engine::interrupt::Interrupt;
use crate::engine::master::results::{Phase, Results};
use crate::engine::master::run::clock::{self, ClockSample};
use crate::engine::master::server::Control;

/// What a sharded or aligned run records about its timing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timing {
    /// `--start-at`, when given; with `--start-at barrier`, the `T` the
    /// barrier published.
    pub start_at: Option<SystemTime>,
    /// `--start-at barrier`: what the barrier did.
    pub barrier: Option<BarrierRecord>,
    /// Each aligned phase's actual start minus its planned start, ms.
    pub lags: Vec<(Phase, f64)>,
    /// The phase that was reached later than `--start-tolerance` (and not run).
    pub late: Option<Late>,
    /// The clock offset against the server before the first phase.
    pub clock_start: Option<ClockSample>,
    /// The clock offset against the server after the last phase.
    pub clock_end: Option<ClockSample>,
}

/// What `--start-at barrier` did for this shard.
#[derive(Debug, Clone, PartialEq)]
pub struct BarrierRecord {
    /// `--run-id` (or the launcher's).
    pub run_id: String,
    /// This shard's place in the order of arrival, from 1.
    pub arrival: u64,
    /// From checking in until `T` was known.
    pub waited: Duration,
}

/// A planned start reached too late.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Late {
    /// The phase that was due.
    pub phase: Phase,
    /// How late, ms.
    pub lag_ms: f64,
    /// `--start-tolerance`.
    pub tolerance: Duration,
}

impl Timing {
    /// The record of a sharded or aligned run, with the clock offset
    /// measured on `control`; `None` for any other run, which reads no
    /// clock, so that its `TIME` calls stay out of every other run's server
    /// account.
    pub(super) fn begin(config: &Config, control: Option<&mut Control>) -> Option<Timing> {
        if config.shard.is_none() && config.start_at.is_none() {
            return None;
        }
        Some(Timing {
            start_at: config.start_at.as_ref().and_then(|s| s.given()),
            clock_start: control.and_then(clock::measure),
            ..Timing::default()
        })
    }

    /// The lag of `phase`, if it was aligned.
    pub fn lag_ms(&self, phase: Phase) -> Option<f64> {
        self.lags
            .iter()
            .find(|(p, _)| *p == phase)
            .map(|(_, lag)| *lag)
    }

    /// The lag of the first aligned phase.
    pub fn first_lag_ms(&self) -> Option<f64> {
        self.lags.first().map(|(_, lag)| *lag)
    }

    /// Why this shard stopped early, in words (exit code 4).
    pub fn late_message(&self) -> Option<String> {
        let late = self.late?;
        Some(format!(
            "{} was reached {:.1} ms after its planned start, more than --start-tolerance {:.1} s: this shard's windows no longer match the other shards', so it ran no more phases; the report holds the phases before it. Give the prefill or the connections more time (a later --start-at) or raise --start-tolerance",
            late.phase,
            late.lag_ms,
            late.tolerance.as_secs_f64()
        ))
    }
}

/// The planned starts, on this machine's monotonic clock.
#[derive(Debug, Clone, Copy)]
pub(super) struct Plan {
    /// `T` as an `Instant`.
    at: Instant,
    /// `--start-tolerance`.
    tolerance: Duration,
    /// `--run-gap`.
    run_gap: Duration,
    warmup: Duration,
    stop: Stop,
}

/// How a wait for a planned start ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Reached {
    /// At or after the planned start, within the tolerance; the lag.
    OnTime(Duration),
    /// Later than the tolerance; the lag.
    Late(Duration),
    /// A signal arrived while waiting.
    Interrupted,
}

/// How long before an aligned run 1's planned start the warm-up stops
/// sending: room for its drain (one round trip of each connection, as a
/// rule, but up to a second on a machine loaded past its cores), the server's evidence after
/// it and before run 1 (every node's, in a cluster), which would otherwise
/// all delay run 1. At most a quarter of the warm-up.
pub const HANDOFF: Duration = Duration::from_secs(1);

/// Sleeps at most this long between looks at the interrupt flag, so that a
/// Ctrl-C during a long wait ends it at once.
const WAIT_SLICE: Duration = Duration::from_millis(20);

impl Plan {
    /// The plan of `config` with its first phase at `t` (this machine's
    /// clock), `None` without `--start-at`. `T` is converted to an `Instant`
    /// once, now: later steps of the wall clock (NTP) do not move the phases
    /// of a run already under way.
    pub(super) fn new(config: &Config, t: SystemTime) -> Option<Plan> {
        let start = config.start_at.as_ref()?;
        let (now, wall) = (Instant::now(), SystemTime::now());
        let at = match t.duration_since(wall) {
            Ok(ahead) => now + ahead,
            Err(e) => now.checked_sub(e.duration()).unwrap_or(now),
        };
        Some(Plan {
            at,
            tolerance: start.tolerance,
            run_gap: start.run_gap,
            warmup: config.warmup,
            stop: config.stop,
        })
    }

    /// How long `phase`, starting now, runs: as `stop` says, except a
    /// warm-up before an aligned run 1, which stops [`HANDOFF`] before that
    /// run's planned start (at most a quarter of the warm-up earlier).
    pub(super) fn stop(&self, phase: Phase, stop: Stop) -> Stop {
        match (phase, self.planned(Phase::Run(1))) {
            (Phase::Warmup, Some(run)) if run > self.at => {
                let handoff = HANDOFF.min(self.warmup / 4);
                Stop::Time((run - handoff).saturating_duration_since(Instant::now()))
            }
            _ => stop,
        }
    }

    /// When `phase` is planned to start; `None` when it starts as soon as
    /// the phase before it ends.
    pub(super) fn planned(&self, phase: Phase) -> Option<Instant> {
        match (phase, self.stop) {
            (Phase::Prefill, _) => None,
            (Phase::Warmup, _) => Some(self.at),
            (Phase::Run(k), Stop::Time(run)) => {
                let earlier = (run + self.run_gap) * k.saturating_sub(1);
                Some(self.at + self.warmup + earlier)
            }
            (Phase::Run(1), _) if self.warmup.is_zero() => Some(self.at),
            (Phase::Run(_), _) => None,
        }
    }

    /// `--start-tolerance`.
    pub(super) fn tolerance(&self) -> Duration {
        self.tolerance
    }
}

/// Whether the master may start a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Go {
    /// Now: it is not aligned, or its planned start came.
    Now,
    /// No more phases: the start was missed, or a signal came after the
    /// prefill (the results say which).
    Never,
    /// A signal came before anything was measured.
    Interrupted,
}

/// Waits until [`EVIDENCE_LEAD`] before `phase`'s planned start, if it has
/// one: the server's evidence before the phase is read then, fresh, and
/// after every shard's barrier commands (the last of which come a poll
/// after `T` is published, [`crate::engine::master::run::barrier::MARGIN`] before it).
/// A wait of over [`SAY_WAIT_OVER`] for the first aligned phase is said.
pub(super) fn approach(plan: Option<Plan>, phase: Phase, first: bool, interrupt: &Interrupt) {
    let Some(planned) = plan.and_then(|p| p.planned(phase)) else {
        return;
    };
    let wait = planned.saturating_duration_since(Instant::now());
    if wait > SAY_WAIT_OVER && first {
        // A wait of minutes must not look like a hang.
        crate::error::note(format_args!(
            "kvbench: waiting {:.1} s for the planned start of {phase} (--start-at); Ctrl-C stops",
            wait.as_secs_f64()
        ));
    }
    if let Some(then) = planned.checked_sub(EVIDENCE_LEAD) {
        // Lateness is judged by the wait for the start itself.
        let _ = wait_until(then, Duration::MAX, interrupt);
    }
}

/// How long before a planned start the server's evidence is read.
pub const EVIDENCE_LEAD: Duration = Duration::from_millis(250);

/// Waits for `phase`'s planned start, if it has one, and records in
/// `results` how late it was reached, or that it was missed.
pub(super) fn await_phase(
    plan: Option<Plan>,
    phase: Phase,
    results: &mut Results,
    interrupt: &Interrupt,
) -> Go {
    let Some((plan, planned)) = plan.and_then(|p| Some((p, p.planned(phase)?))) else {
        return Go::Now;
    };
    let timing = results.timing.get_or_insert_with(Timing::default);
    match wait_until(planned, plan.tolerance(), interrupt) {
        Reached::OnTime(lag) => {
            timing.lags.push((phase, lag.as_secs_f64() * 1e3));
            Go::Now
        }
        Reached::Late(lag) => {
            timing.late = Some(Late {
                phase,
                lag_ms: lag.as_secs_f64() * 1e3,
                tolerance: plan.tolerance(),
            });
            Go::Never
        }
        Reached::Interrupted if !measured_any(results) => Go::Interrupted,
        Reached::Interrupted => {
            // What the phases before measured is kept (a prefill, a warm-up,
            // run 1 of an aligned schedule): the wait is what was cut short.
            results.interrupted = Some((phase, interrupt.signal().unwrap_or(0)));
            Go::Never
        }
    }
}

/// Whether any phase was measured before this wait: a prefill, a warm-up,
/// a run (a signal between the runs of an aligned schedule keeps them).
fn measured_any(results: &Results) -> bool {
    results.prefill.is_some() || results.warmup.is_some() || !results.runs.is_empty()
}

/// A wait for the first planned start longer than this is said on stderr.
const SAY_WAIT_OVER: Duration = Duration::from_secs(1);

/// Waits until `planned`, looking at `interrupt` every [`WAIT_SLICE`].
pub(super) fn wait_until(planned: Instant, tolerance: Duration, interrupt: &Interrupt) -> Reached {
    loop {
        if interrupt.stop_requested() {
            return Reached::Interrupted;
        }
        let now = Instant::now();
        if now >= planned {
            let lag = now - planned;
            return if lag > tolerance {
                Reached::Late(lag)
            } else {
                Reached::OnTime(lag)
            };
        }
        std::thread::sleep((planned - now).min(WAIT_SLICE));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(warmup: u64, stop: Stop) -> Plan {
        Plan {
            at: Instant::now(),
            tolerance: Duration::from_secs(1),
            run_gap: Duration::from_secs(5),
            warmup: Duration::from_secs(warmup),
            stop,
        }
    }

    #[test]
    fn timed_runs_start_at_fixed_boundaries() {
        let p = plan(10, Stop::Time(Duration::from_secs(60)));
        let after = |phase| p.planned(phase).map(|i| i - p.at);
        assert_eq!(after(Phase::Prefill), None);
        assert_eq!(after(Phase::Warmup), Some(Duration::ZERO));
        assert_eq!(after(Phase::Run(1)), Some(Duration::from_secs(10)));
        assert_eq!(after(Phase::Run(3)), Some(Duration::from_secs(10 + 2 * 65)));
    }

    #[test]
    fn a_warm_up_before_an_aligned_run_stops_before_its_start() {
        let p = plan(10, Stop::Time(Duration::from_secs(60)));
        let Stop::Time(warm) = p.stop(Phase::Warmup, Stop::Time(Duration::from_secs(10))) else {
            panic!()
        };
        // Planned from `at`: 10 s less the handoff, less the instants
        // since the plan was made.
        let full = Duration::from_secs(10) - HANDOFF;
        assert!(
            warm <= full && warm > full - Duration::from_secs(1),
            "{warm:?}"
        );
        let run = Stop::Time(Duration::from_secs(60));
        assert_eq!(p.stop(Phase::Run(1), run), run);
        // With -n, run 1 is not aligned, and the warm-up runs as asked.
        let n = plan(10, Stop::Requests(100));
        let asked = Stop::Time(Duration::from_secs(10));
        assert_eq!(n.stop(Phase::Warmup, asked), asked);
        // A short warm-up gives up at most a quarter of itself.
        let short = plan(0, Stop::Time(Duration::from_secs(60)));
        let short = Plan {
            warmup: Duration::from_millis(400),
            ..short
        };
        let Stop::Time(w) = short.stop(Phase::Warmup, Stop::Time(Duration::from_millis(400)))
        else {
            panic!()
        };
        assert!(
            w <= Duration::from_millis(300) && w > Duration::from_millis(200),
            "{w:?}"
        );
    }

    #[test]
    fn request_bound_runs_align_the_first_phase_only() {
        let p = plan(0, Stop::Requests(100));
        assert_eq!(p.planned(Phase::Run(1)), Some(p.at));
        assert_eq!(p.planned(Phase::Run(2)), None);
        let warm = plan(3, Stop::Requests(100));
        assert_eq!(warm.planned(Phase::Warmup), Some(warm.at));
        assert_eq!(warm.planned(Phase::Run(1)), None);
    }

    #[test]
    fn a_wait_reports_its_lag_against_the_tolerance() {
        let interrupt = Interrupt::default();
        let past = Instant::now() - Duration::from_secs(3);
        assert!(matches!(
            wait_until(past, Duration::from_secs(1), &interrupt),
            Reached::Late(lag) if lag >= Duration::from_secs(3)
        ));
        let soon = Instant::now() + Duration::from_millis(30);
        match wait_until(soon, Duration::from_secs(1), &interrupt) {
            Reached::OnTime(lag) => assert!(lag < Duration::from_secs(1), "{lag:?}"),
            other => panic!("{other:?}"),
        }
        assert!(Instant::now() >= soon);
    }
}
