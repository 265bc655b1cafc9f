//! Counters and latency histograms, per op, mergeable with `+=`.
//!
//! A worker owns one [`Stats`] for the current second and hands a copy to the
//! master when the second ends; the master adds those copies into per-run totals
//! and per-second series. Histograms are merged, never averaged: a percentile of
//! merged histograms is the percentile of all the requests, while an average of
//! per-thread percentiles is a number that describes nothing.

pub mod errors;
pub mod gaps;
pub mod nodes;
mod op;
pub mod precision;
pub mod series;

pub use errors::ErrorCounts;
pub use nodes::NodeStats;
pub use op::OpStats;

use std::ops::AddAssign;

use hdrhistogram::Histogram;
use hdrhistogram::errors::CreationError;

use crate::config::{Config, Headline};
use crate::workload::ops::Witness;

/// Highest latency the histograms hold without resizing: one hour, in µs.
/// Larger values are still recorded (the histograms auto-resize), never clamped.
pub const LATENCY_MAX_US: u64 = 3_600_000_000;
/// Significant digits kept: 3 means a recorded value is off by at most 0.1 %.
pub const LATENCY_SIGFIG: u8 = 3;

/// An empty latency histogram in microseconds, 1 µs to one hour at 3 digits.
pub fn latency_histogram() -> Result<Histogram<u64>, CreationError> {
    let mut h = Histogram::new_with_bounds(1, LATENCY_MAX_US, LATENCY_SIGFIG)?;
    h.auto(true);
    // Every count written once now: the array is resident from the start,
    // so the first reply in a new latency range costs no page fault inside
    // the measured loop, and memory does not creep up as a run's tail
    // reaches new ranges.
    h.clear();
    Ok(h)
}

/// The latency at percentile `p` in µs, 0 for an empty histogram (which has no
/// latency to report).
pub fn percentile_us(h: &Histogram<u64>, p: f64) -> u64 {
    if h.is_empty() {
        0
    } else {
        h.value_at_percentile(p)
    }
}

/// The highest latency in µs, 0 for an empty histogram.
pub fn max_us(h: &Histogram<u64>) -> u64 {
    if h.is_empty() { 0 } else { h.max() }
}

/// Records a value; the histograms auto-resize, so this cannot fail for lack of
/// range, and the saturating fallback only keeps the API's `Err` arm honest.
#[inline]
pub fn record_into(h: &mut Histogram<u64>, value: u64) {
    if h.record(value).is_err() {
        h.saturating_record(value);
    }
}

/// `a += b` for histograms that exist only in open-loop runs.
fn merge_optional(a: &mut Option<Histogram<u64>>, b: &Option<Histogram<u64>>) {
    match (a.as_mut(), b) {
        (Some(a), Some(b)) => {
            let _ = a.add(b);
        }
        (None, Some(b)) => *a = Some(b.clone()),
        _ => {}
    }
}

/// Everything measured over some span of time by one thread, or merged.
#[derive(Debug, Clone)]
pub struct Stats {
    /// One entry per row of the op table (`Sets` and `Gets` for the default
    /// pair), indexed like [`crate::workload::ops::OpTable::rows`]; never
    /// empty, since every constructor makes at least one row.
    pub ops: Vec<OpStats>,
    /// Failures outside the replies.
    pub errors: ErrorCounts,
    /// With `--rate` only: schedule lag (actual − intended send) in µs.
    pub lag_us: Option<Histogram<u64>>,
    /// `--cluster-mode`: what each node answered (empty for one server).
    pub nodes: Vec<NodeStats>,
}

impl Stats {
    /// Empty stats for a closed loop with `rows` rows.
    pub fn new(rows: usize) -> Result<Self, CreationError> {
        Stats::with(rows, OpStats::new, false)
    }

    /// Empty stats for an open loop: service-time and schedule-lag histograms too.
    pub fn new_open_loop(rows: usize) -> Result<Self, CreationError> {
        Stats::with(rows, OpStats::new_open_loop, true)
    }

    fn with(
        rows: usize,
        op: fn() -> Result<OpStats, CreationError>,
        lag: bool,
    ) -> Result<Self, CreationError> {
        // At least one row, so that a hand-built empty table still has a
        // place for the prefill's SETs.
        let ops = (0..rows.max(1)).map(|_| op()).collect::<Result<_, _>>()?;
        Ok(Stats {
            ops,
            errors: ErrorCounts::default(),
            lag_us: if lag {
                Some(latency_histogram()?)
            } else {
                None
            },
            nodes: Vec::new(),
        })
    }

    /// Empty stats of the kind this run needs.
    pub fn for_run(open_loop: bool, rows: usize) -> Result<Self, CreationError> {
        if open_loop {
            Stats::new_open_loop(rows)
        } else {
            Stats::new(rows)
        }
    }

    /// Empty stats of the kind `config` needs: closed loop, `--rate` (response
    /// time headline) or `--rate-limiting` (service time headline), one row
    /// per row of its op table.
    pub fn for_config(config: &Config) -> Result<Self, CreationError> {
        let rows = config.ops.rows.len();
        match (config.rate, config.headline) {
            (None, _) => Stats::new(rows),
            (Some(_), Headline::ResponseTime) => Stats::new_open_loop(rows),
            (Some(_), Headline::ServiceTime) => {
                Stats::with(rows, OpStats::new_service_headline, true)
            }
        }
    }

    /// The counters of one row; rows beyond the table (which no request
    /// carries) fall into the last one rather than panicking.
    #[inline]
    pub fn op_mut(&mut self, row: usize) -> &mut OpStats {
        let last = self.ops.len().saturating_sub(1);
        &mut self.ops[row.min(last)]
    }

    /// The counters of one row, `None` beyond the table.
    pub fn op(&self, row: usize) -> Option<&OpStats> {
        self.ops.get(row)
    }

    /// Every row merged.
    pub fn totals(&self) -> OpStats {
        // Never empty: every constructor makes at least one row.
        let mut all = self.ops[0].clone();
        for op in &self.ops[1..] {
            all += op;
        }
        all
    }

    /// The rows in `rows` merged (the GET-like rows, for a hit rate).
    pub fn merged(&self, rows: impl Iterator<Item = usize>) -> Option<OpStats> {
        let mut all: Option<OpStats> = None;
        for op in rows.filter_map(|r| self.ops.get(r)) {
            match all.as_mut() {
                Some(a) => *a += op,
                None => all = Some(op.clone()),
            }
        }
        all
    }

    /// Replies of every op (successes and error replies alike, as memtier
    /// counts them).
    pub fn replies(&self) -> u64 {
        self.ops.iter().map(|o| o.count).sum()
    }

    /// The replies counted under one witness, the error replies answered
    /// with a retry (`--retry-on-error`) included: each was a call the server
    /// counted.
    pub fn witnessed(&self, w: &Witness) -> u64 {
        w.rows
            .iter()
            .filter_map(|&r| self.op(r))
            .map(|o| o.count + o.retries)
            .sum()
    }

    /// Error replies (`-OOM`, `-ERR`, ...) of every op.
    pub fn error_replies(&self) -> u64 {
        self.ops.iter().map(|o| o.errors).sum()
    }

    /// Replies that were not errors: what the server actually did.
    pub fn successes(&self) -> u64 {
        self.replies().saturating_sub(self.error_replies())
    }

    /// Clears everything, keeping the histograms' memory.
    pub fn reset(&mut self) {
        for op in &mut self.ops {
            op.reset();
        }
        self.errors = ErrorCounts::default();
        if let Some(h) = self.lag_us.as_mut() {
            h.reset();
        }
        for node in &mut self.nodes {
            node.reset();
        }
    }
}

impl AddAssign<&Stats> for Stats {
    fn add_assign(&mut self, other: &Stats) {
        // Both sides come from one op table; a shorter side gains the rows
        // it lacks rather than losing the other's.
        for (i, op) in other.ops.iter().enumerate() {
            match self.ops.get_mut(i) {
                Some(mine) => *mine += op,
                None => self.ops.push(op.clone()),
            }
        }
        self.errors += &other.errors;
        merge_optional(&mut self.lag_us, &other.lag_us);
        nodes::merge_nodes(&mut self.nodes, &other.nodes);
    }
}

#[cfg(test)]
mod tests;
