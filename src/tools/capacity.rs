//! `kvbench capacity`: the most throughput under a latency SLO
//! (docs/capacity.md). An open-loop search over `--rate`: [`search`] says
//! which rate to try, [`step`] runs and judges a step on its histogram
//! ([`bound`]: a confidence bound on the percentile), [`curve`] turns the
//! steps into the report's `kvbench.capacity`. The search ends with one
//! confirmation run at the capacity, whose report is the file's runs.
//!
//! The running (this file and [`step`]) is apart from the deciding
//! ([`search`], [`bound`], [`step::judge_step`]), so a fleet of shards
//! ([`fleet`], its posts on the server in [`fleet_board`]) decides each step
//! on its merged histogram the same way, every shard alike. The command end
//! to end, with its exit codes, is [`command`].

pub mod bound;
pub mod command;
pub mod curve;
pub mod fleet;
pub mod fleet_board;
pub mod search;
pub mod step;

use std::sync::Arc;

use crate::config::capacity::CapacityPlan;
use crate::config::{Config, Stop};
use crate::engine::interrupt::Interrupt;
use crate::engine::master::results::Results;
use crate::error::{OutputError, RunError, note};
use crate::report::export::{ExportManager, Written};
use crate::report::hdr_files::{FailureLog, HdrFiles};
use crate::report::model::capacity::{Capacity, CapacityOutcome, CapacityStep};
use crate::tools::capacity::fleet::Fleet;
use crate::tools::capacity::search::{Next, Outcome, Plan, Search};
use crate::tools::capacity::step::{Pooled, StepRecord};

/// How a capacity search ended, for the exit code.
pub struct Finished {
    /// What was found (`kvbench.capacity`).
    pub capacity: Capacity,
    /// What the end wrote, the confirmation run's verdict among it.
    pub written: Written,
    /// Whether the text report on stderr's terminal lists the warnings
    /// already ([`ExportManager::warnings_on_terminal`]).
    pub warnings_on_terminal: bool,
}

impl Finished {
    /// Whether the confirmation run met the SLOs; `None` without one.
    pub fn confirmed(&self) -> Option<bool> {
        self.capacity.confirmation.as_ref().map(|c| c.meets)
    }
}

/// A confirmation run: its step (none when nothing was measured), its
/// configuration and results, and its HDR files that could not be written.
type Confirmed = (Option<CapacityStep>, Config, Results, Vec<OutputError>);

/// Confirmation runs at most: a confirmation that misses the SLO refutes its
/// rate, and the search goes on below it, to be confirmed again.
pub const MAX_CONFIRMATIONS: u32 = 3;

/// Runs the search, the confirmation run and every output. The stderr
/// lines say each step, its rate and the interval so far.
pub fn run(plan: &CapacityPlan, interrupt: &Interrupt) -> Result<Finished, RunError> {
    let mut outputs = ExportManager::for_benchmark(&plan.base);
    let mut search = Search::new(Plan {
        start_rate: plan.start_rate,
        resolution: plan.resolution,
        max_steps: plan.max_steps,
    });
    let mut steps: Vec<CapacityStep> = Vec::new();
    // The benchmark the report holds until the confirmation run: the last step's.
    let mut last: Option<(Config, Results)> = None;
    let mut confirmations = 0;
    let mut fleet = Fleet::of(plan);
    loop {
        let searched = search_steps(
            plan,
            interrupt,
            &mut fleet,
            &mut search,
            &mut steps,
            &mut last,
        );
        let outcome =
            keep_steps_of_a_broken_fleet(searched, plan, &mut outputs, &steps, last.as_ref())?;
        let Some((config, results)) = last.take() else {
            // Stopped before any step measured anything.
            return Err(RunError::Interrupted(crate::error::Before::Connecting));
        };
        let capacity = curve::capacity(outcome, &plan.slos, plan.resolution, steps.clone(), None);
        let target = outcome.as_ref().and_then(Outcome::capacity);
        note(format_args!(
            "kvbench: {}",
            crate::report::capacity::answer(&capacity)
        ));
        let Some(rate) = target.filter(|_| !interrupt.stop_requested()) else {
            let complete = capacity.outcome != CapacityOutcome::Interrupted;
            return Ok(finish(
                outputs,
                &config,
                &results,
                complete,
                capacity,
                Vec::new(),
            ));
        };
        outputs.capacity_progress(&config, &results, &capacity);
        let confirmed = confirm(plan, rate, fleet.as_mut(), interrupt);
        let (confirmed, config, results, hdr_failures) = keep_steps_of_a_broken_fleet(
            confirmed,
            plan,
            &mut outputs,
            &steps,
            Some(&(config, results)),
        )?;
        confirmations += 1;
        let missed = confirmed.as_ref().filter(|c| !c.meets).cloned();
        if let Some(c) = &confirmed {
            note(format_args!(
                "kvbench: confirmation at {rate:.0} ops/s: {:.1} ops/s achieved, {}",
                c.ops_per_sec,
                if c.meets {
                    "meets the SLO"
                } else {
                    "misses the SLO"
                }
            ));
        }
        let again = confirmations < MAX_CONFIRMATIONS && !interrupt.stop_requested();
        match missed {
            // A confirmation that misses refutes its rate: it joins the curve
            // as a failing step, and the search goes on below it. A capacity
            // the file reports is one a run of --test-time has met.
            Some(step) if again && results.is_complete() => {
                note(format_args!(
                    "[capacity] {rate:.0} ops/s is refuted by its confirmation; the search goes on below it"
                ));
                search.refute(rate);
                steps.push(step);
                last = Some((config, results));
            }
            _ => {
                let capacity = curve::confirmed(capacity, confirmed);
                let complete = results.is_complete();
                return Ok(finish(
                    outputs,
                    &config,
                    &results,
                    complete,
                    capacity,
                    hdr_failures,
                ));
            }
        }
    }
}

/// `result` as it is; but when a fleet lost a shard (a barrier or a post
/// that timed out), the steps so far are written first, marked incomplete,
/// so the error loses none of them.
fn keep_steps_of_a_broken_fleet<T>(
    result: Result<T, RunError>,
    plan: &CapacityPlan,
    outputs: &mut ExportManager,
    steps: &[CapacityStep],
    last: Option<&(Config, Results)>,
) -> Result<T, RunError> {
    if let (Err(RunError::Barrier(_)), Some((config, results))) = (&result, last) {
        let capacity = curve::capacity(None, &plan.slos, plan.resolution, steps.to_vec(), None);
        outputs.capacity_progress(config, results, &capacity);
    }
    result
}

/// Steps until the search is done (`Some`) or a stop cut a step (`None`),
/// each step recorded in `search` and `steps`, the last benchmark in `last`.
fn search_steps(
    plan: &CapacityPlan,
    interrupt: &Interrupt,
    fleet: &mut Option<Fleet>,
    search: &mut Search,
    steps: &mut Vec<CapacityStep>,
    last: &mut Option<(Config, Results)>,
) -> Result<Option<Outcome>, RunError> {
    loop {
        let rate = match search.next() {
            Next::Done(outcome) => return Ok(Some(outcome)),
            Next::Step(rate) => rate,
        };
        let ran = step::run_step(plan, rate, steps.is_empty(), fleet.as_mut(), interrupt)?;
        if ran.last.is_some() {
            *last = ran.last;
        }
        let Some(record) = ran.record else {
            return Ok(None);
        };
        search.record(rate, record.meets);
        steps.push(curve::step(&record, &plan.slos));
        say_step(steps.len(), &record, search);
    }
}

/// Writes every output of the end and says what was written: the files of
/// the run the report holds count as the reports do, its HDR files
/// (`hdr_failures`) and its `--client-stats` files first.
fn finish(
    outputs: ExportManager,
    config: &Config,
    results: &Results,
    complete: bool,
    capacity: Capacity,
    hdr_failures: Vec<OutputError>,
) -> Finished {
    let warnings_on_terminal = outputs.warnings_on_terminal();
    let mut written = outputs.finish_capacity(config, results, complete, &capacity);
    let mut failures = hdr_failures;
    failures.extend(results.unwritten.iter().map(|u| u.to_output_error()));
    failures.append(&mut written.failures);
    written.failures = failures;
    Finished {
        capacity,
        written,
        warnings_on_terminal,
    }
}

/// The confirmation run at `rate` for `--test-time`, with the benchmark's
/// progress line and HDR files (the HDR files that could not be written
/// last); judged as a step without repeats, on a fleet on the merged
/// measurements of every shard's confirmation.
fn confirm(
    plan: &CapacityPlan,
    rate: f64,
    mut fleet: Option<&mut Fleet>,
    interrupt: &Interrupt,
) -> Result<Confirmed, RunError> {
    let mut config = plan.confirmation(rate);
    let at = fleet.as_deref_mut().map(|f| {
        let (start, at) = f.begin();
        config = config.starting_at(start);
        at
    });
    let seconds = match config.stop {
        Stop::Time(d) => d.as_secs_f64(),
        _ => 0.0,
    };
    note(format_args!(
        "[capacity] confirmation: {rate:.0} ops/s for {seconds} s"
    ));
    let mut progress = crate::report::progress::Progress::new(&config, true);
    let hdr_failures = FailureLog::default();
    let mut hdr = HdrFiles::new(Arc::new(config.clone()), &hdr_failures);
    let mut live = crate::engine::master::sink::Sinks::new()
        .with(&mut progress)
        .with(&mut hdr);
    let results =
        crate::engine::master::run::run(config.clone(), false, interrupt, &mut live, &mut |_| {})
            .inspect_err(|_| step::stopped(fleet.as_deref(), at))?;
    let mine = Pooled::of_results(&results).filter(|_| results.interrupted.is_none());
    let pooled = match (fleet.as_deref(), at, mine) {
        (Some(f), Some(at), Some(mine)) => Some(f.merge(at, &mine, interrupt)?),
        (fleet, at, mine) => {
            if mine.is_none() {
                step::stopped(fleet, at);
            }
            mine
        }
    };
    let record = pooled.map(|pooled| {
        let (judged, decision) = step::judge_step(
            &pooled.judged_histogram(),
            &plan.slos,
            rate,
            &pooled,
            plan.base.faults.max_error_share,
            true,
        );
        // The final try always decides.
        let (decided_by, meets) =
            decision.unwrap_or((crate::report::model::capacity::Decision::Estimate, false));
        StepRecord {
            rate,
            pooled,
            judged,
            decided_by,
            meets,
        }
    });
    let confirmed = record.map(|r| curve::step(&r, &plan.slos));
    Ok((confirmed, config, results, hdr_failures.take()))
}

/// A step's line on stderr: its rate, what it achieved, its bound and the
/// interval so far.
fn say_step(index: usize, record: &StepRecord, search: &Search) {
    let bounds: Vec<String> = record
        .judged
        .iter()
        .map(|j| match j.bound {
            Some(b) => {
                let interval = match b.interval_us {
                    Some((low, high)) => format!("[{:.3}, {:.3}]", low / 1e3, high / 1e3),
                    None => "[no interval: under ten seconds]".to_string(),
                };
                let estimate = b.estimate_us as f64 / 1e3;
                format!("p{} {estimate:.3} ms {interval}", j.slo.percentile)
            }
            None => format!("p{} -", j.slo.percentile),
        })
        .collect();
    let end = |v: Option<f64>| v.map_or_else(|| "?".to_string(), |v| format!("{v:.0}"));
    note(format_args!(
        "[STEP {index}] rate {:.0} ops/s: achieved {:.1}, {}, {} ({} run{}); capacity in [{}, {})",
        record.rate,
        record.pooled.ops_per_sec(),
        bounds.join(", "),
        if record.meets { "meets" } else { "fails" },
        record.pooled.runs,
        if record.pooled.runs == 1 { "" } else { "s" },
        end(search.low()),
        end(search.high()),
    ));
}

#[cfg(test)]
mod tests;
