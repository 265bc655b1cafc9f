//! The bounds every count and duration flag shares: at least one, and seconds
//! that are finite, not negative (or not zero) and at most [`MAX_SECONDS`],
//! each refusal naming the flag and showing the value as typed.

use std::time::Duration;

use crate::config::MAX_SECONDS;
use crate::error::UsageError;

/// A count flag that must be at least 1.
pub(super) fn at_least_one(flag: &str, value: u32) -> Result<usize, UsageError> {
    if value == 0 {
        return Err(UsageError::new(
            flag,
            format!("must be at least 1 (got 0); use {flag} 1"),
        ));
    }
    Ok(value as usize)
}

/// A seconds flag: finite, at most [`MAX_SECONDS`], above 0 unless `zero_ok`.
pub(super) fn seconds(flag: &str, secs: f64, zero_ok: bool) -> Result<Duration, UsageError> {
    if secs > MAX_SECONDS {
        return Err(UsageError::new(
            flag,
            format!(
                "must be at most {MAX_SECONDS} seconds, about 116 days (got {})",
                shown(secs)
            ),
        ));
    }
    if !secs.is_finite() || secs < 0.0 || (secs == 0.0 && !zero_ok) {
        let floor = if zero_ok { "0 or more" } else { "more than 0" };
        return Err(UsageError::new(
            flag,
            format!("must be {floor} seconds (got {})", shown(secs)),
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// A number as typed, in exponent form when huge: `{}` writes 1e300 with
/// 300 zeros, which would make a usage error hundreds of characters long.
pub(super) fn shown(value: f64) -> String {
    if value.abs() < 1e12 {
        value.to_string()
    } else {
        format!("{value:e}")
    }
}
