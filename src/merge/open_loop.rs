//! `open_loop` of a merged run (`--rate`, `--rate-limiting`): the asked and
//! achieved rates add, each latency block (service time, response time, the
//! never-sent requests' wait and schedule lag, per row) merges its histograms and recomputes its
//! percentiles, the backlog adds second by second, and the rate counts as
//! met only when every machine met its own.

use hdrhistogram::Histogram;

use crate::merge::combine::empty_histogram;
use crate::report::json::{compressed, ms, percentile_key, round};
use crate::report::model::histogram::{CompressedHistogram, HistogramError};
use crate::report::model::kvbench::{LatencyBlock, OpenLoop};
use crate::report::model::named::Named;
use crate::stats::{max_us, percentile_us};

/// One block over the machines.
fn block(blocks: &[&LatencyBlock], percentiles: &[f64]) -> Result<LatencyBlock, HistogramError> {
    let mut h: Histogram<u64> = empty_histogram();
    let mut count = 0u64;
    let mut sum_ms = 0.0;
    for b in blocks {
        let _ = h.add(&b.compressed.decode()?);
        count += b.count;
        sum_ms += b.average_latency_ms * b.count as f64;
    }
    Ok(LatencyBlock {
        count,
        average_latency_ms: if count == 0 {
            0.0
        } else {
            round(sum_ms / count as f64, 3)
        },
        max_latency_ms: ms(max_us(&h) as f64),
        compressed: CompressedHistogram(compressed(&h)),
        percentiles_ms: Named(
            percentiles
                .iter()
                .map(|&p| (percentile_key(p), ms(percentile_us(&h, p) as f64)))
                .collect(),
        ),
    })
}

/// The blocks of every row, by the first machine's rows.
fn rows(
    all: &[&OpenLoop],
    pick: fn(&OpenLoop) -> &Named<LatencyBlock>,
    percentiles: &[f64],
) -> Result<Named<LatencyBlock>, HistogramError> {
    let mut out = Named::default();
    for key in pick(all[0]).keys() {
        let blocks: Vec<&LatencyBlock> = all.iter().filter_map(|o| pick(o).get(key)).collect();
        out.0.push((key.to_string(), block(&blocks, percentiles)?));
    }
    Ok(out)
}

/// The merged `open_loop`; `None` unless every machine ran open loop.
/// `achieved_ops_per_sec` is the merged run's rate.
pub fn merge(
    all: &[OpenLoop],
    achieved_ops_per_sec: f64,
    percentiles: &[f64],
) -> Result<Option<OpenLoop>, HistogramError> {
    let Some(first) = all.first() else {
        return Ok(None);
    };
    let refs: Vec<&OpenLoop> = all.iter().collect();
    let lags: Vec<&LatencyBlock> = all.iter().map(|o| &o.schedule_lag).collect();
    let mut backlog: Vec<u64> = Vec::new();
    for o in all {
        if backlog.len() < o.backlog_per_second.len() {
            backlog.resize(o.backlog_per_second.len(), 0);
        }
        for (a, b) in backlog.iter_mut().zip(&o.backlog_per_second) {
            *a += b;
        }
    }
    Ok(Some(OpenLoop {
        target_ops_per_sec: round(all.iter().map(|o| o.target_ops_per_sec).sum(), 2),
        arrival: first.arrival,
        achieved_ops_per_sec: round(achieved_ops_per_sec, 2),
        met: all.iter().all(|o| o.met),
        never_sent: all.iter().map(|o| o.never_sent).sum(),
        backlog_per_second: backlog,
        busiest_thread_cpu_percent: all
            .iter()
            .map(|o| o.busiest_thread_cpu_percent)
            .fold(0.0, f64::max),
        schedule_lag: block(&lags, percentiles)?,
        headline: first.headline,
        service_time: rows(&refs, |o| &o.service_time, percentiles)?,
        response_time: rows(&refs, |o| &o.response_time, percentiles)?,
        never_sent_wait: rows(&refs, |o| &o.never_sent_wait, percentiles)?,
    }))
}
