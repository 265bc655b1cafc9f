//! The numbers every suite output prints for one test, read off the test's
//! report (the document its JSON entry holds): the `Totals` row of its
//! headline section (the aggregate of `-x` runs, or its one run), the exact
//! counts of the runs that section shows, and every run's worker threads'
//! CPU time.

use crate::config::suite::Step;
use crate::protocol::error_kind::ServerErrorKind;
use crate::report::model::Report;
use crate::report::model::kvbench::PhaseSummary;
use crate::report::model::section::{SectionTitle, TOTALS_ROW};
use crate::report::suite::StepErrors;
use crate::report::suite::errors::ByKind;

/// The numbers every output prints for one step, latencies in ms.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Figures {
    /// Replies counted.
    pub count: u64,
    /// Requests per second.
    pub rps: f64,
    /// Mean latency.
    pub avg_ms: f64,
    /// Smallest latency.
    pub min_ms: f64,
    /// Percentiles 50, 95, 99 and 99.9.
    pub p50_ms: f64,
    /// p95.
    pub p95_ms: f64,
    /// p99.
    pub p99_ms: f64,
    /// p99.9.
    pub p999_ms: f64,
    /// Largest latency.
    pub max_ms: f64,
    /// Hits over hits and misses, percent, for GET and the pops.
    pub hit_rate_percent: Option<f64>,
    /// Client CPU time (every worker thread) per reply, µs.
    pub cpu_us_per_request: Option<f64>,
    /// The error replies among them, when there were any.
    pub errors: Option<StepErrors>,
}

/// The figures of `report`'s headline, the section its text shows last (the
/// aggregate of `-x` runs, or its one run); `step` says whether a nil reply
/// is a miss.
pub fn figures(step: &Step, report: &Report) -> Figures {
    let Some((title, section)) = report.sections.last() else {
        return Figures::default();
    };
    let Some(row) = section.row(TOTALS_ROW) else {
        return Figures::default();
    };
    let runs = report.kvbench.as_ref().map_or(&[][..], |k| &k.runs);
    // The runs the headline shows: its one run, or those the aggregate
    // merged, every run not cut short (BEST and WORST are never last).
    let cut = |r: &PhaseSummary| {
        r.incomplete
            .as_ref()
            .is_some_and(|i| i.reason == "interrupted")
    };
    let shown = runs.iter().enumerate().filter(|(i, r)| match title {
        SectionTitle::AllStats => *i == 0,
        SectionTitle::Run(n) => *i + 1 == *n as usize,
        SectionTitle::Aggregated(_) => !cut(r),
        SectionTitle::Best | SectionTitle::Worst => false,
    });
    let (mut hits, mut misses, mut errors, mut by_kind) = (0, 0, 0, ByKind::default());
    for (_, t) in shown.flat_map(|(_, r)| r.totals.iter()) {
        (hits, misses, errors) = (hits + t.hits, misses + t.misses, errors + t.errors);
        // A suite test's table is a --command one: its rows count their
        // error replies by kind.
        let kinds = t.errors_by_kind.as_ref();
        for (n, kind) in by_kind.iter_mut().zip(ServerErrorKind::ALL) {
            *n += kinds.and_then(|k| k.get(kind.as_str())).unwrap_or(&0);
        }
    }
    let counts_hits = step.config.ops.rows.iter().any(|row| row.counts_hits);
    let looked_up = hits + misses;
    let hit_rate_percent =
        (counts_hits && looked_up > 0).then(|| hits as f64 * 100.0 / looked_up as f64);
    let cpu: f64 = runs
        .iter()
        .flat_map(|run| &run.thread_cpu_s)
        .map(|s| s * 1e6)
        .sum();
    let replies: u64 = runs
        .iter()
        .flat_map(|r| r.totals.iter())
        .map(|(_, t)| t.count)
        .sum();
    // The percentiles from the row's whole histogram: the report prints
    // those of --print-percentiles only, and the suite's p95 is not one.
    let h = row.recorded();
    let at = |p: f64| {
        h.as_ref()
            .map_or(0.0, |h| h.value_at_percentile(p) as f64 / 1000.0)
    };
    Figures {
        count: row.count,
        rps: row.ops_per_sec,
        avg_ms: row.average_latency_ms,
        min_ms: row.min_latency_ms,
        p50_ms: at(50.0),
        p95_ms: at(95.0),
        p99_ms: at(99.0),
        p999_ms: at(99.9),
        max_ms: row.max_latency_ms,
        hit_rate_percent,
        cpu_us_per_request: (replies > 0 && cpu > 0.0).then(|| cpu / replies as f64),
        errors: StepErrors::of(row.count, errors, by_kind),
    }
}
