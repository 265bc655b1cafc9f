//! Whether a warm-up has settled: the per-second throughput and p99 of its
//! last seconds tested for a trend ([`trend`]), the watch the master keeps
//! during a warm-up ([`SteadyWatch`]), and what the report says about it
//! ([`Steadiness`]).
//!
//! A series is *steady* when the least-squares slope over the window is
//! either not significant (its 95 % confidence interval contains 0: the
//! noise explains it) or too small to matter (the change it predicts over the
//! whole window is within [`THROUGHPUT_TOLERANCE`] or [`P99_TOLERANCE`] of
//! the window's mean). The second clause keeps a very quiet series from
//! being judged unsteady for a slope nobody could see in its numbers; the
//! first keeps a noisy series from being judged unsteady for a drift its
//! noise hides. A series is thus judged trending only when both hold: the
//! slope is significant *and* large; a steady series with per-second noise
//! of a few percent is judged trending far less often than the interval's
//! 5 %, since its apparent change must also pass the tolerance.

pub mod end;

pub use end::EarlyEnd;

use crate::engine::stats::precision::t_95;

/// The least change over the window, as a share of the mean, that counts as
/// a throughput trend however significant it is.
pub const THROUGHPUT_TOLERANCE: f64 = 0.05;

/// The same for p99, whose seconds are noisier than their throughput.
pub const P99_TOLERANCE: f64 = 0.10;

pub use crate::config::warmup::{
    DEFAULT_MAX_SECS, DEFAULT_WINDOW_SECS, MIN_WINDOW_SECS, WarmupEnd, WarmupPlan,
};

/// The least-squares line through one series, with its slope's interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trend {
    /// The series' mean.
    pub mean: f64,
    /// Change per second.
    pub slope: f64,
    /// Half the 95 % confidence interval of the slope.
    pub half_width: f64,
    /// Seconds in the window.
    pub points: usize,
}

impl Trend {
    /// The change the slope predicts over the whole window, as a share of
    /// the mean (0 for a zero mean).
    pub fn relative_change(&self) -> f64 {
        if self.mean.abs() < f64::EPSILON {
            return 0.0;
        }
        (self.slope * (self.points.saturating_sub(1)) as f64 / self.mean).abs()
    }

    /// No trend beyond the noise, or none worth `tolerance` of the mean.
    pub fn steady(&self, tolerance: f64) -> bool {
        self.slope.abs() <= self.half_width || self.relative_change() <= tolerance
    }
}

/// The least-squares line through `values` (one per second), or `None`
/// with fewer than [`MIN_WINDOW_SECS`] points.
///
/// The slope's standard error is the textbook one for simple linear
/// regression, s / sqrt(Σ(x − x̄)²) with s² = Σ residual² / (n − 2)
/// (Montgomery and Runger, *Applied Statistics and Probability for
/// Engineers*, the chapter on simple linear regression: the t test and
/// confidence interval on the slope), with Student's t at n − 2 degrees of
/// freedom.
pub fn trend(values: &[f64]) -> Option<Trend> {
    let n = values.len();
    if (n as u64) < MIN_WINDOW_SECS {
        return None;
    }
    let nf = n as f64;
    let x_mean = (nf - 1.0) / 2.0;
    let y_mean = values.iter().sum::<f64>() / nf;
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for (i, y) in values.iter().enumerate() {
        let dx = i as f64 - x_mean;
        sxx += dx * dx;
        sxy += dx * (y - y_mean);
    }
    let slope = sxy / sxx;
    let residuals: f64 = values
        .iter()
        .enumerate()
        .map(|(i, y)| {
            let fit = y_mean + slope * (i as f64 - x_mean);
            (y - fit).powi(2)
        })
        .sum();
    let se = (residuals / (nf - 2.0)).sqrt() / sxx.sqrt();
    Some(Trend {
        mean: y_mean,
        slope,
        half_width: t_95(n - 2) * se,
        points: n,
    })
}

/// What the report says about a warm-up's end.
#[derive(Debug, Clone, PartialEq)]
pub struct Steadiness {
    /// How it was to end.
    pub end: WarmupEnd,
    /// Whether its last window was steady.
    pub steady: bool,
    /// `--warmup-time auto`: the completed seconds after which it was found
    /// steady; `None` when it never was (it ran to `--warmup-max`).
    pub steady_after_s: Option<u64>,
    /// The window, seconds.
    pub window_s: u64,
    /// Throughput's trend over the last window (`None`: too few seconds).
    pub throughput: Option<Trend>,
    /// p99's trend over the last window.
    pub p99: Option<Trend>,
}

impl Steadiness {
    /// Known to be still trending: a verdict reason. A fixed warm-up
    /// shorter than its window was not judged (too few seconds), which is
    /// no reason; an `auto` one that reached its maximum unsettled is one.
    pub fn trending(&self) -> bool {
        !self.steady && (self.end == WarmupEnd::Steady || self.throughput.is_some())
    }
}

/// The master's watch over a warm-up's seconds.
#[derive(Debug, Clone)]
pub struct SteadyWatch {
    plan: WarmupPlan,
    ops: Vec<f64>,
    p99_us: Vec<f64>,
    steady_after_s: Option<u64>,
}

impl SteadyWatch {
    /// An empty watch.
    pub fn new(plan: WarmupPlan) -> SteadyWatch {
        SteadyWatch {
            plan,
            ops: Vec::new(),
            p99_us: Vec::new(),
            steady_after_s: None,
        }
    }

    fn window(&self) -> usize {
        (self.plan.window.as_secs().max(MIN_WINDOW_SECS)) as usize
    }

    fn trends(&self) -> (Option<Trend>, Option<Trend>) {
        let w = self.window();
        if self.ops.len() < w {
            return (None, None);
        }
        let from = self.ops.len() - w;
        (trend(&self.ops[from..]), trend(&self.p99_us[from..]))
    }

    fn judged_steady(t: &(Option<Trend>, Option<Trend>)) -> bool {
        match t {
            (Some(ops), Some(p99)) => ops.steady(THROUGHPUT_TOLERANCE) && p99.steady(P99_TOLERANCE),
            _ => false,
        }
    }

    /// One completed second: its replies and p99 (µs). True when the
    /// warm-up is to end now (`auto`, and the window just became steady).
    pub fn second(&mut self, replies: u64, p99_us: u64) -> bool {
        self.ops.push(replies as f64);
        self.p99_us.push(p99_us as f64);
        if self.plan.end != WarmupEnd::Steady || self.steady_after_s.is_some() {
            return false;
        }
        if Self::judged_steady(&self.trends()) {
            self.steady_after_s = Some(self.ops.len() as u64);
            return true;
        }
        false
    }

    /// The verdict over the seconds seen.
    pub fn finish(&self) -> Steadiness {
        let trends = self.trends();
        Steadiness {
            end: self.plan.end,
            steady: self.steady_after_s.is_some() || Self::judged_steady(&trends),
            steady_after_s: self.steady_after_s,
            window_s: self.window() as u64,
            throughput: trends.0,
            p99: trends.1,
        }
    }
}

#[cfg(test)]
mod tests;
