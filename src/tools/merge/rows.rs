//! The merged sums written back in memtier's layout: an op row's rates over
//! the common window, its mean from the exact latency sum, its percentiles,
//! minimum, maximum and distribution from the merged histogram, and its
//! `Time-Serie` from the merged seconds — the same keys `kvbench` writes for
//! one machine (see `crate::report::json`), so readers need no change.

use serde_json::Value;

use crate::engine::stats::{max_us, percentile_us};
use crate::report::distribution;
use crate::report::json::{compressed, ms, percentile_key, round};
use crate::report::model::histogram::{CompressedHistogram, HistogramLog};
use crate::report::model::named::Named;
use crate::report::model::section::{DistributionPoint, OpRow, Percentiles, Second};
use crate::tools::merge::combine::RowSum;

/// memtier's row for WAIT, which kvbench never sends.
pub const WAITS: &str = "Waits";
/// The sum of the other rows.
pub const TOTALS: &str = "Totals";

/// The shape every merged section takes, read from the first file.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// `(row, command)`: `("Sets", "SET")`, in the file's order.
    pub rows: Vec<(String, String)>,
    /// The printed percentiles (`--print-percentiles`).
    pub percentiles: Vec<f64>,
    /// The rows carry `MOVED/sec` and `ASK/sec`.
    pub cluster: bool,
    /// The section has memtier's `Waits` row.
    pub waits: bool,
    /// The section has the latency distributions (no `--hide-histogram`).
    pub distributions: bool,
}

impl Layout {
    /// The percentiles of `kvbench.config.percentiles`, else those the
    /// row printed.
    pub fn percentiles_of(config: Option<&Value>, row: Option<&OpRow>) -> Vec<f64> {
        if let Some(list) = config.and_then(Value::as_array) {
            let ps: Vec<f64> = list.iter().filter_map(Value::as_f64).collect();
            if !ps.is_empty() {
                return ps;
            }
        }
        row.map(|r| {
            r.percentiles
                .values_ms
                .keys()
                .filter_map(|k| k.strip_prefix('p')?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
    }
}

/// One op row of `duration_s`; `series`: write the merged seconds (an
/// aggregate of runs has none).
pub fn op_row(
    sum: &RowSum,
    duration_s: f64,
    layout: &Layout,
    connection_errors: u64,
    series: bool,
) -> OpRow {
    let h = &sum.histogram;
    let t = &sum.totals;
    let secs = duration_s.max(1e-9);
    let per_sec = |n: f64| round(n / secs, 2);
    let kb = |bytes: u64| round(bytes as f64 / 1024.0 / secs, 2);
    let mut values = Named::default();
    for &p in &layout.percentiles {
        values
            .0
            .push((percentile_key(p), ms(percentile_us(h, p) as f64)));
    }
    let mean = ms(sum.mean_us());
    OpRow {
        count: t.count,
        ops_per_sec: per_sec(t.count as f64),
        hits_per_sec: per_sec(t.hits as f64),
        misses_per_sec: per_sec(t.misses as f64),
        moved_per_sec: layout.cluster.then(|| per_sec(sum.moved)),
        ask_per_sec: layout.cluster.then(|| per_sec(sum.ask)),
        connection_errors_per_sec: per_sec(connection_errors as f64),
        connection_errors,
        latency_ms: mean,
        average_latency_ms: mean,
        accumulated_latency_ms: (sum.latency_sum_us / 1000.0).round() as u64,
        min_latency_ms: if h.is_empty() {
            0.0
        } else {
            ms(h.min() as f64)
        },
        max_latency_ms: ms(max_us(h) as f64),
        kb_per_sec: kb(t.bytes_rx + t.bytes_tx),
        kb_per_sec_rx_tx: kb(t.bytes_rx + t.bytes_tx),
        kb_per_sec_rx: kb(t.bytes_rx),
        kb_per_sec_tx: kb(t.bytes_tx),
        time_serie: if series {
            time_serie(sum, layout)
        } else {
            Named::default()
        },
        percentiles: Percentiles {
            values_ms: values,
            histogram: Some(HistogramLog {
                compressed: CompressedHistogram(compressed(h)),
            }),
        },
    }
}

/// The merged seconds. Each second's `Ops/sec` is its replies, as a single
/// machine writes it; its latencies come from the merged histogram of the
/// second, and are left out for a second without replies, and for every
/// second when some machine's histograms of the seconds are missing.
fn time_serie(sum: &RowSum, layout: &Layout) -> Named<Second> {
    let mut out = Named::default();
    for (index, s) in &sum.seconds {
        let h = &s.histogram;
        let with_latency = s.count > 0;
        let mut second = Second {
            bytes_rx: Some(s.bytes_rx),
            bytes_tx: Some(s.bytes_tx),
            count: s.count,
            ops_per_sec: Some(s.count as f64),
            average_latency_ms: with_latency.then(|| round(s.latency_sum_ms / s.count as f64, 3)),
            accumulated_latency_ms: with_latency.then(|| s.latency_sum_ms.round() as u64),
            min_latency_ms: None,
            max_latency_ms: None,
            percentiles_ms: Named::default(),
        };
        if with_latency && sum.seconds_complete && !h.is_empty() {
            second.min_latency_ms = Some(ms(h.min() as f64));
            second.max_latency_ms = Some(ms(max_us(h) as f64));
            for &p in &layout.percentiles {
                second
                    .percentiles_ms
                    .0
                    .push((percentile_key(p), ms(percentile_us(h, p) as f64)));
            }
        }
        out.0.push((index.to_string(), second));
    }
    out
}

/// memtier's distribution of a merged histogram.
pub fn distribution_points(sum: &RowSum) -> Vec<DistributionPoint> {
    distribution(&sum.histogram)
        .into_iter()
        .map(|(at_most_ms, percent)| DistributionPoint {
            at_most_ms: round(at_most_ms, 3),
            percent: round(percent, 3),
        })
        .collect()
}

/// The `Waits` row: kvbench sends no WAIT, so every count is 0; its seconds
/// are those of the run, counts only, as a single machine writes them.
pub fn waits_row(seconds_of: &RowSum, duration_s: f64, layout: &Layout, series: bool) -> OpRow {
    let mut empty = RowSum::new();
    if series {
        for k in seconds_of.seconds.keys() {
            empty
                .seconds
                .insert(*k, crate::tools::merge::combine::SecondSum::zero());
        }
    }
    op_row(&empty, duration_s, layout, 0, series)
}
