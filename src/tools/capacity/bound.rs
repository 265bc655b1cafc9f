//! A latency percentile's 95 % interval for a capacity step, by batch means
//! over the step's seconds (docs/precision.md), and whether a step meets,
//! fails or straddles a latency SLO. Pure: a histogram, the step's seconds
//! and an SLO in, a decision out, so a fleet's merged measurements are
//! judged alike.
//!
//! Until 2026-12 the interval was the order statistics' (Binomial(n, q)
//! around rank n·q), which takes every reply as independent: it narrows
//! with the number of replies whatever the seconds do, so a busy step whose
//! p99 wandered from second to second was "known" and decided on its luck
//! (docs/capacity.md, "Why not the order statistics").

use hdrhistogram::Histogram;

use crate::config::capacity::Slo;
use crate::engine::stats::precision::{Batches, Interval};

/// A percentile's point estimate and its 95 % interval, in µs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// The percentile of every reply (and request never sent) of the step.
    pub estimate_us: u64,
    /// The interval's ends, by batch means over the step's seconds; `None`
    /// when the step had too few seconds for one (ten batches).
    pub interval_us: Option<(f64, f64)>,
}

/// Where a percentile stands against its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Against {
    /// Even the interval's upper end is within the limit.
    Meets,
    /// Even the interval's lower end is above the limit.
    Fails,
    /// The interval holds the limit, or there is none: more seconds could
    /// tell.
    Straddles,
}

/// The bound on percentile `p` (0–100) of the values `h` holds, its
/// interval from `seconds`' row 0 (a step's every op together); `None` for
/// an empty histogram.
pub fn percentile_bound(h: &Histogram<u64>, p: f64, seconds: &Batches) -> Option<Bound> {
    if h.is_empty() {
        return None;
    }
    let estimate_us = h.value_at_percentile(p);
    let interval = seconds.latency(0, p, estimate_us as f64);
    Some(Bound {
        estimate_us,
        interval_us: interval.map(|i: Interval| (i.value - i.half_width, i.value + i.half_width)),
    })
}

impl Bound {
    /// Where this bound stands against `limit_us`.
    pub fn against(&self, limit_us: u64) -> Against {
        let limit = limit_us as f64;
        match self.interval_us {
            Some((_, high)) if high <= limit => Against::Meets,
            Some((low, _)) if low > limit => Against::Fails,
            _ => Against::Straddles,
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

/// Every SLO judged on `h` (a step's replies and its requests never sent)
/// and its `seconds`; no samples at all fails every SLO: a step that
/// answered nothing carried no load.
pub fn judge(h: &Histogram<u64>, slos: &[Slo], seconds: &Batches) -> Vec<SloJudged> {
    slos.iter()
        .map(|&slo| {
            let bound = percentile_bound(h, slo.percentile, seconds);
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
    use super::{Against, by_estimate, judge, overall, percentile_bound};
    use crate::config::capacity::Slo;
    use crate::engine::stats::precision::Batches;
    use crate::engine::stats::{Stats, latency_histogram, record_into};

    /// `n` seconds of 1000 replies, 980 of them at 1 ms and 20 at the
    /// `tail` of the second, its p99; every reply in `h` too.
    fn step(n: u64, tail: impl Fn(u64) -> u64) -> (hdrhistogram::Histogram<u64>, Batches) {
        let mut h = latency_histogram().unwrap();
        let mut b = Batches::new();
        for i in 0..n {
            let mut s = Stats::new(1).unwrap();
            for r in 0..1000 {
                let us = if r < 980 { 1000 } else { tail(i) };
                s.ops[0].record(us);
                record_into(&mut h, us);
            }
            b.second(i, &s);
        }
        b.finish(n);
        (h, b.totals())
    }

    fn slo(percentile: f64, limit_us: u64) -> Slo {
        Slo {
            percentile,
            limit_us,
        }
    }

    #[test]
    fn seconds_that_agree_give_a_narrow_interval_and_wandering_ones_a_wide_one() {
        // Every second's p99 at 5 ms (within its two-digit unit): the
        // interval is that second's.
        let (h, b) = step(20, |_| 5000);
        let steady = percentile_bound(&h, 99.0, &b).unwrap();
        let (low, high) = steady.interval_us.expect("20 seconds");
        assert!(high - low < 100.0, "{steady:?}");
        assert_eq!(steady.against(6000), Against::Meets);
        assert_eq!(steady.against(4000), Against::Fails);
        // The p99 wanders between 3 and 9 ms from second to second: the
        // order statistics of 20 000 replies would pin it within a few per
        // cent; the seconds say it is not known near the limit.
        let (h, b) = step(20, |i| [3000, 9000, 5000, 7000][(i % 4) as usize]);
        let wandering = percentile_bound(&h, 99.0, &b).unwrap();
        let (low, high) = wandering.interval_us.expect("20 seconds");
        assert!(high - low > 1000.0, "{wandering:?}");
        // Its p99 is 5 ms, ± about 0.8 ms.
        assert_eq!(wandering.against(5000), Against::Straddles);
        assert_eq!(steady.against(5100), Against::Meets);
    }

    #[test]
    fn a_step_too_short_for_ten_batches_straddles_until_the_estimate_decides() {
        let (h, b) = step(5, |_| 5000);
        let short = percentile_bound(&h, 99.0, &b).unwrap();
        assert_eq!(short.interval_us, None);
        assert_eq!(short.against(1_000_000), Against::Straddles);
        let judged = judge(&h, &[slo(99.0, 6000)], &b);
        assert_eq!(overall(&judged), Against::Straddles);
        assert_eq!(by_estimate(&judged), Against::Meets);
        assert_eq!(
            by_estimate(&judge(&h, &[slo(99.0, 4000)], &b)),
            Against::Fails
        );
    }

    #[test]
    fn one_failing_slo_fails_the_step_and_no_samples_fail_every_slo() {
        let (h, b) = step(20, |_| 5000);
        let judged = judge(&h, &[slo(50.0, 2000), slo(99.0, 4000)], &b);
        assert_eq!(overall(&judged), Against::Fails);
        let judged = judge(&h, &[slo(50.0, 2000), slo(99.0, 6000)], &b);
        assert_eq!(overall(&judged), Against::Meets);
        let empty = latency_histogram().unwrap();
        assert!(percentile_bound(&empty, 99.0, &b).is_none());
        assert_eq!(
            overall(&judge(&empty, &[slo(99.0, 1)], &Batches::new())),
            Against::Fails
        );
    }
}
