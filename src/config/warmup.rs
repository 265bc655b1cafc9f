//! `--warmup-time` (seconds or `auto`), `--warmup-max` and `--warmup-window`
//! turned into the warm-up's length and its [`WarmupPlan`], which the
//! engine's trend test (`engine::master::warmup`) follows.

use std::time::Duration;

use crate::cli::{Args, SecsOrAuto};
use crate::config::bounds::seconds;
use crate::error::UsageError;

/// The fewest seconds a trend is tested over: with fewer points the
/// slope's interval says nothing.
pub const MIN_WINDOW_SECS: u64 = 4;

/// `--warmup-window` when not given, seconds.
pub const DEFAULT_WINDOW_SECS: u64 = 10;

/// `--warmup-max` when not given, seconds: three times the whitepaper's
/// 60 s per step is more than most caches need, and still bounds a warm-up
/// that never settles.
pub const DEFAULT_MAX_SECS: u64 = 180;

/// How a warm-up ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarmupEnd {
    /// At `--warmup-time` seconds, then checked for a trend.
    Fixed,
    /// `--warmup-time auto`: as soon as the last `window` seconds are
    /// steady, at most `Config::warmup` (`--warmup-max`) seconds.
    Steady,
}

/// The warm-up options: how it ends and the window its trend is judged on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarmupPlan {
    /// Fixed or until steady.
    pub end: WarmupEnd,
    /// `--warmup-window`: the seconds a trend is tested over.
    pub window: Duration,
}

impl Default for WarmupPlan {
    fn default() -> Self {
        WarmupPlan {
            end: WarmupEnd::Fixed,
            window: Duration::from_secs(DEFAULT_WINDOW_SECS),
        }
    }
}

/// The warm-up's length (with `auto`, its maximum) and its plan.
pub(super) fn build_warmup(a: &Args) -> Result<(Duration, WarmupPlan), UsageError> {
    let window_s = a.warmup_window.unwrap_or(DEFAULT_WINDOW_SECS);
    if window_s < MIN_WINDOW_SECS {
        return Err(UsageError::new(
            "--warmup-window",
            format!(
                "must be at least {MIN_WINDOW_SECS} seconds (got {window_s}): a trend over fewer seconds says nothing; use --warmup-window {MIN_WINDOW_SECS}"
            ),
        ));
    }
    let window = Duration::from_secs(window_s);
    match a.warmup_time.unwrap_or(SecsOrAuto::Secs(0.0)) {
        SecsOrAuto::Secs(secs) => {
            if a.warmup_max.is_some() {
                return Err(UsageError::new(
                    "--warmup-max",
                    "bounds --warmup-time auto only; give --warmup-time auto, or drop --warmup-max",
                ));
            }
            let length = seconds("--warmup-time", secs, true)?;
            let plan = WarmupPlan {
                end: WarmupEnd::Fixed,
                window,
            };
            Ok((length, plan))
        }
        SecsOrAuto::Auto => {
            if a.start_at.is_some() {
                return Err(UsageError::new(
                    "--warmup-time",
                    "auto cannot be combined with --start-at: the runs' planned start needs a warm-up of known length; give --warmup-time in seconds",
                ));
            }
            let max = seconds(
                "--warmup-max",
                a.warmup_max.unwrap_or(DEFAULT_MAX_SECS as f64),
                false,
            )?;
            if max < window {
                return Err(UsageError::new(
                    "--warmup-max",
                    format!(
                        "must be at least --warmup-window ({window_s} s): a warm-up shorter than its window is never found steady; raise --warmup-max or lower --warmup-window"
                    ),
                ));
            }
            let plan = WarmupPlan {
                end: WarmupEnd::Steady,
                window,
            };
            Ok((max, plan))
        }
    }
}
