//! The exact sums: one op row of one run, added over the machines. Counts
//! and bytes add; histograms add with `+=` (whole, and second by second);
//! latency sums add, so the mean is exact. Nothing here averages a
//! percentile or adds a rate: those are recomputed from the sums by
//! [`crate::tools::merge::rows`].

use std::collections::BTreeMap;

use hdrhistogram::Histogram;

use crate::engine::stats::latency_histogram;
use crate::report::model::histogram::{CompressedHistogram, HistogramError};
use crate::report::model::kvbench::OpTotals;
use crate::report::model::named::Named;
use crate::report::model::section::OpRow;
use crate::tools::merge::hlog::Seconds;

/// One second of one row, summed over the machines.
#[derive(Debug, Clone)]
pub struct SecondSum {
    /// Replies.
    pub count: u64,
    /// Reply bytes.
    pub bytes_rx: u64,
    /// Request bytes.
    pub bytes_tx: u64,
    /// Sum of latencies, µs (each machine's rounded average times its count).
    pub latency_sum_us: f64,
    /// The second's histogram; empty when no machine wrote one.
    pub histogram: Histogram<u64>,
}

/// One row of one run (or of the aggregate), summed over the machines.
#[derive(Debug, Clone)]
pub struct RowSum {
    /// Exact counts.
    pub totals: OpTotals,
    /// Exact sum of latencies, µs.
    pub latency_sum_us: f64,
    /// The whole histogram.
    pub histogram: Histogram<u64>,
    /// `-MOVED` redirects followed (from each machine's rate times its time).
    pub moved: f64,
    /// `-ASK` redirects followed.
    pub ask: f64,
    /// The seconds, by their index since the run's start.
    pub seconds: BTreeMap<u64, SecondSum>,
    /// Every machine added brought its histogram of each second (from its
    /// run's interval log): only then are the seconds' percentiles exact.
    pub seconds_complete: bool,
}

/// A histogram that cannot be created is a bug in the bounds, not an input
/// error; an empty one without auto-resize would then only lose samples.
pub fn empty_histogram() -> Histogram<u64> {
    latency_histogram()
        .or_else(|_| Histogram::new(3))
        .unwrap_or_else(|_| unreachable!("3 significant digits are valid"))
}

/// Adds `b` into `a`, key by key, keeping `a`'s order and appending new keys.
pub fn add_named(a: &mut Named<u64>, b: &Named<u64>) {
    for (k, v) in b.iter() {
        match a.0.iter_mut().find(|(key, _)| key == k) {
            Some((_, n)) => *n += v,
            None => a.0.push((k.to_string(), *v)),
        }
    }
}

impl SecondSum {
    /// Nothing yet.
    pub fn zero() -> SecondSum {
        SecondSum {
            count: 0,
            bytes_rx: 0,
            bytes_tx: 0,
            latency_sum_us: 0.0,
            histogram: empty_histogram(),
        }
    }

    fn add(&mut self, other: &SecondSum) {
        self.count += other.count;
        self.bytes_rx += other.bytes_rx;
        self.bytes_tx += other.bytes_tx;
        self.latency_sum_us += other.latency_sum_us;
        // Both auto-resize: adding cannot fail for lack of range.
        let _ = self.histogram.add(&other.histogram);
    }
}

/// One machine's row of one run, as its file has it.
pub struct ShardRow<'a> {
    /// The section's row (`Sets`).
    pub row: &'a OpRow,
    /// `kvbench.runs[i].totals` of the row's command.
    pub totals: Option<&'a OpTotals>,
    /// `kvbench.runs[i].histograms` of the row's command.
    pub histogram: Option<&'a CompressedHistogram>,
    /// The row's histogram of each second, from the run's interval log
    /// ([`crate::tools::merge::hlog`]); `None` when it wrote none.
    pub per_second: Option<Seconds>,
    /// The machine's run time, s.
    pub duration_s: f64,
}

impl RowSum {
    /// Nothing yet.
    pub fn new() -> RowSum {
        RowSum {
            totals: OpTotals::default(),
            latency_sum_us: 0.0,
            histogram: empty_histogram(),
            moved: 0.0,
            ask: 0.0,
            seconds: BTreeMap::new(),
            seconds_complete: true,
        }
    }

    /// Adds one machine's row.
    pub fn add_shard(&mut self, s: &ShardRow<'_>) -> Result<(), HistogramError> {
        let row = s.row;
        let histogram = match s.histogram {
            Some(h) => Some(h.decode()?),
            None => row.histogram()?,
        };
        let shard_totals = s.totals.cloned().unwrap_or_else(|| OpTotals {
            count: row.count,
            hits: (row.hits_per_sec * s.duration_s).round() as u64,
            misses: (row.misses_per_sec * s.duration_s).round() as u64,
            ..OpTotals::default()
        });
        // The exact sum when the file has it; else the printed mean (to the
        // µs) times the count.
        self.latency_sum_us += shard_totals
            .latency_sum_us
            .map_or(row.average_latency_ms * 1000.0 * row.count as f64, |v| {
                v as f64
            });
        self.add_totals(&shard_totals);
        if let Some(h) = &histogram {
            let _ = self.histogram.add(h);
        }
        self.seconds_complete &= s.per_second.is_some();
        self.moved += row.moved_per_sec.unwrap_or(0.0) * s.duration_s;
        self.ask += row.ask_per_sec.unwrap_or(0.0) * s.duration_s;
        for (key, second) in row.time_serie.iter() {
            let Ok(index) = key.parse::<u64>() else {
                continue;
            };
            let mut sum = SecondSum::zero();
            sum.count = second.count;
            sum.bytes_rx = second.bytes_rx.unwrap_or(0);
            sum.bytes_tx = second.bytes_tx.unwrap_or(0);
            sum.latency_sum_us =
                second.average_latency_ms.unwrap_or(0.0) * 1000.0 * second.count as f64;
            if let Some(h) = s.per_second.as_ref().and_then(|p| p.get(&index)) {
                let _ = sum.histogram.add(h);
            }
            self.seconds
                .entry(index)
                .or_insert_with(SecondSum::zero)
                .add(&sum);
        }
        Ok(())
    }

    fn add_totals(&mut self, t: &OpTotals) {
        let a = &mut self.totals;
        a.count += t.count;
        a.hits += t.hits;
        a.misses += t.misses;
        a.errors += t.errors;
        a.bytes_tx += t.bytes_tx;
        a.bytes_rx += t.bytes_rx;
        if let Some(kinds) = &t.errors_by_kind {
            add_named(a.errors_by_kind.get_or_insert_with(Named::default), kinds);
        }
        if let Some(retries) = t.retries {
            *a.retries.get_or_insert(0) += retries;
        }
        if a.command.is_none() {
            a.command.clone_from(&t.command);
        }
    }

    /// Adds another sum (the rows of a run into its `Totals`, or the runs
    /// into the aggregate, then `with_seconds` false: the aggregate has no
    /// series, as in a single machine's file).
    pub fn add(&mut self, other: &RowSum, with_seconds: bool) {
        self.add_totals(&other.totals);
        self.latency_sum_us += other.latency_sum_us;
        let _ = self.histogram.add(&other.histogram);
        self.moved += other.moved;
        self.ask += other.ask;
        if with_seconds {
            self.seconds_complete &= other.seconds_complete;
            for (k, s) in &other.seconds {
                self.seconds
                    .entry(*k)
                    .or_insert_with(SecondSum::zero)
                    .add(s);
            }
        }
    }

    /// The exact counts, with the exact latency sum.
    pub fn totals_json(&self) -> OpTotals {
        OpTotals {
            latency_sum_us: Some(self.latency_sum_us.round() as u64),
            ..self.totals.clone()
        }
    }

    /// The mean latency, µs (0 without replies).
    pub fn mean_us(&self) -> f64 {
        if self.totals.count == 0 {
            0.0
        } else {
            self.latency_sum_us / self.totals.count as f64
        }
    }
}

impl Default for RowSum {
    fn default() -> Self {
        RowSum::new()
    }
}
