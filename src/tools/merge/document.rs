//! The merged report: the same document a single machine writes (memtier's
//! sections recomputed from the merged sums, the `kvbench` object with the
//! merged runs and totals), plus `kvbench.shards` (each machine's own
//! figures) and `kvbench.merged` (which files, what was missing, and the
//! digest of every measurement it holds).
//!
//! The server's evidence of each run is the set's ([`super::evidence`]): on a
//! shared server each machine's INFO already counts the others' traffic, so
//! the machines of one server are taken together over their common window,
//! not added, and the server's calls are judged once against every
//! machine's replies (the shards' own files leave that judgement to the
//! merge). An ad-hoc set (files without a shard object, run one after the
//! other) has no common window: its runs carry no `server`, and each file's
//! own judgement stands. The warm-up merges as a run does (when every file
//! has one), its `ALL STATS` section included. What is not merged, and why:
//! the prefill (not measured) and the placement (one machine's CPUs). Those
//! are `null`; the server context is the first file's. The verdict is every
//! machine's reasons, each naming its file, and the warnings every machine's
//! and the merge's own ([`super::judged`]).

use crate::error::UsageError;
use crate::report::build::rows::SectionShape;
use crate::report::json::round;
use crate::report::model::Report;
use crate::report::model::kvbench::{Kvbench, OpTotals, Variance, Warning};
use crate::report::model::named::Named;
use crate::report::model::section::SectionTitle;
use crate::report::model::shard::Merged;
use crate::tools::merge::check::SetInfo;
use crate::tools::merge::combine::RowSum;
use crate::tools::merge::fold::{Fold, Machine};
use crate::tools::merge::judged::{verdict, warnings};
use crate::tools::merge::run::{self, RunSum, sum_errors};
use crate::tools::merge::skip::Skipped;

/// Above this spread of the machines' corrected start times, the merged
/// rate mixes seconds in which not every machine was sending.
pub const START_SKEW_WARN_MS: f64 = 100.0;

/// The warning naming a file `--allow-partial` left out.
pub const SHARD_SKIPPED: &str = "shard_skipped";

/// The spread of the machines' first-run start times.
#[derive(Debug, Clone, PartialEq)]
pub struct Skew {
    /// Latest minus earliest start, ms.
    pub spread_ms: f64,
    /// Every machine had a measured clock offset to correct by.
    pub corrected: bool,
}

/// Everything `kvbench merge` produced.
#[derive(Debug, Clone)]
pub struct Merge {
    /// The document written with `-o`.
    pub report: Report,
    /// The merged runs, in order.
    pub runs: Vec<RunSum>,
    /// Machines (files) merged.
    pub machines: usize,
    /// The first run's start spread.
    pub skew: Option<Skew>,
    /// What the set checks found.
    pub set: SetInfo,
    /// The files `--allow-partial` left out.
    pub skipped: Vec<Skipped>,
}

/// The merged report of the files folded in.
pub fn merge(fold: Fold, set: SetInfo) -> Merge {
    let Fold {
        frame: mut report,
        kvbench: first,
        layout,
        runs,
        machines,
        warmup,
        skipped,
        ..
    } = fold;
    let mut runs = runs;
    for r in &mut runs {
        r.set_window(set.ad_hoc);
    }
    report.sections = sections(&runs, &layout);
    let skew = skew(&machines);
    let mut k = kvbench(first, &machines, &runs, &layout, &set, skew.as_ref());
    // Each file left out is named where the set's warnings are read.
    let left_out = skipped.iter().map(|s| Warning {
        kind: SHARD_SKIPPED.into(),
        message: s.to_string(),
        silenced: false,
    });
    k.warnings.splice(0..0, left_out);
    k.warmup = warmup.map(|mut w| {
        w.set_window(set.ad_hoc);
        let mut summary = w.summary(&layout, machines.len());
        summary.all_stats = Some(w.section(&layout, true));
        if set.ad_hoc {
            summary.server = None;
            summary.server_use.clear();
        }
        summary
    });
    report.kvbench = Some(k);
    Merge {
        report,
        runs,
        machines: machines.len(),
        skew,
        set,
        skipped,
    }
}

/// `ALL STATS` for one run; else each run, BEST, WORST and the aggregate.
fn sections(
    runs: &[RunSum],
    layout: &SectionShape,
) -> Vec<(SectionTitle, crate::report::model::section::Section)> {
    if runs.len() == 1 {
        return vec![(SectionTitle::AllStats, runs[0].section(layout, true))];
    }
    let mut out: Vec<_> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| (SectionTitle::Run(i as u32 + 1), r.section(layout, true)))
        .collect();
    // A run cut short is reported, never ranked (as for one machine).
    let ranked = || runs.iter().filter(|r| !r.interrupted);
    let by_rate = |a: &&RunSum, b: &&RunSum| a.ops_per_sec().total_cmp(&b.ops_per_sec());
    if let Some(best) = ranked().max_by(by_rate) {
        out.push((SectionTitle::Best, best.section(layout, true)));
    }
    if let Some(worst) = ranked().min_by(by_rate) {
        out.push((SectionTitle::Worst, worst.section(layout, true)));
    }
    // The aggregate merges the runs that ran to their end, as for one machine.
    let completed: Vec<RunSum> = ranked().cloned().collect();
    if let Some(all) = run::aggregate(&completed) {
        out.push((
            SectionTitle::Aggregated(completed.len() as u32),
            all.section(layout, false),
        ));
    }
    out
}

/// The spread of the first run's starts on the reference clock.
fn skew(machines: &[Machine]) -> Option<Skew> {
    let starts = machines
        .iter()
        .map(|m| {
            let offset = m
                .shard
                .as_ref()
                .and_then(|s| s.clock.as_ref())
                .and_then(|c| c.offset_start_ms);
            Some((m.first_start_ms? as f64, offset))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(spread(&starts))
}

/// The spread of `(start ms on the machine's clock, its offset)`: an offset
/// is the reference's time minus the machine's (`run/clock.rs`), so a start
/// on the reference's clock is the machine's start plus its offset. A set
/// with any offset missing is left uncorrected, and says so.
pub(super) fn spread(starts: &[(f64, Option<f64>)]) -> Skew {
    let corrected = starts.iter().all(|(_, offset)| offset.is_some());
    let on_reference = |&(start, offset): &(f64, Option<f64>)| {
        if corrected {
            start + offset.unwrap_or(0.0)
        } else {
            start
        }
    };
    let min = starts
        .iter()
        .map(on_reference)
        .fold(f64::INFINITY, f64::min);
    let max = starts
        .iter()
        .map(on_reference)
        .fold(f64::NEG_INFINITY, f64::max);
    Skew {
        spread_ms: max - min,
        corrected,
    }
}

/// `--max-skew`: a set whose machines started RUN #1 further apart than
/// `max` did not run together, and is refused.
pub fn check_skew(skew: Option<&Skew>, max: std::time::Duration) -> Result<(), UsageError> {
    let limit_ms = max.as_secs_f64() * 1000.0;
    match skew {
        Some(s) if s.spread_ms <= limit_ms => Ok(()),
        Some(s) => Err(UsageError::new(
            "--max-skew",
            format!(
                "the machines started RUN #1 {:.1} ms apart{}, more than --max-skew {}: the set did not run together; start the shards at one time (--start-at barrier, or one --start-at T) and run them again, or raise --max-skew",
                s.spread_ms,
                if s.corrected {
                    " (clock offsets corrected)"
                } else {
                    " (clock offsets not measured)"
                },
                max.as_secs_f64()
            ),
        )),
        None => Err(UsageError::new(
            "--max-skew",
            "a file does not say when its RUN #1 started, so the skew cannot be checked; leave --max-skew out for these files",
        )),
    }
}

/// GET-like hits over hits plus misses, percent.
pub fn hit_rate(t: &OpTotals) -> Option<f64> {
    let answered = t.hits + t.misses;
    (answered > 0).then(|| 100.0 * t.hits as f64 / answered as f64)
}

fn kvbench(
    first: Kvbench,
    machines: &[Machine],
    runs: &[RunSum],
    layout: &SectionShape,
    set: &SetInfo,
    skew: Option<&Skew>,
) -> Kvbench {
    let mut k = first;
    k.complete = !set.partial() && machines.iter().all(|m| m.complete);
    k.runs_completed = runs.iter().filter(|r| !r.interrupted).count() as u32;
    k.runs = runs
        .iter()
        .map(|r| r.summary(layout, machines.len()))
        .collect();
    if set.ad_hoc {
        // Runs one after the other share no window: one machine's seconds
        // of the server would stand for the set's.
        for r in &mut k.runs {
            r.server = None;
            r.server_use.clear();
        }
    }
    let mut all: Vec<RowSum> = vec![RowSum::new(); layout.rows.len()];
    let mut errors = None;
    for r in runs {
        for (a, b) in all.iter_mut().zip(&r.rows) {
            a.add(b, false);
        }
        if let Some(e) = &r.errors {
            sum_errors(&mut errors, e);
        }
    }
    let mut hits = RowSum::new();
    for a in &all {
        hits.add(a, false);
    }
    k.totals = Some(Named(
        layout
            .rows
            .iter()
            .zip(&all)
            .map(|((_, c), s)| (c.clone(), s.totals_json()))
            .collect(),
    ));
    k.hit_rate_percent = hit_rate(&hits.totals).map(|p| round(p, 4));
    k.errors = errors;
    k.prefill = None;
    // One machine's aggregate open-loop blocks and nodes are not the set's.
    k.aggregate = None;
    k.placement = None;
    k.shard = None;
    // The first machine's interval logs are not the set's: a merged file
    // names none, so that merging it again reads no one machine's seconds
    // as the whole set's.
    if k.config.contains_key("hdr_file_prefix") {
        k.config
            .insert("hdr_file_prefix".into(), serde_json::Value::Null);
    }
    k.variance = variance(runs);
    // One machine's -x auto decision is not the set's.
    k.runs_auto = None;
    if k.interrupted.is_none() {
        k.interrupted = machines.iter().find_map(|m| m.interrupted.clone());
    }
    k.warnings = warnings(machines, runs, layout, set, skew);
    k.verdict = Some(verdict(machines, set));
    k.shards = Some(machines.iter().map(|m| m.row.clone()).collect());
    let threads = k
        .config
        .get("threads")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(1) as usize;
    let mut rounds = super::rounds::rounds(runs, threads);
    for (summary, round) in k.runs.iter_mut().zip(&rounds) {
        summary.limit = round.limit.clone();
    }
    if set.ad_hoc {
        // Runs made one after the other share no window on the server.
        rounds.iter_mut().for_each(|r| r.servers.clear());
    }
    let targets = super::rounds::targets(&rounds);
    if targets.len() > 1 {
        k.target = targets.join(", ");
    }
    k.rounds = Some(rounds);
    k.merged = Some(Merged {
        files: machines.iter().map(|m| m.path.clone()).collect(),
        partial: set.partial(),
        missing: set.missing.clone(),
        sha256: machines
            .iter()
            .flat_map(|m| m.measurements.iter().map(|d| d.0.clone()))
            .collect(),
        start_skew_ms: skew.map(|s| round(s.spread_ms, 3)),
        clocks_corrected: skew.map(|s| s.corrected),
        common_window_s: runs
            .iter()
            .filter_map(|r| Some(round(r.window?.seconds(), 3)))
            .collect(),
    });
    k
}

fn variance(runs: &[RunSum]) -> Option<Variance> {
    let rates: Vec<f64> = runs
        .iter()
        .filter(|r| !r.interrupted)
        .map(RunSum::ops_per_sec)
        .collect();
    let v = crate::engine::master::results::variance::Variance::of(&rates)?;
    Some(crate::report::build::kvbench::variance_of(&v))
}
