//! A confidence bound on a latency percentile, read from a histogram: the
//! order statistics whose ranks bracket the quantile, and whether a step
//! meets, fails or straddles a latency SLO. Pure: a histogram and an SLO in,
//! a decision out, so a merged histogram (of many shards) is judged alike.

use hdrhistogram::Histogram;

use crate::config::capacity::Slo;

/// z of a two-sided 95 % interval: 1.96 standard deviations of the normal
/// distribution.
pub const Z_95: f64 = 1.96;

/// A percentile's point estimate and its distribution-free confidence
/// interval, in µs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// The value at rank n·q.
    pub estimate_us: u64,
    /// The value at the lower rank of the interval.
    pub low_us: u64,
    /// The value at the upper rank of the interval.
    pub high_us: u64,
}

/// Where a percentile stands against its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Against {
    /// Even the interval's upper end is within the limit.
    Meets,
    /// Even the interval's lower end is above the limit.
    Fails,
    /// The interval holds the limit: more samples could tell.
    Straddles,
}

/// The bound on quantile `q` (0 < q < 1) of the `n` values `h` holds.
///
/// For the quantile q of n independent samples, the number of samples below
/// the true quantile is Binomial(n, q); its normal approximation puts the
/// order statistics of ranks n·q ± z·√(n·q·(1−q)) around the quantile with
/// (two-sided) confidence given by z, whatever the distribution of the
/// values (W. J. Conover, *Practical Nonparametric Statistics*, 3rd ed.,
/// Wiley 1999, §3.2, "confidence interval for a quantile", large-sample
/// approximation). The ranks are rounded outwards, so the interval is never
/// narrower than the approximation says; `None` for an empty histogram.
pub fn percentile_bound(h: &Histogram<u64>, q: f64, z: f64) -> Option<Bound> {
    let n = h.len();
    if n == 0 {
        return None;
    }
    let count = n as f64;
    let centre = count * q;
    let spread = z * (count * q * (1.0 - q)).sqrt();
    let at_rank = |rank: f64| {
        // Rank r of n is quantile r / n; ranks beyond the ends are the ends.
        let quantile = (rank / count).clamp(0.0, 1.0);
        h.value_at_quantile(quantile)
    };
    Some(Bound {
        estimate_us: at_rank(centre),
        low_us: at_rank((centre - spread).floor()),
        high_us: at_rank((centre + spread).ceil() + 1.0),
    })
}

impl Bound {
    /// Where this bound stands against `limit_us`.
    pub fn against(&self, limit_us: u64) -> Against {
        if self.high_us <= limit_us {
            Against::Meets
        } else if self.low_us > limit_us {
            Against::Fails
        } else {
            Against::Straddles
        }
    }
}

/// One SLO judged on a histogram.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SloJudged {
    /// The SLO.
    pub slo: Slo,
    /// Its percentile's bound; `None` when there were no samples.
    pub bound: Option<Bound>,
    /// Where the bound stands.
    pub against: Against,
}

/// Every SLO judged on `h` (a step's replies and its requests never sent);
/// no samples at all fails every SLO: a step that answered nothing carried
/// no load.
pub fn judge(h: &Histogram<u64>, slos: &[Slo], z: f64) -> Vec<SloJudged> {
    slos.iter()
        .map(|&slo| {
            let bound = percentile_bound(h, slo.percentile / 100.0, z);
            let against = bound.map_or(Against::Fails, |b| b.against(slo.limit_us));
            SloJudged {
                slo,
                bound,
                against,
            }
        })
        .collect()
}

/// All SLOs together: one failing fails the step, all meeting meets it,
/// anything else straddles.
pub fn overall(judged: &[SloJudged]) -> Against {
    if judged.iter().any(|j| j.against == Against::Fails) {
        Against::Fails
    } else if judged.iter().all(|j| j.against == Against::Meets) {
        Against::Meets
    } else {
        Against::Straddles
    }
}

/// The decision when the repeats are spent and the bound still straddles:
/// the point estimates decide, each against its limit.
pub fn by_estimate(judged: &[SloJudged]) -> Against {
    let meets = judged
        .iter()
        .all(|j| j.bound.is_some_and(|b| b.estimate_us <= j.slo.limit_us));
    if meets {
        Against::Meets
    } else {
        Against::Fails
    }
}

#[cfg(test)]
mod tests {
    use super::{Against, Z_95, by_estimate, judge, overall, percentile_bound};
    use crate::config::capacity::Slo;
    use crate::engine::stats::{latency_histogram, record_into};

    fn uniform(n: u64) -> hdrhistogram::Histogram<u64> {
        let mut h = latency_histogram().unwrap();
        for v in 1..=n {
            record_into(&mut h, v);
        }
        h
    }

    #[test]
    fn the_interval_brackets_the_estimate_and_narrows_with_more_samples() {
        // 1..=1000: the p99 is 990; ±1.96·√(1000·0.99·0.01) ≈ ±6.2 ranks.
        let b = percentile_bound(&uniform(1000), 0.99, Z_95).unwrap();
        assert_eq!(b.estimate_us, 990);
        assert!((982..=984).contains(&b.low_us), "{b:?}");
        assert!((996..=998).contains(&b.high_us), "{b:?}");
        // A hundred times the samples: about a tenth of the width in ranks,
        // the same values scaled, so the relative width shrinks tenfold.
        let big = percentile_bound(&uniform(100_000), 0.99, Z_95).unwrap();
        let relative = |b: super::Bound| (b.high_us - b.low_us) as f64 / b.estimate_us as f64;
        assert!(relative(big) < relative(b) / 5.0, "{big:?} vs {b:?}");
        assert!(big.low_us <= big.estimate_us && big.estimate_us <= big.high_us);
    }

    #[test]
    fn few_samples_reach_the_extremes() {
        // Ten samples cannot place a p99: the upper rank is beyond the last.
        let b = percentile_bound(&uniform(10), 0.99, Z_95).unwrap();
        assert_eq!(b.high_us, 10);
        assert!(percentile_bound(&latency_histogram().unwrap(), 0.99, Z_95).is_none());
    }

    #[test]
    fn a_limit_inside_the_interval_straddles() {
        let b = percentile_bound(&uniform(1000), 0.99, Z_95).unwrap();
        assert_eq!(b.against(2000), Against::Meets);
        assert_eq!(b.against(500), Against::Fails);
        assert_eq!(b.against(990), Against::Straddles);
    }

    #[test]
    fn one_failing_slo_fails_the_step_and_estimates_decide_a_straddle() {
        let h = uniform(1000);
        let slo = |percentile, limit_us| Slo {
            percentile,
            limit_us,
        };
        let judged = judge(&h, &[slo(50.0, 2000), slo(99.0, 400)], Z_95);
        assert_eq!(overall(&judged), Against::Fails);
        let judged = judge(&h, &[slo(50.0, 2000), slo(99.0, 991)], Z_95);
        assert_eq!(overall(&judged), Against::Straddles);
        assert_eq!(by_estimate(&judged), Against::Meets);
        let judged = judge(&h, &[slo(99.0, 989)], Z_95);
        assert_eq!(by_estimate(&judged), Against::Fails);
        let empty = latency_histogram().unwrap();
        assert_eq!(
            overall(&judge(&empty, &[slo(99.0, 1)], Z_95)),
            Against::Fails
        );
    }
}
