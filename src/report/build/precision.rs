//! `runs[i].precision` from a measured run's intervals: ops/sec, and each
//! printed percentile of each op row and of `Totals`, in ms.

use crate::config::Config;
use crate::engine::master::results::PhaseResult;
use crate::engine::stats::precision::Interval;
use crate::report::json::percentile_key;
use crate::report::model::named::Named;
use crate::report::model::precision::{Figure, Precision};
use crate::report::model::section::TOTALS_ROW;

/// `precision` of `p`; `None` for a phase without intervals.
pub fn precision(c: &Config, p: &PhaseResult) -> Option<Precision> {
    let judged = p.precision.as_ref()?;
    let names = c.ops.rows.iter().map(|r| r.json_key.as_str());
    let latency = names.chain([TOTALS_ROW]).zip(&judged.latency_us);
    let latency_ms = latency.map(|(row, percentiles)| {
        let each = percentiles
            .iter()
            .map(|(p, i)| (percentile_key(*p), i.map(|i| figure(i, 1e-3))));
        (row.to_string(), Named(each.collect()))
    });
    Some(Precision {
        seconds: judged.seconds,
        ops_per_sec: judged.ops_per_sec.map(|i| figure(i, 1.0)),
        latency_ms: Named(latency_ms.collect()),
        met_after_s: judged.met_after_s,
    })
}

/// `i` in the figure's unit (`scale` from the interval's).
fn figure(i: Interval, scale: f64) -> Figure {
    Figure {
        value: i.value * scale,
        half_width: i.half_width * scale,
        relative_percent: i.relative() * 100.0,
        batch_s: i.batch_s,
        batches: i.batches as u64,
    }
}
