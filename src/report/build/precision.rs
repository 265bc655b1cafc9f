//! `runs[i].precision` from a measured run's intervals: ops/sec, and each
//! printed percentile of each op row and of `Totals`, in ms.

use crate::config::Config;
use crate::engine::master::results::PhaseResult;
use crate::engine::master::results::Results;
use crate::engine::stats::precision::{Interval, PhasePrecision};
use crate::report::json::percentile_key;
use crate::report::model::named::Named;
use crate::report::model::precision::{Figure, MedianFigure, MedianValue, Precision, RunsAuto};
use crate::report::model::section::TOTALS_ROW;

/// `precision` of `p`; `None` for a phase without intervals.
pub fn precision(c: &Config, p: &PhaseResult) -> Option<Precision> {
    let judged = p.precision.as_ref()?;
    let names = c.ops.rows.iter().map(|r| r.json_key.as_str());
    Some(of_rows(names, judged))
}

/// `precision` of the intervals `judged`, whose op rows are `names` (the
/// last of `judged`'s rows is every row together, `Totals`).
pub fn of_rows<'a>(names: impl Iterator<Item = &'a str>, judged: &PhasePrecision) -> Precision {
    let latency = names.chain([TOTALS_ROW]).zip(&judged.latency_us);
    let latency_ms = latency.map(|(row, percentiles)| {
        let each = percentiles
            .iter()
            .map(|(p, i)| (percentile_key(*p), i.map(|i| figure(i, 1e-3))));
        (row.to_string(), Named(each.collect()))
    });
    Precision {
        seconds: judged.seconds,
        ops_per_sec: judged.ops_per_sec.map(|i| figure(i, 1.0)),
        latency_ms: Named(latency_ms.collect()),
        met_after_s: judged.met_after_s,
    }
}

/// `kvbench.runs_auto` of `r`; `None` without `-x auto`.
pub fn runs_auto(c: &Config, r: &Results) -> Option<RunsAuto> {
    let plan = &c.precision;
    if !plan.runs_auto {
        return None;
    }
    let figures = plan.targets.iter().map(|t| {
        // A percentile's median in ms, as the report prints it.
        let scale = match t.figure {
            crate::config::precision::Figure::OpsPerSec => 1.0,
            crate::config::precision::Figure::Percentile(_) => 1e-3,
        };
        let median = r.median_of(t).map(|m| MedianValue {
            value: m.median * scale,
            low: m.low * scale,
            high: m.high * scale,
            relative_percent: m.relative_percent(),
        });
        MedianFigure {
            figure: t.name(),
            within_percent: t.within_percent,
            median,
        }
    });
    Some(RunsAuto {
        max_runs: c.run_count,
        met_after_runs: r.runs_met_after,
        figures: figures.collect(),
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
