//! A run's `open_loop` object with `--rate` or `--rate-limiting`: target and
//! achieved rate, the backlog, the schedule lag, and beside the headline
//! latency the other measure, each as a block per row of the op table and
//! `Totals`; and the requests never sent with how long they waited.

use hdrhistogram::Histogram;

use crate::config::Config;
use crate::engine::master::results::PhaseResult;
use crate::engine::stats::{OpStats, Stats, max_us, percentile_us};
use crate::report::json::{compressed, ms, percentile_key};
use crate::report::model::histogram::CompressedHistogram;
use crate::report::model::kvbench::{LatencyBlock, OpenLoop};
use crate::report::model::named::Named;

/// The `open_loop` object of a run; `None` for a closed loop.
pub fn open_loop(c: &Config, run: &PhaseResult) -> Option<OpenLoop> {
    let rate = c.rate?;
    let p = &c.output.percentiles;
    // The lag's mean comes from its histogram (within 0.1 %); no exact sum is kept.
    let lag = run.stats.lag_us.as_ref().map(|h| {
        let mean = if h.is_empty() { 0.0 } else { h.mean() };
        latency_block(h, mean, p)
    });
    let (service_time, response_time) = measures(c, &run.stats);
    Some(OpenLoop {
        target_ops_per_sec: rate.total_per_sec,
        arrival: rate.arrival,
        achieved_ops_per_sec: run.ops_per_sec(),
        met: crate::report::warnings::rate_check(c, run).is_none(),
        never_sent: run.unsent,
        backlog_per_second: run.series.iter().map(|s| s.backlog).collect(),
        busiest_thread_cpu_percent: run.busiest_thread_cpu_percent(),
        schedule_lag: lag,
        headline: c.headline,
        service_time,
        response_time,
        never_sent_wait: blocks(c, &run.stats, |op, p| {
            let h = op.never_sent_us.as_ref()?;
            Some(latency_block(h, op.mean_never_sent_us(), p))
        }),
    })
}

/// `block` of each row of `stats` and of its `Totals`.
fn blocks(
    c: &Config,
    stats: &Stats,
    block: fn(&OpStats, &[f64]) -> Option<LatencyBlock>,
) -> Named<Option<LatencyBlock>> {
    let p = &c.output.percentiles;
    let rows = c.ops.rows.iter().zip(&stats.ops);
    let mut named: Vec<_> = rows
        .map(|(r, op)| (r.json_key.clone(), block(op, p)))
        .collect();
    named.push(("Totals".into(), block(&stats.totals(), p)));
    Named(named)
}

/// Both latency measures of `stats`, per row and `Totals`: the service time
/// (where it is kept) and the response time; a run's, or the aggregate's
/// (`kvbench.aggregate`).
pub fn measures(c: &Config, stats: &Stats) -> (Named<Option<LatencyBlock>>, Named<LatencyBlock>) {
    let service = blocks(c, stats, |op, p| {
        let h = op.service_us.as_ref()?;
        Some(latency_block(h, op.mean_service_us(), p))
    });
    let response = blocks(c, stats, |op, p| Some(response_block(op, p)));
    let response = response
        .0
        .into_iter()
        .flat_map(|(k, b)| Some((k, b?)))
        .collect();
    (service, Named(response))
}

/// A latency block of `h`, its mean `mean_us` (kept exactly beside the
/// histogram, or from it), its percentiles `percentiles`; also merge's.
pub fn latency_block(h: &Histogram<u64>, mean_us: f64, percentiles: &[f64]) -> LatencyBlock {
    let values = percentiles
        .iter()
        .map(|&p| (percentile_key(p), ms(percentile_us(h, p) as f64)));
    LatencyBlock {
        count: h.len(),
        average_latency_ms: mean_us / 1000.0,
        percentiles_ms: Named(values.collect()),
        max_latency_ms: ms(max_us(h) as f64),
        compressed: CompressedHistogram(compressed(h)),
    }
}

/// Response time: the headline with `--rate`, kept beside service time with
/// `--rate-limiting`; a closed loop's rows have only the service time.
fn response_block(op: &OpStats, percentiles: &[f64]) -> LatencyBlock {
    match &op.response_us {
        Some(h) => latency_block(h, mean_of(op.response_sum_us, op.count), percentiles),
        None => latency_block(&op.latency_us, op.mean_us(), percentiles),
    }
}

/// An exact mean in µs from a sum and a count, 0 for no samples.
fn mean_of(sum_us: u64, count: u64) -> f64 {
    if count == 0 {
        0.0
    } else {
        sum_us as f64 / count as f64
    }
}
