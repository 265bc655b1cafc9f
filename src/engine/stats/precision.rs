//! How well one run's figures are known: a 95 % confidence interval for its
//! throughput and for each printed percentile of each op, by non-overlapping
//! batch means (batch quantiles for the percentiles), with the batch length
//! chosen from the series' own autocorrelation.
//!
//! A run's replies are not independent samples: a slow second makes its
//! neighbours slow, so an interval from the order statistics of every
//! latency is far too narrow. The run is cut into `k` batches of `b`
//! seconds; the figure is computed over each batch alone, and the spread of
//! those `k` values gives the interval, `value ± t(k−1) · s / √k`. That holds
//! once the batches are long enough to be nearly independent: `b` is the
//! shortest power-of-two length whose batch values show no significant
//! lag-1 autocorrelation (`r₁ ≤ 1.96 / √k`), doubled once more where at
//! least [`MIN_BATCHES`] batches remain (the test has little power over few
//! batches); a run too short for that has no interval. The method is the
//! batch-means method with Fishman's doubling rule (LBATCH; Fishman and
//! Yarberry, "An implementation of the batch means method", INFORMS J. on
//! Computing 9(3), 1997) and, for quantiles, Heidelberger and Lewis's batch
//! quantiles ("Quantile estimation in dependent sequences", Operations
//! Research 32(1), 1984); docs/precision.md says more.
//!
//! [`Batches`] keeps what the intervals need as a phase goes: each second's
//! replies and, per op row and for every row together, a compact histogram
//! (two significant digits) stored in its V2 encoding (a few hundred bytes
//! a second); at [`MAX_UNITS`] stored units
//! neighbours are merged in pairs, so memory stays bounded however long the
//! run is, and each unit then spans twice the seconds.

use std::ops::Range;

use hdrhistogram::Histogram;

pub use crate::config::precision::MIN_RUNS_FOR_MEDIAN;
use crate::config::precision::{Figure, Target};
use crate::engine::stats::{Stats, percentile_us};

/// Fewer batches than this give no interval.
pub const MIN_BATCHES: usize = 10;

/// Units kept before neighbours are merged in pairs.
pub const MAX_UNITS: usize = 128;

/// The normal quantile of a two-sided 95 % interval.
const Z_95: f64 = 1.959_964;

/// Student's t quantile for a two-sided 95 % interval with `df` degrees of
/// freedom (`df` ≥ 1): the table to 30, then the Cornish–Fisher expansion
/// around the normal quantile (within 0.001 of the exact value from 31).
pub fn t_95(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        _ => {
            let (z, n) = (Z_95, df as f64);
            z + (z.powi(3) + z) / (4.0 * n)
                + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * n * n)
        }
    }
}

/// The nonparametric 95 % interval of the median of `runs` (one figure per
/// run): `[x₍ⱼ₎, x₍ₙ₊₁₋ⱼ₎]` of the sorted values, `j` the largest rank whose
/// interval holds the median with probability at least 0.95 under
/// Binomial(n, ½), whatever the figure's distribution (Le Boudec,
/// "Performance Evaluation of Computer and Communication Systems", 2010,
/// §2.2; the interval CONFIRM reports, Maricq et al., OSDI 2018). `None` for
/// fewer than [`MIN_RUNS_FOR_MEDIAN`] runs.
pub fn median_interval(runs: &[f64]) -> Option<(f64, f64)> {
    let n = runs.len();
    if n < MIN_RUNS_FOR_MEDIAN {
        return None;
    }
    // P(B = k) for B ~ Binomial(n, 1/2), built up from P(B = 0) = 2⁻ⁿ.
    let mut pmf = vec![0.5f64.powi(n as i32); n + 1];
    for k in 1..=n {
        pmf[k] = pmf[k - 1] * (n - k + 1) as f64 / k as f64;
    }
    // [x₍ⱼ₎, x₍ₙ₊₁₋ⱼ₎] holds the median unless fewer than j values lie below
    // it or fewer than j above: coverage 1 − 2·P(B < j).
    let mut j = 1;
    let mut tail = pmf[0];
    while j < n / 2 && 1.0 - 2.0 * (tail + pmf[j]) >= 0.95 {
        tail += pmf[j];
        j += 1;
    }
    let mut sorted = runs.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some((sorted[j - 1], sorted[n - j]))
}

/// A figure and how well it is known.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The figure, over the whole run.
    pub value: f64,
    /// Half the width of its 95 % interval, in the figure's unit.
    pub half_width: f64,
    /// The batch length the interval was computed over, s.
    pub batch_s: u64,
    /// How many batches.
    pub batches: usize,
}

impl Interval {
    /// The half-width as a fraction of the figure (infinite for a zero
    /// figure with any spread).
    pub fn relative(&self) -> f64 {
        if self.half_width == 0.0 {
            0.0
        } else {
            self.half_width / self.value.abs()
        }
    }
}

/// The lag-1 autocorrelation of `x` (0 for a series with no spread).
pub fn lag1(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var: f64 = x.iter().map(|v| (v - mean).powi(2)).sum();
    if var <= 0.0 || x.len() < 2 {
        return 0.0;
    }
    let cov: f64 = x.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum();
    cov / var
}

/// The interval of `value` from `units` consecutive units of `width_s`
/// seconds each, `batch` computing the figure over a range of units: the
/// shortest power-of-two batch whose values are not significantly
/// autocorrelated, with at least [`MIN_BATCHES`] batches; `None` when no
/// batch length qualifies.
pub fn batch_interval(
    value: f64,
    units: usize,
    width_s: u64,
    mut batch: impl FnMut(Range<usize>) -> f64,
) -> Option<Interval> {
    let values = |size: usize, batch: &mut dyn FnMut(Range<usize>) -> f64| -> Vec<f64> {
        (0..units / size)
            .map(|i| batch(i * size..(i + 1) * size))
            .collect()
    };
    let mut size = 1;
    while units / size >= MIN_BATCHES {
        let k = units / size;
        if lag1(&values(size, &mut batch)) <= Z_95 / (k as f64).sqrt() {
            // One doubling more where the run allows it: the test has little
            // power over few batches, and what it misses narrows the interval.
            if units / (2 * size) >= MIN_BATCHES {
                size *= 2;
            }
            let x = values(size, &mut batch);
            let k = x.len();
            let mean = x.iter().sum::<f64>() / k as f64;
            let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (k - 1) as f64;
            return Some(Interval {
                value,
                half_width: t_95(k - 1) * (var / k as f64).sqrt(),
                batch_s: size as u64 * width_s,
                batches: k,
            });
        }
        size *= 2;
    }
    None
}

/// A phase's intervals: its throughput's and each printed percentile's.
#[derive(Debug, Clone, PartialEq)]
pub struct PhasePrecision {
    /// The whole seconds the intervals rest on.
    pub seconds: u64,
    /// Replies per second.
    pub ops_per_sec: Option<Interval>,
    /// Per op row, then every row together: `(percentile, interval in µs)`
    /// for each printed percentile.
    pub latency_us: Vec<Vec<(f64, Option<Interval>)>>,
    /// `--test-time auto`: the whole seconds after which every target was
    /// met and the run was ended; `None` when it ran to its maximum, or
    /// without `auto`.
    pub met_after_s: Option<u64>,
}

impl PhasePrecision {
    /// The interval of `target`'s figure (a percentile's of its op, or of
    /// every row together); `None` when it has none.
    pub fn of(&self, target: &Target) -> Option<Interval> {
        match target.figure {
            Figure::OpsPerSec => self.ops_per_sec,
            Figure::Percentile(p) => {
                let rows = match &target.op {
                    Some(op) => self.latency_us.get(op.row)?,
                    None => self.latency_us.last()?,
                };
                rows.iter().find(|(q, _)| *q == p).and_then(|(_, i)| *i)
            }
        }
    }
}

/// A phase's seconds, kept for its intervals.
#[derive(Debug, Clone, Default)]
pub struct Batches {
    /// Complete units, each `width_s` long.
    units: Vec<Unit>,
    /// Seconds per stored unit.
    width_s: u64,
    /// The span being filled and how many seconds it holds.
    filling: Option<(Open, u64)>,
    /// The latest second and its index, kept back until the phase's end
    /// or the next second shows it was whole.
    held: Option<(u64, Open)>,
    /// [`Batches::freeze`]: no second is kept any more.
    frozen: bool,
}

impl Batches {
    /// No second yet.
    pub fn new() -> Self {
        Batches {
            width_s: 1,
            ..Batches::default()
        }
    }

    /// Second `index` (from the phase's start) completed: `stats` are
    /// every thread's, merged. The previous second is now known to be whole
    /// and is stored.
    pub fn second(&mut self, index: u64, stats: &Stats) {
        self.hold(index, Open::of(stats));
    }

    /// [`Batches::second`] from each op row's replies and histogram (the
    /// machines' seconds added, in `kvbench merge`).
    pub fn second_of_rows<'a>(
        &mut self,
        index: u64,
        rows: impl Iterator<Item = (u64, &'a Histogram<u64>)>,
    ) {
        self.hold(index, Open::of_rows(rows));
    }

    fn hold(&mut self, index: u64, second: Open) {
        if self.frozen {
            return;
        }
        if let Some((_, prev)) = self.held.replace((index, second)) {
            self.store(prev);
        }
    }

    /// Keeps the seconds stored so far and no other: `--test-time auto`
    /// found its targets met on them, and the run's intervals are those,
    /// not ones that the second or two the run takes to stop would move.
    pub fn freeze(&mut self) {
        self.held = None;
        self.frozen = true;
    }

    /// The phase ended after `whole_seconds` whole seconds: the latest
    /// second is stored if it was one of them (a final, partial second is
    /// left out).
    pub fn finish(&mut self, whole_seconds: u64) {
        if let Some((_, last)) = self.held.take().filter(|(i, _)| *i < whole_seconds) {
            self.store(last);
        }
    }

    fn store(&mut self, second: Open) {
        let (unit, secs) = match self.filling.take() {
            Some((mut unit, secs)) => {
                unit.add(&second);
                (unit, secs + 1)
            }
            None => (second, 1),
        };
        if secs < self.width_s {
            self.filling = Some((unit, secs));
            return;
        }
        self.units.push(unit.close());
        if self.units.len() >= MAX_UNITS {
            self.coarsen();
        }
    }

    /// Neighbouring units merged in pairs: each spans twice the seconds (an
    /// odd last unit goes: it spans too few).
    fn coarsen(&mut self) {
        let pairs = std::mem::take(&mut self.units);
        let mut it = pairs.iter();
        while let (Some(a), Some(b)) = (it.next(), it.next()) {
            let mut a = a.open();
            a.add(&b.open());
            self.units.push(a.close());
        }
        self.width_s *= 2;
    }

    /// Whole seconds stored.
    pub fn seconds(&self) -> u64 {
        self.units.len() as u64 * self.width_s
    }

    /// The intervals of the phase whose totals are `stats` and throughput
    /// `ops_per_sec`, for the printed `percentiles`.
    pub fn judge(&self, stats: &Stats, ops_per_sec: f64, percentiles: &[f64]) -> PhasePrecision {
        let all = stats.totals();
        let histograms: Vec<_> = stats
            .ops
            .iter()
            .chain([&all])
            .map(|o| &o.latency_us)
            .collect();
        self.judge_rows(&histograms, ops_per_sec, percentiles)
    }

    /// [`Batches::judge`] from the phase's histogram of each op row, then of
    /// every row together.
    pub fn judge_rows(
        &self,
        histograms: &[&Histogram<u64>],
        ops_per_sec: f64,
        percentiles: &[f64],
    ) -> PhasePrecision {
        let latency_us = histograms.iter().enumerate().map(|(row, h)| {
            let at = |p: f64| self.latency(row, p, percentile_us(h, p) as f64);
            percentiles.iter().map(|&p| (p, at(p))).collect()
        });
        PhasePrecision {
            seconds: self.seconds(),
            ops_per_sec: self.rate(ops_per_sec),
            latency_us: latency_us.collect(),
            met_after_s: None,
        }
    }

    /// Whether every target is met by the phase so far (totals `stats`,
    /// throughput `ops_per_sec`): each figure has an interval within its
    /// bound. Only the named figures are computed.
    pub fn meets(&self, targets: &[Target], stats: &Stats, ops_per_sec: f64) -> bool {
        let all = stats.totals();
        targets.iter().all(|t| {
            let interval = match t.figure {
                Figure::OpsPerSec => self.rate(ops_per_sec),
                Figure::Percentile(p) => {
                    let (row, op) = match &t.op {
                        Some(op) => (op.row, stats.ops.get(op.row)),
                        None => (stats.ops.len(), Some(&all)),
                    };
                    op.and_then(|o| self.latency(row, p, percentile_us(&o.latency_us, p) as f64))
                }
            };
            interval.is_some_and(|i| i.relative() * 100.0 <= t.within_percent)
        })
    }

    /// The interval of the throughput `value` (replies per second).
    pub fn rate(&self, value: f64) -> Option<Interval> {
        let width = self.width_s as f64;
        batch_interval(value, self.units.len(), self.width_s, |r| {
            let n = r.len() as f64;
            self.units[r].iter().map(|u| u.count as f64).sum::<f64>() / (n * width)
        })
    }

    /// The interval of percentile `p` of `row` (the op rows, then every row
    /// together), whose whole-run value is `value_us`. The batch values are
    /// read from compact histograms, so the interval is never narrower than
    /// half of their bucket at `value_us`: where every batch falls in one
    /// bucket, their spread reads 0 and the figure is known to that bucket.
    pub fn latency(&self, row: usize, p: f64, value_us: f64) -> Option<Interval> {
        let bucket_us = compact().equivalent_range(value_us as u64) as f64;
        let interval = batch_interval(value_us, self.units.len(), self.width_s, |r| {
            let mut merged = compact();
            for u in &self.units[r] {
                let _ = merged.add(u.row(row));
            }
            if merged.is_empty() {
                0.0
            } else {
                merged.value_at_percentile(p) as f64
            }
        });
        interval.map(|i| Interval {
            half_width: if value_us > 0.0 {
                i.half_width.max(bucket_us / 2.0)
            } else {
                i.half_width
            },
            ..i
        })
    }
}

mod pool;
mod unit;

use unit::{Open, Unit, compact};
#[cfg(test)]
mod tests;
