//! Validation of what a run sends: the key space (range, patterns and their
//! parameters) and the value sizes. Split from `config.rs` to keep each file to
//! one concern; the rules and messages are the same kind: name the flag, say the fix.

use crate::cli::{Args, NumList};
use crate::config::KeySpace;
use crate::error::UsageError;
use crate::workload::keys::memtier::gaussian_defaults;
use crate::workload::keys::{
    KeyPattern, KeyRange, MAX_ZIPF_EXPONENT, PatternKind, parse_key_pattern,
};
use crate::workload::values::SizeSpec;

pub(super) fn build_keys(a: &Args, connections: usize) -> Result<KeySpace, UsageError> {
    let range = KeyRange {
        min: a.key_minimum.unwrap_or(0),
        max: a.key_maximum.unwrap_or(10_000_000),
    };
    if range.min > range.max {
        return Err(UsageError::new(
            "--key-minimum",
            format!(
                "{} is above --key-maximum {}; swap them or widen the range",
                range.min, range.max
            ),
        ));
    }
    let letters = a.key_pattern.clone().unwrap_or_else(|| "R:R".to_string());
    let (set_kind, get_kind) =
        parse_key_pattern(&letters).map_err(|e| UsageError::new("--key-pattern", e.to_string()))?;
    let gaussian = set_kind == PatternKind::Gaussian || get_kind == PatternKind::Gaussian;
    if !gaussian {
        // memtier refuses these without a G pattern; ignoring them would let a
        // user believe the keys follow a distribution they do not.
        for (flag, given) in [
            ("--key-median", a.key_median.is_some()),
            ("--key-stddev", a.key_stddev.is_some()),
        ] {
            if given {
                return Err(UsageError::new(
                    flag,
                    format!(
                        "shapes only the G (gaussian) key pattern, and --key-pattern is {letters}; use e.g. --key-pattern G:G or drop {flag}"
                    ),
                ));
            }
        }
    }
    let set_pattern = key_pattern(a, set_kind, range)?;
    let get_pattern = key_pattern(a, get_kind, range)?;
    let parallel = set_kind == PatternKind::Parallel || get_kind == PatternKind::Parallel;
    if parallel && range.len() < connections as u64 {
        return Err(UsageError::new(
            "--key-pattern",
            format!(
                "P gives each of the {connections} connections its own slice, but the range holds only {} keys; widen --key-maximum or use fewer connections",
                range.len()
            ),
        ));
    }
    Ok(KeySpace {
        prefix: a
            .key_prefix
            .clone()
            .unwrap_or_else(|| "memtier-".to_string()),
        range,
        set_pattern,
        get_pattern,
        pattern_letters: letters.to_ascii_uppercase(),
    })
}

pub(super) fn key_pattern(
    a: &Args,
    kind: PatternKind,
    range: KeyRange,
) -> Result<KeyPattern, UsageError> {
    Ok(match kind {
        PatternKind::Sequential => KeyPattern::Sequential,
        PatternKind::Uniform => KeyPattern::Uniform,
        PatternKind::Parallel => KeyPattern::Parallel,
        PatternKind::Gaussian => {
            let (lo, hi) = (range.min as f64, range.max as f64);
            // memtier puts its default median half a key above the middle
            // and truncates its draws; kvbench centres it and rounds. Under
            // --memtier-compat memtier's defaults keep its sequence.
            let (median_default, stddev_default) = if a.memtier_compat {
                gaussian_defaults(range)
            } else {
                ((lo + hi) / 2.0, (hi - lo) / 6.0)
            };
            let median = a.key_median.unwrap_or(median_default);
            let stddev = a.key_stddev.unwrap_or(stddev_default.max(1.0));
            if !(median.is_finite() && median >= lo && median <= hi) {
                return Err(UsageError::new(
                    "--key-median",
                    format!("{median} lies outside the key range {lo}..={hi}"),
                ));
            }
            if !(stddev.is_finite() && stddev > 0.0) {
                return Err(UsageError::new(
                    "--key-stddev",
                    format!(
                        "must be greater than 0 (got {})",
                        super::bounds::shown(stddev)
                    ),
                ));
            }
            KeyPattern::Gaussian { median, stddev }
        }
        PatternKind::Zipfian => {
            // memtier refuses a key-minimum of 0 outright; kvbench takes it for
            // the other patterns, but Z ranks keys from 1, so a 0 given with Z
            // asks for a key the distribution never draws.
            if a.key_minimum == Some(0) {
                return Err(UsageError::new(
                    "--key-minimum",
                    "must be at least 1 with the Z (zipfian) key pattern, as memtier requires: zipf ranks the keys from 1; give --key-minimum 1 (or leave it out)",
                ));
            }
            let exponent = a.key_zipf_exp.unwrap_or(1.0);
            if !(exponent.is_finite() && exponent > 0.0 && exponent < MAX_ZIPF_EXPONENT) {
                return Err(UsageError::new(
                    "--key-zipf-exp",
                    format!(
                        "must lie in (0, {MAX_ZIPF_EXPONENT}) as in memtier (got {}); 1 is classic Zipf",
                        super::bounds::shown(exponent)
                    ),
                ));
            }
            KeyPattern::Zipfian { exponent }
        }
    })
}

/// The largest value we agree to send: Redis' default proto-max-bulk-len.
const MAX_VALUE_BYTES: u64 = 512 * 1024 * 1024;

/// The value sizes: one spec, or one per `--data-size` list entry (a sweep).
pub(super) fn build_values(a: &Args) -> Result<Vec<SizeSpec>, UsageError> {
    let spec = match (&a.data_size_range, &a.data_size_list) {
        (Some(_), Some(_)) => {
            return Err(UsageError::new(
                "--data-size-range",
                "give --data-size-range or --data-size-list, not both",
            ));
        }
        (Some(r), None) => SizeSpec::parse_range(r)
            .map_err(|e| UsageError::new("--data-size-range", e.to_string()))?,
        (None, Some(l)) => SizeSpec::parse_list(l)
            .map_err(|e| UsageError::new("--data-size-list", e.to_string()))?,
        (None, None) => {
            let sizes = list_of("--data-size", &a.data_size, 32)?;
            if let Some(n) = sizes.iter().find(|n| **n > MAX_VALUE_BYTES) {
                return Err(UsageError::new(
                    "--data-size",
                    format!("{n} exceeds the 512 MiB a Redis value may hold"),
                ));
            }
            return Ok(sizes
                .into_iter()
                .map(|n| SizeSpec::Fixed(n as usize))
                .collect());
        }
    };
    if spec.max_size() as u64 > MAX_VALUE_BYTES {
        let flag = if a.data_size_range.is_some() {
            "--data-size-range"
        } else {
            "--data-size-list"
        };
        return Err(UsageError::new(
            flag,
            "sizes above 512 MiB exceed what a Redis value may hold",
        ));
    }
    Ok(vec![spec])
}

/// The values of a numeric flag that may be a list (a sweep); `default` when the
/// flag is absent. Each value must be at least 1.
pub(super) fn list_of(
    flag: &str,
    arg: &Option<NumList>,
    default: u64,
) -> Result<Vec<u64>, UsageError> {
    let values = match arg {
        Some(list) => list
            .values()
            .map_err(|e| UsageError::new(flag, e.to_string()))?,
        None => vec![default],
    };
    if values.contains(&0) {
        return Err(UsageError::new(
            flag,
            format!("must be at least 1 (got 0); use {flag} 1"),
        ));
    }
    Ok(values)
}
