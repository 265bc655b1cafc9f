//! The median run's figures over the completed runs, each with its
//! nonparametric 95 % interval: what `-x auto` repeats runs for, and what
//! the report says of the runs (docs/precision.md).

use crate::config::precision::{Figure, Target};
use crate::engine::master::results::Results;
use crate::engine::stats::percentile_us;
use crate::engine::stats::precision::median_interval;

/// A figure's median over the runs and its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MedianInterval {
    /// The median run's figure (µs for a percentile).
    pub median: f64,
    /// The interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
}

impl MedianInterval {
    /// Half the interval's width, % of the median.
    pub fn relative_percent(&self) -> f64 {
        if self.median == 0.0 {
            0.0
        } else {
            50.0 * (self.high - self.low) / self.median
        }
    }
}

impl Results {
    /// Each completed run's figure of `target` (a percentile of its op, or
    /// of every op together), in run order.
    pub fn run_figures(&self, target: &Target) -> Vec<f64> {
        let runs = self.runs.iter().filter(|r| !r.interrupted);
        runs.map(|r| match (target.figure, &target.op) {
            (Figure::OpsPerSec, _) => r.ops_per_sec(),
            (Figure::Percentile(p), Some(op)) => r
                .stats
                .ops
                .get(op.row)
                .map_or(0.0, |o| percentile_us(&o.latency_us, p) as f64),
            (Figure::Percentile(p), None) => percentile_us(&r.stats.totals().latency_us, p) as f64,
        })
        .collect()
    }

    /// The median of `target`'s figure over the completed runs and its
    /// interval; `None` under six runs.
    pub fn median_of(&self, target: &Target) -> Option<MedianInterval> {
        let mut values = self.run_figures(target);
        let (low, high) = median_interval(&values)?;
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let median = if n % 2 == 1 {
            values[n / 2]
        } else {
            (values[n / 2 - 1] + values[n / 2]) / 2.0
        };
        Some(MedianInterval { median, low, high })
    }

    /// Whether every target is met by the median run's interval.
    pub fn medians_meet(&self, targets: &[Target]) -> bool {
        targets.iter().all(|t| {
            self.median_of(t)
                .is_some_and(|m| m.relative_percent() <= t.within_percent)
        })
    }
}
