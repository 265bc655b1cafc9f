//! The numbers every suite output prints for one step, read off its
//! headline section (the aggregate of `-x` runs, or its one run) and the
//! worker threads' CPU time.

use crate::engine::master::results::rate;
use crate::engine::stats::{max_us, percentile_us};
use crate::report::suite::{StepErrors, StepResult};

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

/// The figures of the step's headline section (the aggregate of `-x` runs).
pub fn figures(r: &StepResult) -> Figures {
    let Some(section) = r.results.headline() else {
        return Figures::default();
    };
    let totals = section.stats.totals();
    let h = &totals.latency_us;
    let ms = |us: u64| us as f64 / 1000.0;
    let counts_hits = r.step.config.ops.rows.iter().any(|row| row.counts_hits);
    let looked_up = totals.hits + totals.misses;
    let hit_rate_percent =
        (counts_hits && looked_up > 0).then(|| totals.hits as f64 * 100.0 / looked_up as f64);
    let cpu: f64 = r
        .results
        .runs
        .iter()
        .flat_map(|run| &run.thread_cpu)
        .map(|d| d.as_secs_f64() * 1e6)
        .sum();
    let replies: u64 = r
        .results
        .runs
        .iter()
        .map(|run| run.stats.totals().count)
        .sum();
    Figures {
        count: totals.count,
        rps: rate(totals.count, section.duration),
        avg_ms: totals.mean_us() / 1000.0,
        min_ms: if h.is_empty() { 0.0 } else { ms(h.min()) },
        p50_ms: ms(percentile_us(h, 50.0)),
        p95_ms: ms(percentile_us(h, 95.0)),
        p99_ms: ms(percentile_us(h, 99.0)),
        p999_ms: ms(percentile_us(h, 99.9)),
        max_ms: ms(max_us(h)),
        hit_rate_percent,
        cpu_us_per_request: (replies > 0 && cpu > 0.0).then(|| cpu / replies as f64),
        errors: StepErrors::of(&totals),
    }
}
