//! The merged sums given to the one section builder
//! ([`crate::report::build::rows`]) that writes a single machine's sections:
//! a row's rates over the common window, its mean from the exact latency
//! sum, its percentiles, minimum, maximum and distribution from the merged
//! histogram, and its `Time-Serie` from the merged seconds — the same keys
//! and rounding as one machine's file, so readers need no change.

use serde_json::Value;

use crate::report::build::rows::{RowSums, SecondLatency, SecondSums};
use crate::report::model::section::OpRow;
use crate::tools::merge::combine::RowSum;

/// The percentiles of `kvbench.config.percentiles`, else those the row
/// printed.
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

/// `sum` as the builder takes it, its rates over `over_s`; `series`: with
/// its seconds (an aggregate of runs has none). A second's latencies beyond
/// their sum are known only when every machine added brought its histogram
/// of the second.
pub fn sums(sum: &RowSum, over_s: f64, series: bool) -> RowSums<'_> {
    let seconds = sum.seconds.iter().filter(|_| series);
    let seconds = seconds.map(|(index, s)| {
        let second = SecondSums {
            count: s.count,
            bytes_rx: s.bytes_rx,
            bytes_tx: s.bytes_tx,
            latency_sum_us: s.latency_sum_us,
            latency: if sum.seconds_complete {
                SecondLatency::Histogram(&s.histogram)
            } else {
                SecondLatency::Unknown
            },
        };
        (*index, second)
    });
    let t = &sum.totals;
    RowSums {
        count: t.count,
        hits: t.hits,
        misses: t.misses,
        moved: sum.moved,
        ask: sum.ask,
        bytes_rx: t.bytes_rx,
        bytes_tx: t.bytes_tx,
        latency_sum_us: sum.latency_sum_us,
        histogram: &sum.histogram,
        over_s,
        seconds: seconds.collect(),
    }
}
