//! memtier's sections built from a [`results::Section`]: the `Runtime`, one
//! op row per row of the op table (and memtier's empty `Waits` for the
//! SET/GET pair), `Totals`, and the latency distributions, with memtier's
//! keys, order and rounding.

use std::time::Duration;

use crate::config::Config;
use crate::engine::results::{self, rate};
use crate::engine::stats::series::OpSecond;
use crate::engine::stats::{OpStats, max_us, percentile_us};
use crate::report::distribution;
use crate::report::json::{compressed, connection_errors, millis, ms, percentile_key, round};
use crate::report::model::histogram::{CompressedHistogram, HistogramLog};
use crate::report::model::named::Named;
use crate::report::model::section::{
    DistributionPoint, OpRow, Percentiles, Runtime, Second, Section,
};

/// One memtier section of `s`.
pub fn section(s: &results::Section<'_>, c: &Config) -> Section {
    let runtime = Runtime {
        start_time_ms: millis(s.started_wall),
        finish_time_ms: millis(s.finished_wall),
        total_duration_ms: s.duration.as_millis() as u64,
        time_unit: crate::report::model::section::TIME_UNIT.into(),
        interrupted: s.interrupted,
    };
    let shape = RowShape {
        duration: s.duration,
        cluster: c.cluster.is_some(),
        percentiles: &c.output.percentiles,
    };
    let mut rows = Vec::new();
    for (i, (r, op)) in c.ops.rows.iter().zip(&s.stats.ops).enumerate() {
        let series: Vec<(u64, &OpSecond)> = s
            .series
            .iter()
            .filter_map(|x| x.ops.get(i).map(|o| (x.second, o)))
            .collect();
        rows.push((r.json_key.clone(), shape.row(op, &series, 0)));
    }
    if c.ops.default_pair
        && c.ops.pair.wait.is_none()
        && let Ok(waits) = OpStats::new()
    {
        // Without --wait-ratio kvbench sends no WAIT; the row is kept because memtier readers expect
        // it, with memtier's empty seconds (counts only).
        let empty = OpSecond::from_stats(&waits, &[]);
        let seconds: Vec<(u64, &OpSecond)> = s.series.iter().map(|x| (x.second, &empty)).collect();
        rows.push(("Waits".into(), shape.row(&waits, &seconds, 0)));
    }
    let totals = s.stats.totals();
    let series: Vec<(u64, &OpSecond)> = s.series.iter().map(|x| (x.second, &x.totals)).collect();
    let broken = connection_errors(&s.stats.errors);
    rows.push(("Totals".into(), shape.row(&totals, &series, broken)));
    let mut distributions = Vec::new();
    // memtier leaves the distributions out with --hide-histogram.
    if !c.output.hide_histogram {
        for (r, op) in c.ops.rows.iter().zip(&s.stats.ops) {
            let points = distribution(&op.latency_us)
                .into_iter()
                .map(|(ms, percent)| DistributionPoint {
                    at_most_ms: round(ms, 3),
                    percent: round(percent, 3),
                })
                .collect();
            distributions.push((r.name_key.clone(), points));
        }
        if c.ops.default_pair && c.ops.pair.wait.is_none() {
            let all = DistributionPoint {
                at_most_ms: 0.0,
                percent: 100.0,
            };
            distributions.push(("WAIT".into(), vec![all]));
        }
    }
    Section {
        runtime,
        rows: Named(rows),
        distributions: Named(distributions),
    }
}

/// What every op row of a section shares: the section's time, whether the
/// row carries memtier's cluster-mode `MOVED/sec` and `ASK/sec`, and the
/// printed percentiles.
struct RowShape<'a> {
    duration: Duration,
    cluster: bool,
    percentiles: &'a [f64],
}

impl RowShape<'_> {
    fn row(&self, op: &OpStats, series: &[(u64, &OpSecond)], connection_errors: u64) -> OpRow {
        let h = &op.latency_us;
        let values_ms = self
            .percentiles
            .iter()
            .map(|&p| (percentile_key(p), ms(percentile_us(h, p) as f64)))
            .collect();
        let secs = self.duration.as_secs_f64().max(1e-9);
        let kb = |bytes: u64| round(bytes as f64 / 1024.0 / secs, 2);
        let per_sec = |n: u64| round(rate(n, self.duration), 2);
        OpRow {
            count: op.count,
            ops_per_sec: per_sec(op.count),
            hits_per_sec: per_sec(op.hits),
            misses_per_sec: per_sec(op.misses),
            moved_per_sec: self.cluster.then(|| per_sec(op.moved)),
            ask_per_sec: self.cluster.then(|| per_sec(op.ask)),
            connection_errors_per_sec: per_sec(connection_errors),
            connection_errors,
            latency_ms: ms(op.mean_us()),
            average_latency_ms: ms(op.mean_us()),
            accumulated_latency_ms: (op.latency_sum_us as f64 / 1000.0).round() as u64,
            min_latency_ms: if h.is_empty() {
                0.0
            } else {
                ms(h.min() as f64)
            },
            max_latency_ms: ms(max_us(h) as f64),
            kb_per_sec: kb(op.bytes_rx + op.bytes_tx),
            kb_per_sec_rx_tx: kb(op.bytes_rx + op.bytes_tx),
            kb_per_sec_rx: kb(op.bytes_rx),
            kb_per_sec_tx: kb(op.bytes_tx),
            time_serie: time_serie(series),
            percentiles: Percentiles {
                values_ms: Named(values_ms),
                histogram: Some(HistogramLog {
                    compressed: CompressedHistogram(compressed(h)),
                }),
            },
        }
    }
}

/// The per-second series. Each second's Ops/sec is its replies over the whole
/// second, the partial last one included (the end of the run and the drain):
/// scaling a few replies of a millisecond up to a second would invent a rate.
fn time_serie(series: &[(u64, &OpSecond)]) -> Named<Second> {
    let seconds = series.iter().map(|(second, s)| {
        // memtier writes no latency for a second without replies: a 0.0
        // would read as an impossibly fast second.
        let replied = s.count > 0;
        let percentiles_ms = if replied {
            let keyed = s.percentiles_us.iter();
            Named(
                keyed
                    .map(|(p, v)| (percentile_key(*p), ms(*v as f64)))
                    .collect(),
            )
        } else {
            Named::default()
        };
        let second_of = Second {
            bytes_rx: Some(s.bytes_rx),
            bytes_tx: Some(s.bytes_tx),
            count: s.count,
            ops_per_sec: Some(s.count as f64),
            average_latency_ms: replied.then(|| ms(s.mean_us)),
            accumulated_latency_ms: replied.then(|| (s.accumulated_us / 1000.0).round() as u64),
            min_latency_ms: replied.then(|| ms(s.min_us as f64)),
            max_latency_ms: replied.then(|| ms(s.max_us as f64)),
            percentiles_ms,
        };
        (second.to_string(), second_of)
    });
    Named(seconds.collect())
}
