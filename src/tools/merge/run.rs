//! One measured run added over the machines, and what is written of it: its
//! memtier section and its `kvbench.runs[i]` summary.
//!
//! The run's window is the longest machine's run time: every machine sends
//! from the common planned start, so the merged rate is every machine's
//! replies over the time the slowest took — the sum of the rates when they
//! ran equally long, and never more than it.

use crate::error::UsageError;
use crate::report::build::rows::{self as builder, SectionShape};
use crate::report::model::kvbench::{Errors, Incomplete};
use crate::report::model::load_gap::LoadGap;
use crate::report::model::section::{Runtime, Section};
use crate::report::model::section::{TIME_UNIT, TOTALS_ROW};
use crate::report::model::shard::RoundClient;
use crate::report::model::watched::Watched;
use crate::tools::merge::check::ShardFile;
use crate::tools::merge::cluster::ClusterSum;
use crate::tools::merge::combine::{RowSum, ShardRow, add_named};
use crate::tools::merge::evidence::EvidenceSum;
use crate::tools::merge::hlog;
use crate::tools::merge::open_loop::OpenLoopSum;
use crate::tools::merge::rounds;
use crate::tools::merge::rows;
use crate::tools::merge::window::{MachineRun, Window};

/// One run over every machine (or, from [`aggregate`], every run).
#[derive(Debug, Clone)]
pub struct RunSum {
    /// `RUN #1`.
    pub phase: String,
    /// The earliest machine's start, ms since the epoch.
    pub start_ms: u64,
    /// The latest machine's finish, ms since the epoch.
    pub finish_ms: u64,
    /// The longest machine's run time, ms (the aggregate: their sum).
    pub duration_ms: u64,
    /// Some machine's run was cut short.
    pub interrupted: bool,
    /// One sum per op row, in the layout's order.
    pub rows: Vec<RowSum>,
    /// Every row together.
    pub totals: RowSum,
    /// memtier's Connection Errors, every machine.
    pub connection_errors: u64,
    /// The longest drain, ms.
    pub drain_ms: u64,
    /// Connections down at the end, every machine.
    pub connections_down: u64,
    /// The first machine's reason, if one did not offer its load.
    pub incomplete: Option<Incomplete>,
    /// Every machine's worker threads.
    pub thread_cpu_s: Vec<f64>,
    /// Errors by kind, every machine.
    pub errors: Option<Errors>,
    /// The machines' `open_loop`s summed (`None` in a closed loop).
    pub open_loop: Option<OpenLoopSum>,
    /// The machines' `cluster` objects summed; `None` as soon as one
    /// machine's run lacks it or a node's histogram.
    pub cluster: Option<ClusterSum>,
    /// The servers' account of the run, per server.
    pub evidence: EvidenceSum,
    /// Each machine's start, run time and per-second replies.
    pub machine_runs: Vec<MachineRun>,
    /// Each machine's CPU and network during the run.
    pub clients: Vec<RoundClient>,
    /// The span in which every machine was sending ([`RunSum::set_window`]).
    pub window: Option<Window>,
    /// Per op row, then the totals: the run time its rates are over (the
    /// window's, [`Window::duration_s`]); `None`: [`RunSum::duration_s`].
    pub rates_over_s: Option<Vec<f64>>,
    /// `--watch`: the components behind the target, as the one machine
    /// that sampled them (shard 0) read them; empty when none did.
    pub watched: Vec<Watched>,
    /// The machines' load gaps joined (`None` as soon as one lacks them).
    pub load_gap: Option<LoadGap>,
}

/// A file's duration as it wrote it, whole milliseconds.
pub use crate::report::model::rounded::millis::whole as whole_ms;

/// The section holding run `i` (from 0) of a file: `ALL STATS` for a
/// single run, `RUN #n RESULTS` otherwise.
pub fn section_of(f: &ShardFile, i: usize) -> Option<&Section> {
    f.report.run_section(i, f.kvbench.runs.len())
}

fn add_errors(a: &mut Errors, b: &Errors) {
    add_named(&mut a.server, &b.server);
    a.connection += b.connection;
    a.refused += b.refused;
    a.timeouts += b.timeouts;
    a.reconnects += b.reconnects;
    a.protocol += b.protocol;
    a.lost_requests += b.lost_requests;
    a.pushes += b.pushes;
    a.attributes += b.attributes;
}

/// Adds `b` into `a` (`None` when neither has errors).
pub fn sum_errors(a: &mut Option<Errors>, b: &Errors) {
    match a {
        Some(a) => add_errors(a, b),
        None => *a = Some(b.clone()),
    }
}

/// Run `i` of one file, as one machine's sum, to be added to the others'
/// with [`add_machine`].
pub fn of_file(f: &ShardFile, i: usize, layout: &SectionShape) -> Result<RunSum, UsageError> {
    let summary = &f.kvbench.runs[i];
    let section = section_of(f, i)
        .ok_or_else(|| UsageError::new(&f.path, format!("no section for {}", summary.phase)))?;
    of_phase(f, summary, section, layout)
}

/// The warm-up of one file (its summary and its `ALL STATS`), as one
/// machine's sum; `None` for a file without one.
pub fn warmup_of(f: &ShardFile, layout: &SectionShape) -> Option<Result<RunSum, UsageError>> {
    let w = f.kvbench.warmup.as_ref()?;
    let section = w.all_stats.as_ref()?;
    w.histograms.as_ref()?;
    Some(of_phase(f, w, section, layout))
}

/// One phase of one file, from its summary and its memtier section.
fn of_phase(
    f: &ShardFile,
    summary: &crate::report::model::kvbench::PhaseSummary,
    section: &Section,
    layout: &SectionShape,
) -> Result<RunSum, UsageError> {
    let refuse = |what: String| UsageError::new(&f.path, what);
    let duration_s = whole_ms(summary.duration) as f64 / 1000.0;
    let run_number = summary
        .phase
        .strip_prefix("RUN #")
        .and_then(|n| n.parse::<u32>().ok());
    let mut sums = Vec::with_capacity(layout.rows.len());
    for (row_key, command) in &layout.rows {
        let row = section
            .row(row_key)
            .ok_or_else(|| refuse(format!("{} has no {row_key} row", summary.phase)))?;
        // A measured run's seconds are in its interval log; the warm-up
        // writes none.
        let per_second = match run_number {
            Some(n) => hlog::seconds_of(f, n, row_key, command, row)?,
            None => None,
        };
        let shard = ShardRow {
            row,
            totals: summary.totals.get(command),
            histogram: summary.histograms.as_ref().and_then(|h| h.get(command)),
            per_second,
            duration_s,
        };
        let mut sum = RowSum::new();
        sum.add_shard(&shard)
            .map_err(|e| refuse(format!("{} {row_key}: {e}", summary.phase)))?;
        sums.push(sum);
    }
    let connection_errors = section.row(TOTALS_ROW).map_or(0, |t| t.connection_errors);
    let totals = total_of(&sums);
    let client = rounds::client_of(f, summary, &totals.histogram);
    let offset = f
        .shard()
        .and_then(|s| s.clock.as_ref())
        .and_then(|c| c.offset_start_ms);
    let counts = |r: &RowSum| r.seconds.iter().map(|(k, s)| (*k, s.count)).collect();
    let machine = MachineRun {
        start_ms: section.runtime.start_time_ms as f64 + offset.unwrap_or(0.0),
        duration_ms: whole_ms(summary.duration) as f64,
        seconds: sums.iter().chain([&totals]).map(counts).collect(),
    };
    Ok(RunSum {
        phase: summary.phase.clone(),
        start_ms: section.runtime.start_time_ms,
        finish_ms: section.runtime.finish_time_ms,
        duration_ms: whole_ms(summary.duration),
        interrupted: section.runtime.interrupted,
        totals,
        rows: sums,
        connection_errors,
        drain_ms: whole_ms(summary.drain),
        connections_down: summary.connections_down_at_end,
        incomplete: summary.incomplete.clone(),
        thread_cpu_s: summary.thread_cpu_s.clone(),
        errors: Some(summary.errors.clone()),
        open_loop: summary
            .open_loop
            .as_ref()
            .map(OpenLoopSum::of)
            .transpose()
            .map_err(|e| refuse(format!("{} open_loop: {e}", summary.phase)))?,
        cluster: summary
            .cluster
            .as_ref()
            .map(ClusterSum::of)
            .transpose()
            .map_err(|e| refuse(format!("{} {e}", summary.phase)))?
            .flatten(),
        evidence: EvidenceSum::of(summary, select_db(f), &f.kvbench.target),
        machine_runs: vec![machine],
        clients: vec![client],
        window: None,
        rates_over_s: None,
        watched: summary.watched.clone(),
        load_gap: summary.load_gap.clone(),
    })
}

/// `kvbench.config.select_db` (0 when absent).
fn select_db(f: &ShardFile) -> u32 {
    let db = f
        .kvbench
        .config
        .get("select_db")
        .and_then(serde_json::Value::as_u64);
    db.map_or(0, |d| d as u32)
}

fn total_of(rows: &[RowSum]) -> RowSum {
    let mut t = RowSum::new();
    for r in rows {
        t.add(r, true);
    }
    t
}

/// Adds another machine's run: the same window, so its seconds line up.
pub fn add_machine(acc: &mut RunSum, one: &RunSum) {
    combine_into(acc, one, true);
    acc.duration_ms = acc.duration_ms.max(one.duration_ms);
    acc.drain_ms = acc.drain_ms.max(one.drain_ms);
}

fn combine_into(acc: &mut RunSum, one: &RunSum, with_seconds: bool) {
    acc.start_ms = acc.start_ms.min(one.start_ms);
    acc.finish_ms = acc.finish_ms.max(one.finish_ms);
    acc.interrupted |= one.interrupted;
    for (a, b) in acc.rows.iter_mut().zip(&one.rows) {
        a.add(b, with_seconds);
    }
    acc.totals.add(&one.totals, with_seconds);
    acc.connection_errors += one.connection_errors;
    acc.connections_down += one.connections_down;
    if acc.incomplete.is_none() {
        acc.incomplete.clone_from(&one.incomplete);
    }
    acc.thread_cpu_s.extend_from_slice(&one.thread_cpu_s);
    if let Some(e) = &one.errors {
        sum_errors(&mut acc.errors, e);
    }
    match (&mut acc.open_loop, &one.open_loop) {
        (Some(a), Some(b)) => a.add(b),
        (None, Some(b)) => acc.open_loop = Some(b.clone()),
        _ => {}
    }
    // One machine without the per-node table (or its histograms) leaves
    // the merged run without one: a table of some machines' replies would
    // read as the whole load's.
    acc.cluster = match (acc.cluster.take(), &one.cluster) {
        (Some(mut a), Some(b)) => {
            a.add(b);
            Some(a)
        }
        _ => None,
    };
    acc.load_gap = super::load_gap::join(acc.load_gap.take(), one.load_gap.as_ref(), with_seconds);
    acc.evidence.add(&one.evidence);
    acc.machine_runs.extend_from_slice(&one.machine_runs);
    acc.clients.extend_from_slice(&one.clients);
    // One machine samples the watched components for the set: its entries
    // are the set's, never added to another's.
    if acc.watched.is_empty() {
        acc.watched = one.watched.clone();
    }
}

/// Every merged run together: their run times add, as in one machine's
/// aggregate, and it has no series.
pub fn aggregate(runs: &[RunSum]) -> Option<RunSum> {
    let (first, rest) = runs.split_first()?;
    let mut acc = first.clone();
    // The aggregate is a section only: `kvbench.runs` has no entry for it,
    // so it carries no cluster object (as for one machine).
    acc.cluster = None;
    acc.evidence = EvidenceSum::default();
    acc.machine_runs.clear();
    acc.clients.clear();
    acc.watched.clear();
    acc.window = None;
    // Each run's rates are over its own window: the aggregate's over the
    // sum of those times, as its run time is the sum of the runs'.
    acc.rates_over_s = runs.iter().all(|r| r.rates_over_s.is_some()).then(|| {
        (0..=first.rows.len())
            .map(|i| runs.iter().map(|r| r.rate_time_s(i)).sum())
            .collect()
    });
    for r in acc.rows.iter_mut().chain(std::iter::once(&mut acc.totals)) {
        r.seconds.clear();
    }
    for r in rest {
        combine_into(&mut acc, r, false);
        acc.duration_ms += r.duration_ms;
    }
    acc.phase = format!("AGGREGATED AVERAGE RESULTS ({} runs)", runs.len());
    Some(acc)
}

impl RunSum {
    /// The run time, s.
    pub fn duration_s(&self) -> f64 {
        self.duration_ms as f64 / 1000.0
    }

    /// Finds the common window of a set whose machines ran at once (not
    /// `ad_hoc`), and the run time each row's rates are over.
    pub fn set_window(&mut self, ad_hoc: bool) {
        self.window = if ad_hoc {
            None
        } else {
            Window::common(&self.machine_runs)
        };
        let Some(w) = self.window else {
            return;
        };
        let rows = self.rows.iter().chain([&self.totals]).enumerate();
        let times = rows.map(|(i, r)| {
            w.duration_s(&self.machine_runs, i, r.totals.count)
                .unwrap_or_else(|| self.duration_s())
        });
        self.rates_over_s = Some(times.collect());
    }

    /// The run time row `i`'s rates are over (the totals: the rows' count).
    pub fn rate_time_s(&self, i: usize) -> f64 {
        let over = self.rates_over_s.as_ref().and_then(|v| v.get(i));
        over.copied().unwrap_or_else(|| self.duration_s())
    }

    /// Replies per second of the common window.
    pub fn ops_per_sec(&self) -> f64 {
        let s = self.rate_time_s(self.rows.len());
        if s > 0.0 {
            self.totals.totals.count as f64 / s
        } else {
            0.0
        }
    }

    /// The memtier section; `series`: with the per-second series.
    pub fn section(&self, layout: &SectionShape, series: bool) -> Section {
        let rows: Vec<_> = (self.rows.iter().enumerate())
            .map(|(i, sum)| rows::sums(sum, self.rate_time_s(i), series))
            .collect();
        let over = self.rate_time_s(self.rows.len());
        let totals = rows::sums(&self.totals, over, series);
        let runtime = Runtime {
            start_time_ms: self.start_ms,
            finish_time_ms: self.finish_ms,
            total_duration_ms: self.duration_ms,
            time_unit: TIME_UNIT.to_string(),
            interrupted: self.interrupted,
        };
        builder::section(layout, runtime, &rows, &totals, self.connection_errors)
    }
}
