//! memtier's Zipfian key pattern: key `k` drawn with probability proportional
//! to `k^-s` over the absolute key numbers `[max(1, min), max]`.
//!
//! The weight depends on the key number itself, not on its rank in the range,
//! so over keys 1000–1999 with `s = 1` the hottest key is only twice as likely
//! as the coldest, exactly as memtier_benchmark draws them. Sampling is
//! rejection-inversion (W. Hörmann and G. Derflinger, "Rejection-inversion to
//! generate variates from monotone discrete distributions", ACM TOMACS 6(3),
//! 1996), the method memtier uses too: constant memory and about one uniform
//! draw per key whatever the range size. The integral and its inverse are
//! written with `exp_m1`/`ln_1p` so that they stay accurate as `s` nears 1.

use rand::Rng;

/// Rejection rounds before the last candidate is accepted as is. Acceptance is
/// above 80 % per round for every exponent in (0, 5), so 32 misses in a row
/// never happen in practice; the bound only keeps float rounding at keys near
/// 2^64 from stalling the hot path.
const MAX_ROUNDS: u32 = 32;

/// Precomputed sampler for one range and exponent.
#[derive(Debug, Clone)]
pub struct AbsoluteZipf {
    exponent: f64,
    /// Smallest and largest key that can be drawn.
    first: u64,
    last: u64,
    /// `H(first + 0.5) - h(first)`: the top of the inversion interval.
    h_integral_first: f64,
    /// `H(last + 0.5)`: the bottom of the inversion interval.
    h_integral_last: f64,
    /// Squeeze: a candidate within this distance left of `x` is always accepted.
    squeeze: f64,
}

impl AbsoluteZipf {
    /// The sampler for keys `[max(1, min), max]`; a range holding only key 0
    /// yields key 0. `exponent` must be positive and finite.
    pub fn new(min: u64, max: u64, exponent: f64) -> AbsoluteZipf {
        let first = min.max(1);
        let (first, last) = if first > max {
            (max, max)
        } else {
            (first, max)
        };
        let s = exponent;
        let a = first.max(1) as f64;
        let squeeze = (a + 1.0) - h_integral_inverse(h_integral(a + 1.5, s) - h(a + 1.0, s), s);
        AbsoluteZipf {
            exponent,
            first,
            last,
            h_integral_first: h_integral(a + 0.5, s) - h(a, s),
            h_integral_last: h_integral(last as f64 + 0.5, s),
            squeeze,
        }
    }

    /// One key; allocation-free.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        if self.first >= self.last {
            return self.first;
        }
        let s = self.exponent;
        let mut k = self.first;
        for _ in 0..MAX_ROUNDS {
            let u = self.h_integral_last
                + rng.random::<f64>() * (self.h_integral_first - self.h_integral_last);
            let x = h_integral_inverse(u, s);
            // `as` saturates, and the clamp keeps rounding at the ends inside.
            k = ((x + 0.5) as u64).clamp(self.first, self.last);
            let kf = k as f64;
            if kf - x <= self.squeeze || u >= h_integral(kf + 0.5, s) - h(kf, s) {
                return k;
            }
        }
        k
    }
}

/// The weight `h(x) = x^-s`.
fn h(x: f64, s: f64) -> f64 {
    (-s * x.ln()).exp()
}

/// `H(x) = (x^(1-s) - 1) / (1-s)`, an antiderivative of `h` (`ln x` at `s = 1`),
/// in a form that stays accurate as `s` approaches 1.
fn h_integral(x: f64, s: f64) -> f64 {
    let log_x = x.ln();
    helper_expm1((1.0 - s) * log_x) * log_x
}

/// The inverse of [`h_integral`].
fn h_integral_inverse(y: f64, s: f64) -> f64 {
    // Rounding can push the argument just below -1, where ln_1p is undefined.
    let t = (y * (1.0 - s)).max(-1.0);
    (helper_ln1p(t) * y).exp()
}

/// `ln(1 + t) / t`, 1 at `t = 0`.
fn helper_ln1p(t: f64) -> f64 {
    if t.abs() > 1e-8 {
        t.ln_1p() / t
    } else {
        1.0 - t * (0.5 - t * (1.0 / 3.0 - 0.25 * t))
    }
}

/// `(e^t - 1) / t`, 1 at `t = 0`.
fn helper_expm1(t: f64) -> f64 {
    if t.abs() > 1e-8 {
        t.exp_m1() / t
    } else {
        1.0 + t * 0.5 * (1.0 + t / 3.0 * (1.0 + 0.25 * t))
    }
}
