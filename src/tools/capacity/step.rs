//! One step of the search: a benchmark at one rate, run once and repeated
//! while the 95 % interval of an SLO's percentile (batch means over its
//! seconds) holds the limit, its samples and seconds pooled, and the step's
//! decision. Judging is [`judge_step`], a pure function of the
//! pooled histogram and counts, so a fleet can judge a merged histogram the
//! same way.

use hdrhistogram::Histogram;

use crate::config::Config;
use crate::config::capacity::{CapacityPlan, Slo};
use crate::engine::interrupt::Interrupt;
use crate::engine::master::results::Results;
use crate::engine::master::run;
use crate::engine::master::sink::Sinks;
use crate::engine::stats::OpStats;
use crate::engine::stats::precision::{Batches, MIN_BATCHES};
use crate::error::RunError;
use crate::report::model::capacity::Decision;
use crate::report::warnings::checks::RATE_MET_FRACTION;
use crate::tools::capacity::bound::{self, Against, SloJudged};
use crate::tools::capacity::fleet::{Fleet, Try};

/// More requests never sent than this share of those due and the step did
/// not carry its rate, whatever its replies per second: the schedule fell
/// behind (docs/latency.md counts them the same way).
pub const NEVER_SENT_SHARE: f64 = 0.01;

/// What a step measured, pooled over its runs.
#[derive(Debug, Clone)]
pub struct Pooled {
    /// Every row's counters and histograms together.
    pub totals: OpStats,
    /// Measured seconds, all runs together.
    pub seconds: f64,
    /// Error replies and requests lost, all runs together.
    pub errors: u64,
    /// Runs pooled.
    pub runs: u32,
    /// Every op together, second by second, all runs one after the other:
    /// what the percentiles' intervals rest on.
    pub batches: Batches,
}

impl Pooled {
    /// A step's first run.
    pub fn of_results(results: &Results) -> Option<Pooled> {
        let run = results.runs.first()?;
        Some(Pooled {
            totals: run.stats.totals(),
            seconds: run.duration.as_secs_f64(),
            errors: run.stats.errors.total(),
            runs: 1,
            batches: run
                .batches
                .as_ref()
                .map(Batches::totals)
                .unwrap_or_default(),
        })
    }

    /// One more run of the same step.
    fn add(&mut self, results: &Results) {
        if let Some(run) = results.runs.first() {
            self.totals += &run.stats.totals();
            self.seconds += run.duration.as_secs_f64();
            self.errors += run.stats.errors.total();
            self.runs += 1;
            if let Some(b) = &run.batches {
                self.batches.append(&b.totals());
            }
        }
    }

    /// Replies per second.
    pub fn ops_per_sec(&self) -> f64 {
        if self.seconds > 0.0 {
            self.totals.count as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// The histogram a step is judged on: every reply's response time, and
    /// every request never sent with its least wait, so that a step that
    /// fell behind cannot look fast.
    pub fn judged_histogram(&self) -> Histogram<u64> {
        let mut h = self.totals.latency_us.clone();
        if let Some(never_sent) = &self.totals.never_sent_us {
            // Both auto-resize, so adding cannot run out of range.
            let _ = h.add(never_sent);
        }
        h
    }
}

/// A decided step.
#[derive(Debug, Clone)]
pub struct StepRecord {
    /// The asked rate, ops/s.
    pub rate: f64,
    /// What it measured.
    pub pooled: Pooled,
    /// Each SLO against the pooled histogram.
    pub judged: Vec<SloJudged>,
    /// What decided it.
    pub decided_by: Decision,
    /// Whether it met the SLOs and its rate.
    pub meets: bool,
}

/// The verdict of a step on what it measured; `final_try` when no repeat
/// is left, so that a straddling bound is decided by the estimates.
/// `None` asks for another run.
pub fn judge_step(
    h: &Histogram<u64>,
    slos: &[Slo],
    rate: f64,
    pooled: &Pooled,
    max_error_share: f64,
    final_try: bool,
) -> (Vec<SloJudged>, Option<(Decision, bool)>) {
    let judged = bound::judge(h, slos, &pooled.batches);
    let due = pooled.totals.count + pooled.totals.never_sent;
    let never_sent_share = if due == 0 {
        1.0
    } else {
        pooled.totals.never_sent as f64 / due as f64
    };
    if pooled.ops_per_sec() < RATE_MET_FRACTION * rate || never_sent_share > NEVER_SENT_SHARE {
        return (judged, Some((Decision::RateNotMet, false)));
    }
    let answered = pooled.totals.count.max(1) as f64;
    if pooled.errors as f64 / answered > max_error_share {
        return (judged, Some((Decision::Errors, false)));
    }
    let decision = match bound::overall(&judged) {
        Against::Meets => Some((Decision::Bound, true)),
        Against::Fails => Some((Decision::Bound, false)),
        Against::Straddles if final_try => Some((
            Decision::Estimate,
            bound::by_estimate(&judged) == Against::Meets,
        )),
        Against::Straddles => None,
    };
    (judged, decision)
}

/// What running a step gave.
pub struct Ran {
    /// The decided step; `None` when a stop request cut it.
    pub record: Option<StepRecord>,
    /// The configuration and results of its last run, if it measured any.
    pub last: Option<(Config, Results)>,
}

/// A step: run at `rate` until decided. `Ok(None)` when a stop request
/// (a signal, `--max-errors`) cut it; the last run's results come back with
/// the record, for a report of the search that ends there. On a `fleet`
/// each try meets the other shards at its own barrier, and the step is
/// judged on the fleet's merged measurements.
pub fn run_step(
    plan: &CapacityPlan,
    rate: f64,
    first: bool,
    mut fleet: Option<&mut Fleet>,
    interrupt: &Interrupt,
) -> Result<Ran, RunError> {
    let mut pooled: Option<Pooled> = None;
    let mut config = plan.step(rate, first);
    loop {
        let (results, at) = run_try(&mut config, fleet.as_deref_mut(), interrupt)?;
        if results.interrupted.is_some() || interrupt.stop_requested() {
            stopped(fleet.as_deref(), at);
            return Ok(Ran {
                record: None,
                last: Some((config, results)),
            });
        }
        match pooled.as_mut() {
            Some(p) => p.add(&results),
            None => pooled = Pooled::of_results(&results),
        }
        let Some(mine) = pooled.as_ref() else {
            stopped(fleet.as_deref(), at);
            return Ok(Ran {
                record: None,
                last: Some((config, results)),
            });
        };
        let p = &match (fleet.as_deref(), at) {
            (Some(f), Some(at)) => f.merge(at, mine, interrupt)?,
            _ => mine.clone(),
        };
        // No repeat where none is left, nor where the repeats left cannot
        // add up to the ten seconds an interval needs: the estimates decide
        // at once.
        let left = u64::from((plan.max_repeats + 1).saturating_sub(p.runs));
        let reachable = p.batches.seconds() + left * plan.step_time.as_secs();
        let final_try = p.runs > plan.max_repeats || reachable < MIN_BATCHES as u64;
        let (judged, decision) = judge_step(
            &p.judged_histogram(),
            &plan.slos,
            rate,
            p,
            plan.base.faults.max_error_share,
            final_try,
        );
        if let Some((decided_by, meets)) = decision {
            let record = StepRecord {
                rate,
                pooled: p.clone(),
                judged,
                decided_by,
                meets,
            };
            return Ok(Ran {
                record: Some(record),
                last: Some((config, results)),
            });
        }
        crate::error::note(format_args!(
            "[capacity] {rate:.0} ops/s: the 95 % interval holds the limit; repeating the step ({} of {})",
            p.runs, plan.max_repeats
        ));
        // A repeat needs no second prefill, nor the first step's long warm-up.
        config = plan.step(rate, false);
    }
}

/// One try of a step, at its own barrier on a fleet; a shard whose try
/// failed tells the others, so that they need not wait for its post.
pub fn run_try(
    config: &mut Config,
    fleet: Option<&mut Fleet>,
    interrupt: &Interrupt,
) -> Result<(Results, Option<Try>), RunError> {
    let at = fleet.map(|f| {
        let (start, at) = f.begin();
        *config = config.starting_at(start);
        (at, f as &Fleet)
    });
    match run_quietly(config, interrupt) {
        Ok(results) => Ok((results, at.map(|(t, _)| t))),
        Err(e) => {
            if let Some((t, f)) = at {
                f.stopped(t);
            }
            Err(e)
        }
    }
}

/// Tells the fleet, if any, that this shard's try `at` stopped.
pub fn stopped(fleet: Option<&Fleet>, at: Option<Try>) {
    if let (Some(f), Some(at)) = (fleet, at) {
        f.stopped(at);
    }
}

/// One benchmark with no live outputs: the search prints its own line per step.
pub fn run_quietly(config: &Config, interrupt: &Interrupt) -> Result<Results, RunError> {
    let mut live = Sinks::new();
    run::run(
        config.clone(),
        config.prefill,
        interrupt,
        &mut live,
        &mut |_| {},
    )
}
