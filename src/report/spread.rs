//! The run-to-run spread of a figure, one definition for every output:
//! the sweep table, the runs-disagree warning, `kvbench compare`'s verdict
//! and the HTML page's error bars all read it from here (docs/compare.md,
//! docs/html.md).
//!
//! **Spread** = max / min − 1 of the figure over the completed runs, as a
//! percentage: runs of 100 and 183 ops/s have a spread of 83 %. It is never
//! negative (max ≥ min), 0 when the runs agree, and the same number whether
//! the figure rose or fell. The ratio form (max / min, 1.83) is what the
//! JSON keeps (`max_over_min`) and what compare's rule compares a change
//! against; this is only how it reads.

/// The spread of `max_over_min` as a percentage, never below 0 (a ratio
/// under 1 can only come from a reader that swapped min and max, and an
/// unmeasured 0/0 is read as runs that agree).
pub fn percent(max_over_min: f64) -> f64 {
    if max_over_min.is_nan() {
        return 0.0;
    }
    ((max_over_min - 1.0) * 100.0).max(0.0)
}

/// The spread of the runs' `min` and `max`, as [`percent`] reads it; 0
/// when both are 0, unbounded when only the slowest did nothing.
pub fn percent_of(min: f64, max: f64) -> f64 {
    percent(max_over_min(min, max))
}

/// max / min of two runs' figures: 1 when both are 0 (they do not differ),
/// infinite when only `min` is 0.
pub fn max_over_min(min: f64, max: f64) -> f64 {
    let (min, max) = (min.min(max), min.max(max));
    if max <= 0.0 {
        1.0
    } else if min <= 0.0 {
        f64::INFINITY
    } else {
        max / min
    }
}

/// The spread as text: `4.0 %`, `83.0 %`, `150 %` (no decimal from 100 %
/// on), `unbounded` when the slowest run did nothing.
pub fn label(max_over_min: f64) -> String {
    let p = percent(max_over_min);
    if p.is_infinite() {
        "unbounded".into()
    } else if p >= 100.0 {
        format!("{p:.0} %")
    } else {
        format!("{p:.1} %")
    }
}

#[cfg(test)]
mod tests {
    use super::{label, max_over_min, percent, percent_of};

    #[test]
    fn a_spread_is_max_over_min_less_one_and_never_negative() {
        assert!((percent(1.83) - 83.0).abs() < 1e-9);
        assert_eq!(percent(1.0), 0.0);
        // Swapped or rounded inputs do not turn it negative.
        assert_eq!(percent(0.9), 0.0);
        assert_eq!(percent(f64::NAN), 0.0);
        assert!((percent_of(183.0, 100.0) - 83.0).abs() < 1e-9, "order-free");
        assert_eq!(percent_of(0.0, 0.0), 0.0);
        assert_eq!(max_over_min(0.0, 5.0), f64::INFINITY);
    }

    #[test]
    fn a_spread_reads_as_one_percentage() {
        assert_eq!(label(1.04), "4.0 %");
        assert_eq!(label(1.83), "83.0 %");
        assert_eq!(label(2.5), "150 %");
        assert_eq!(label(0.5), "0.0 %");
        assert_eq!(label(f64::INFINITY), "unbounded");
    }
}
