//! Scales and ticks of the charts: linear and log maps from values to
//! pixels, 1-2-5 and power-of-ten ticks, and how tick labels read (numbers
//! shortened with k and M, HdrHistogram's percentile labels).

/// How an axis maps values to positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScaleKind {
    /// Evenly spaced values.
    Linear,
    /// Evenly spaced powers of ten; values at or below 0 are left out.
    Log10,
}

/// A map from a domain of values to a range of pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    kind: ScaleKind,
    lo: f64,
    hi: f64,
    px_lo: f64,
    px_hi: f64,
}

impl Scale {
    /// `domain` onto `range`; a log scale's domain is clamped above 0 and an
    /// empty domain widened, so that every value maps somewhere finite.
    pub fn new(kind: ScaleKind, domain: (f64, f64), range: (f64, f64)) -> Scale {
        let (mut lo, mut hi) = domain;
        if kind == ScaleKind::Log10 {
            lo = lo.max(f64::MIN_POSITIVE);
            hi = hi.max(lo);
            if hi <= lo {
                hi = lo * 10.0;
            }
        } else if hi <= lo {
            hi = lo + 1.0;
        }
        Scale {
            kind,
            lo,
            hi,
            px_lo: range.0,
            px_hi: range.1,
        }
    }

    /// The pixel of `v` (clamped into the domain).
    pub fn map(&self, v: f64) -> f64 {
        let v = v.clamp(self.lo, self.hi);
        let t = match self.kind {
            ScaleKind::Linear => (v - self.lo) / (self.hi - self.lo),
            ScaleKind::Log10 => (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10()),
        };
        self.px_lo + t * (self.px_hi - self.px_lo)
    }

    /// The tick values inside the domain.
    pub fn ticks(&self) -> Vec<f64> {
        match self.kind {
            ScaleKind::Linear => linear_ticks(self.lo, self.hi, 6),
            ScaleKind::Log10 => log_ticks(self.lo, self.hi),
        }
    }
}

/// About `target` ticks on a 1-2-5 step that cover `[lo, hi]`, every one
/// inside it.
pub fn linear_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return vec![lo];
    }
    let raw = (hi - lo) / target.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    // A hair of slack, so that 0.3 / 0.1 = 2.9999999999999996 still ends on 0.3.
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    // Multiplying the index (not adding steps) keeps 0.3 from reading 0.30000000000000004.
    (first..=last).map(|i| i as f64 * step).collect()
}

/// The powers of ten inside `[lo, hi]`; with fewer than two, the 2 and 5
/// multiples too, so that a narrow log axis still has labels.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi >= lo && hi.is_finite()) {
        return Vec::new();
    }
    let from = lo.log10().floor() as i32;
    let to = hi.log10().ceil() as i32;
    let inside = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
    let powers: Vec<f64> = (from..=to).map(|e| 10f64.powi(e)).filter(inside).collect();
    if powers.len() >= 2 {
        return powers;
    }
    (from..=to)
        .flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e)))
        .filter(inside)
        .collect()
}

/// A number for a tick or a table: `24k`, `1.5M`, `0.05`, `12`.
pub fn format_number(v: f64) -> String {
    let abs = v.abs();
    let (scaled, suffix) = if abs >= 1e6 {
        (v / 1e6, "M")
    } else if abs >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let text = if scaled.abs() >= 100.0 || scaled == scaled.trunc() {
        format!("{scaled:.0}")
    } else if scaled.abs() >= 1.0 {
        format!("{scaled:.2}")
    } else {
        format!("{scaled:.4}")
    };
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    format!("{text}{suffix}")
}

/// `1/(1-q)` written as the percentile q: 1 → `0%`, 10 → `90%`, 1000 → `99.9%`.
pub fn format_percentile(x: f64) -> String {
    if x <= 1.0 {
        return "0%".into();
    }
    let percent = 100.0 * (1.0 - 1.0 / x);
    // As many decimals as the nines need: 99.99 % has two.
    let decimals = (x.log10().round() as i32 - 2).max(0) as usize;
    format!("{percent:.decimals$}%")
}

#[cfg(test)]
mod tests {
    use super::{Scale, ScaleKind, format_number, format_percentile, linear_ticks, log_ticks};

    #[test]
    fn linear_ticks_step_by_one_two_five_inside_the_domain() {
        assert_eq!(
            linear_ticks(0.0, 10.0, 5),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        assert_eq!(linear_ticks(0.0, 0.3, 3).len(), 4);
        let t = linear_ticks(3.0, 97_000.0, 6);
        assert_eq!(t.first(), Some(&20_000.0));
        assert!(t.iter().all(|v| (3.0..=97_000.0).contains(v)), "{t:?}");
        assert_eq!(linear_ticks(5.0, 5.0, 6), vec![5.0]);
    }

    #[test]
    fn log_ticks_are_powers_of_ten_or_their_multiples_when_narrow() {
        assert_eq!(log_ticks(1.0, 1000.0), vec![1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(log_ticks(0.02, 0.9), vec![0.02, 0.05, 0.1, 0.2, 0.5]);
        assert!(log_ticks(0.0, 10.0).is_empty());
    }

    #[test]
    fn scales_map_the_domain_onto_the_range() {
        let lin = Scale::new(ScaleKind::Linear, (0.0, 10.0), (100.0, 200.0));
        assert_eq!(lin.map(0.0), 100.0);
        assert_eq!(lin.map(5.0), 150.0);
        assert_eq!(lin.map(20.0), 200.0, "clamped");
        let log = Scale::new(ScaleKind::Log10, (1.0, 1000.0), (0.0, 300.0));
        assert!((log.map(10.0) - 100.0).abs() < 1e-9);
        assert!((log.map(100.0) - 200.0).abs() < 1e-9);
        // An empty domain is widened rather than divided by zero.
        let flat = Scale::new(ScaleKind::Linear, (4.0, 4.0), (0.0, 10.0));
        assert!(flat.map(4.0).is_finite());
    }

    #[test]
    fn numbers_and_percentiles_read_short() {
        assert_eq!(format_number(24_000.0), "24k");
        assert_eq!(format_number(1_500_000.0), "1.5M");
        assert_eq!(format_number(0.05), "0.05");
        assert_eq!(format_number(2.5), "2.5");
        assert_eq!(format_number(300.0), "300");
        assert_eq!(format_percentile(1.0), "0%");
        assert_eq!(format_percentile(10.0), "90%");
        assert_eq!(format_percentile(100.0), "99%");
        assert_eq!(format_percentile(1000.0), "99.9%");
        assert_eq!(format_percentile(1e5), "99.999%");
    }
}
