//! `warmup.steadiness`: the warm-up's trend test as the JSON writes it.

use crate::config::Config;
use crate::engine::master::results::PhaseResult;
use crate::engine::master::warmup::{P99_TOLERANCE, THROUGHPUT_TOLERANCE, Trend, WarmupEnd};
use crate::report::json::round;
use crate::report::model::warmup::{Steadiness, TrendSummary, WarmupMode};

/// The warm-up's; `None` for other phases.
pub fn steadiness(c: &Config, p: &PhaseResult) -> Option<Steadiness> {
    let s = p.steadiness.as_ref()?;
    let auto = s.end == WarmupEnd::Steady;
    Some(Steadiness {
        mode: if auto {
            WarmupMode::Auto
        } else {
            WarmupMode::Fixed
        },
        steady: s.steady,
        judged: s.throughput.is_some() || s.steady,
        steady_after_s: s.steady_after_s,
        max_s: auto.then(|| round(c.warmup.as_secs_f64(), 3)),
        window_s: s.window_s,
        throughput: s.throughput.map(|t| summary(t, THROUGHPUT_TOLERANCE)),
        p99_us: s.p99.map(|t| summary(t, P99_TOLERANCE)),
    })
}

fn summary(t: Trend, tolerance: f64) -> TrendSummary {
    TrendSummary {
        mean: round(t.mean, 2),
        slope_per_s: round(t.slope, 3),
        slope_ci95_half_width: round(t.half_width, 3),
        change_percent: round(100.0 * t.relative_change(), 2),
        steady: t.steady(tolerance),
    }
}
