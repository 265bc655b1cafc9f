//! Per-second series: every thread's stats for second *s* merged into one summary.
//!
//! Each worker reports every second of a phase exactly once, so the master knows a
//! second is complete when all threads have reported it; it then merges the
//! histograms (all connections of all threads, unlike memtier, which takes its
//! series from one client) and keeps only the summary, never a histogram: a
//! second's full histograms go to `--hdr-file-prefix`'s `.hlog` as the run
//! goes, and the precision store (`super::precision`) keeps its own compact
//! copy, bounded. The summaries, kept for the whole phase, grow with the
//! run's length by what docs/design.md, "Memory", measures.

use std::collections::BTreeMap;

use crate::engine::stats::{OpStats, Stats, max_us, percentile_us};

/// One op's numbers for one second.
#[derive(Debug, Clone, PartialEq)]
pub struct OpSecond {
    /// Replies received in this second.
    pub count: u64,
    /// GET hits (0 for SET).
    pub hits: u64,
    /// GET misses (0 for SET).
    pub misses: u64,
    /// Reply bytes.
    pub bytes_rx: u64,
    /// Request bytes.
    pub bytes_tx: u64,
    /// Mean latency, µs.
    pub mean_us: f64,
    /// Sum of latencies, µs.
    pub accumulated_us: f64,
    /// Lowest latency, µs.
    pub min_us: u64,
    /// Highest latency, µs.
    pub max_us: u64,
    /// `(percentile, latency µs)` for each configured percentile. The
    /// second's histogram itself is not kept (memory stays flat however
    /// long the run): `--hdr-file-prefix` streams it to the run's `.hlog`.
    pub percentiles_us: Vec<(f64, u64)>,
}

impl OpSecond {
    /// Summarizes one op's merged stats.
    pub fn from_stats(s: &OpStats, percentiles: &[f64]) -> Self {
        let h = &s.latency_us;
        let empty = h.is_empty();
        OpSecond {
            count: s.count,
            hits: s.hits,
            misses: s.misses,
            bytes_rx: s.bytes_rx,
            bytes_tx: s.bytes_tx,
            mean_us: s.mean_us(),
            accumulated_us: s.latency_sum_us as f64,
            min_us: if empty { 0 } else { h.min() },
            max_us: max_us(h),
            percentiles_us: percentiles
                .iter()
                .map(|&p| (p, percentile_us(h, p)))
                .collect(),
        }
    }
}

/// All ops' numbers for one second of a phase.
#[derive(Debug, Clone, PartialEq)]
pub struct Second {
    /// Seconds since the phase started (0 is the first second).
    pub second: u64,
    /// One entry per row of the op table (SET and GET for the default pair).
    pub ops: Vec<OpSecond>,
    /// Every row together.
    pub totals: OpSecond,
    /// Open loop: requests due by the end of the second and not yet sent.
    pub backlog: u64,
    /// `--cluster-mode`: `-MOVED` replies followed this second, every row.
    pub moved: u64,
    /// `--cluster-mode`: `-ASK` replies followed this second, every row.
    pub ask: u64,
    /// `--cluster-mode`: requests sent again after `-TRYAGAIN` or
    /// `-CLUSTERDOWN` this second.
    pub retries: u64,
}

/// Collects per-thread reports into completed seconds.
#[derive(Debug)]
pub struct SeriesBuilder {
    threads: usize,
    percentiles: Vec<f64>,
    pending: BTreeMap<u64, (Stats, usize, u64)>,
    done: Vec<Second>,
}

impl SeriesBuilder {
    /// A builder expecting one report per second from each of `threads` workers.
    pub fn new(threads: usize, percentiles: &[f64]) -> Self {
        SeriesBuilder {
            threads,
            percentiles: percentiles.to_vec(),
            pending: BTreeMap::new(),
            done: Vec::new(),
        }
    }

    /// Adds one thread's stats for `second`. Returns the summary when this report
    /// completed the second.
    /// `backlog` is the thread's open-loop backlog at the end of the second.
    /// `sink` sees each completed second's merged stats (for interval logs)
    /// before they are reduced to a summary.
    pub fn add(
        &mut self,
        second: u64,
        stats: &Stats,
        backlog: u64,
        sink: &mut dyn FnMut(u64, &Stats),
    ) -> Option<&Second> {
        let complete = match self.pending.get_mut(&second) {
            Some((merged, reports, total_backlog)) => {
                *merged += stats;
                *reports += 1;
                *total_backlog += backlog;
                *reports >= self.threads
            }
            None => {
                self.pending.insert(second, (stats.clone(), 1, backlog));
                self.threads <= 1
            }
        };
        if !complete {
            return None;
        }
        let (merged, _, backlog) = self.pending.remove(&second)?;
        sink(second, &merged);
        self.done.push(self.summarize(second, &merged, backlog));
        self.done.last()
    }

    fn summarize(&self, second: u64, s: &Stats, backlog: u64) -> Second {
        let totals = s.totals();
        Second {
            second,
            ops: s
                .ops
                .iter()
                .map(|op| OpSecond::from_stats(op, &self.percentiles))
                .collect(),
            totals: OpSecond::from_stats(&totals, &self.percentiles),
            backlog,
            moved: totals.moved,
            ask: totals.ask,
            retries: s.errors.retries,
        }
    }

    /// Completes every second still waiting for reports (a thread that ended early
    /// reports no more) and returns the series in time order.
    pub fn finish(mut self, sink: &mut dyn FnMut(u64, &Stats)) -> Vec<Second> {
        let rest = std::mem::take(&mut self.pending);
        for (second, (merged, _, backlog)) in rest {
            sink(second, &merged);
            let summary = self.summarize(second, &merged, backlog);
            self.done.push(summary);
        }
        self.done.sort_by_key(|s| s.second);
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats_with(latencies: &[u64]) -> Stats {
        let mut s = Stats::new(2).unwrap();
        for &l in latencies {
            s.ops[1].record(l);
        }
        s
    }

    #[test]
    fn a_second_completes_when_every_thread_reported() {
        let mut b = SeriesBuilder::new(2, &[50.0]);
        assert!(b.add(0, &stats_with(&[10]), 0, &mut |_, _| {}).is_none());
        let done = b
            .add(0, &stats_with(&[1000]), 0, &mut |_, _| {})
            .unwrap()
            .clone();
        assert_eq!(done.ops[1].count, 2);
        assert_eq!(done.totals.count, 2);
        assert!(done.ops[1].max_us >= 999);
        assert_eq!(done.ops[1].min_us, 10);
    }

    #[test]
    fn finish_flushes_incomplete_seconds_in_order() {
        let mut b = SeriesBuilder::new(3, &[99.0]);
        b.add(1, &stats_with(&[5]), 0, &mut |_, _| {});
        b.add(0, &stats_with(&[5, 6]), 0, &mut |_, _| {});
        let series = b.finish(&mut |_, _| {});
        assert_eq!(
            series.iter().map(|s| s.second).collect::<Vec<_>>(),
            vec![0, 1]
        );
        assert_eq!(series[0].ops[1].count, 2);
    }

    #[test]
    fn a_second_counts_the_redirects_and_retries_of_every_thread() {
        let mut a = stats_with(&[10]);
        a.ops[0].moved = 2;
        a.ops[1].ask = 1;
        a.errors.retries = 4;
        let mut b = stats_with(&[20]);
        b.ops[1].moved = 3;
        let mut builder = SeriesBuilder::new(2, &[50.0]);
        builder.add(0, &a, 0, &mut |_, _| {});
        let done = builder.add(0, &b, 0, &mut |_, _| {}).unwrap();
        assert_eq!((done.moved, done.ask, done.retries), (5, 1, 4));
        // Redirects are not replies: the count is the two recorded latencies.
        assert_eq!(done.totals.count, 2);
    }
}
