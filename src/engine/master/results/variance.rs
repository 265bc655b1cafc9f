//! Run-to-run variance of throughput over `-x` runs.
//!
//! Identical runs differ (±12 % between five identical redis-benchmark runs is a
//! measured example). The spread tells which differences between configurations
//! are real: one smaller than the spread of identical runs is noise.

use crate::engine::stats::precision::{median_interval, t_95};

/// Above this max/min ratio the runs disagree enough to say so in the report.
pub const NOISY_MAX_OVER_MIN: f64 = 1.10;

/// Summary of a set of per-run rates.
#[derive(Debug, Clone, PartialEq)]
pub struct Variance {
    /// Each run's rate, in run order.
    pub rates: Vec<f64>,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median.
    pub median: f64,
    /// Lowest.
    pub min: f64,
    /// Highest.
    pub max: f64,
    /// Sample standard deviation (n − 1).
    pub stddev: f64,
    /// Half-width of the 95 % confidence interval of the mean (Student's t).
    pub ci95_half_width: f64,
    /// The median's nonparametric 95 % interval (six runs or more).
    pub median_ci95: Option<(f64, f64)>,
}

impl Variance {
    /// The summary of two or more rates; `None` for fewer.
    pub fn of(rates: &[f64]) -> Option<Variance> {
        let n = rates.len();
        if n < 2 {
            return None;
        }
        let mean = rates.iter().sum::<f64>() / n as f64;
        let stddev =
            (rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
        let mut sorted = rates.to_vec();
        sorted.sort_by(f64::total_cmp);
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        let t = t_95(n - 1);
        Some(Variance {
            rates: rates.to_vec(),
            mean,
            median,
            min: sorted[0],
            max: sorted[n - 1],
            stddev,
            ci95_half_width: t * stddev / (n as f64).sqrt(),
            median_ci95: median_interval(rates),
        })
    }

    /// Highest over lowest rate (1.0 when the lowest is 0).
    pub fn max_over_min(&self) -> f64 {
        if self.min > 0.0 {
            self.max / self.min
        } else {
            1.0
        }
    }

    /// Coefficient of variation: standard deviation over mean.
    pub fn cv(&self) -> f64 {
        if self.mean > 0.0 {
            self.stddev / self.mean
        } else {
            0.0
        }
    }

    /// True when the runs disagree by more than [`NOISY_MAX_OVER_MIN`].
    pub fn is_noisy(&self) -> bool {
        self.max_over_min() > NOISY_MAX_OVER_MIN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summarizes_the_blog_measurement() {
        // Five identical redis-benchmark runs: 116k, 122k, 111k, 109k, 119k.
        let v = Variance::of(&[116.0, 122.0, 111.0, 109.0, 119.0]).unwrap();
        assert_eq!(v.median, 116.0);
        assert!((v.max_over_min() - 122.0 / 109.0).abs() < 1e-12);
        assert!((v.mean - 115.4).abs() < 1e-9);
        // s = 5.413, t(4) = 2.776: half-width = 2.776 × 5.413 / √5 = 6.72.
        assert!(
            (v.ci95_half_width - 6.72).abs() < 0.01,
            "{}",
            v.ci95_half_width
        );
        assert!(v.is_noisy());
    }

    #[test]
    fn needs_two_runs_and_handles_even_counts() {
        assert!(Variance::of(&[1.0]).is_none());
        let v = Variance::of(&[1.0, 3.0]).unwrap();
        assert_eq!(v.median, 2.0);
        assert!(!Variance::of(&[100.0, 105.0]).unwrap().is_noisy());
    }
}
