//! `kvbench.warmup.steadiness`: whether the warm-up's per-second throughput
//! and p99 had settled at its end, and with `--warmup-time auto` how long it
//! took (docs/output.md).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How the warm-up was to end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WarmupMode {
    /// `--warmup-time SECS`.
    Fixed,
    /// `--warmup-time auto`.
    Auto,
}

/// `warmup.steadiness`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "steadiness")]
pub struct Steadiness {
    /// `fixed` or `auto`.
    pub mode: WarmupMode,
    /// Neither throughput nor p99 trended beyond the noise over the last
    /// `window_s` seconds.
    pub steady: bool,
    /// False when the warm-up had fewer seconds than its window: nothing
    /// was judged (no verdict reason either).
    pub judged: bool,
    /// `auto`: the seconds after which it was found steady (how long it
    /// took); `null` when it reached `--warmup-max` unsettled, and for `fixed`.
    pub steady_after_s: Option<u64>,
    /// `auto`: `--warmup-max`, seconds; `null` for `fixed`.
    pub max_s: Option<f64>,
    /// `--warmup-window`: the last seconds tested for a trend.
    pub window_s: u64,
    /// Ops per second over the window; `null` when not judged.
    pub throughput: Option<TrendSummary>,
    /// p99 (µs) over the window; `null` when not judged.
    pub p99_us: Option<TrendSummary>,
}

/// A least-squares line through one series of the window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TrendSummary {
    /// The window's mean.
    pub mean: f64,
    /// Change per second.
    pub slope_per_s: f64,
    /// Half the slope's 95 % confidence interval.
    pub slope_ci95_half_width: f64,
    /// The change the slope predicts over the window, % of the mean.
    pub change_percent: f64,
    /// Within the noise (the interval holds 0) or within the tolerance.
    pub steady: bool,
}
