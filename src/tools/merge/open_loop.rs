//! `open_loop` of a merged run (`--rate`, `--rate-limiting`): the asked and
//! achieved rates add, each latency block (service time, response time, the
//! never-sent requests' wait and schedule lag, per row) merges its histograms and recomputes its
//! percentiles, the backlog adds second by second, and the rate counts as
//! met only when every machine met its own.
//!
//! The blocks are summed as each machine's file is read ([`OpenLoopSum`]),
//! decoded, so that the merge holds one set of histograms, not every
//! machine's compressed text.

use hdrhistogram::Histogram;

use crate::config::{Arrival, Headline};
use crate::report::build::open_loop::latency_block;
use crate::report::json::round;
use crate::report::model::histogram::HistogramError;
use crate::report::model::kvbench::{LatencyBlock, OpenLoop};
use crate::report::model::named::Named;
use crate::tools::merge::combine::empty_histogram;

/// One latency block over the machines so far.
#[derive(Debug, Clone)]
struct BlockSum {
    histogram: Histogram<u64>,
    count: u64,
    /// Each machine's rounded mean times its count, µs.
    sum_us: f64,
}

impl BlockSum {
    fn of(b: &LatencyBlock) -> Result<BlockSum, HistogramError> {
        let mut histogram = empty_histogram();
        // Both auto-resize: adding cannot fail for lack of range.
        let _ = histogram.add(&b.compressed.decode()?);
        Ok(BlockSum {
            histogram,
            count: b.count,
            sum_us: b.average_latency_ms * 1000.0 * b.count as f64,
        })
    }

    fn add(&mut self, other: &BlockSum) {
        let _ = self.histogram.add(&other.histogram);
        self.count += other.count;
        self.sum_us += other.sum_us;
    }

    fn block(&self, percentiles: &[f64]) -> LatencyBlock {
        let mean_us = if self.count == 0 {
            0.0
        } else {
            self.sum_us / self.count as f64
        };
        latency_block(&self.histogram, mean_us, percentiles)
    }
}

/// The blocks of every row, keyed by the first machine's rows.
type Rows = Vec<(String, BlockSum)>;

fn rows_of(blocks: &Named<LatencyBlock>) -> Result<Rows, HistogramError> {
    blocks
        .iter()
        .map(|(k, b)| Ok((k.to_string(), BlockSum::of(b)?)))
        .collect()
}

/// The rows of a set the run recorded; a `null` row is left out.
fn recorded_rows_of(blocks: &Named<Option<LatencyBlock>>) -> Result<Rows, HistogramError> {
    blocks
        .iter()
        .filter_map(|(k, b)| Some((k, b.as_ref()?)))
        .map(|(k, b)| Ok((k.to_string(), BlockSum::of(b)?)))
        .collect()
}

/// Adds `b`'s rows into `a`'s; a row the first machine lacks is left out.
fn add_rows(a: &mut Rows, b: &Rows) {
    for (key, sum) in a.iter_mut() {
        if let Some((_, other)) = b.iter().find(|(k, _)| k == key) {
            sum.add(other);
        }
    }
}

fn rows_json(rows: &Rows, percentiles: &[f64]) -> Named<LatencyBlock> {
    Named(
        rows.iter()
            .map(|(k, s)| (k.clone(), s.block(percentiles)))
            .collect(),
    )
}

/// Every merged row is recorded.
fn recorded(rows: Named<LatencyBlock>) -> Named<Option<LatencyBlock>> {
    Named(rows.0.into_iter().map(|(k, b)| (k, Some(b))).collect())
}

/// One run's `open_loop`, summed over the machines so far.
#[derive(Debug, Clone)]
pub struct OpenLoopSum {
    /// Machines added.
    pub machines: usize,
    target_ops_per_sec: f64,
    arrival: Arrival,
    headline: Headline,
    met: bool,
    never_sent: u64,
    backlog_per_second: Vec<u64>,
    busiest_thread_cpu_percent: f64,
    schedule_lag: Option<BlockSum>,
    service_time: Rows,
    response_time: Rows,
    never_sent_wait: Rows,
}

impl OpenLoopSum {
    /// One machine's.
    pub fn of(o: &OpenLoop) -> Result<OpenLoopSum, HistogramError> {
        Ok(OpenLoopSum {
            machines: 1,
            target_ops_per_sec: o.target_ops_per_sec,
            arrival: o.arrival,
            headline: o.headline,
            met: o.met,
            never_sent: o.never_sent,
            backlog_per_second: o.backlog_per_second.clone(),
            busiest_thread_cpu_percent: o.busiest_thread_cpu_percent,
            schedule_lag: o.schedule_lag.as_ref().map(BlockSum::of).transpose()?,
            service_time: recorded_rows_of(&o.service_time)?,
            response_time: rows_of(&o.response_time)?,
            never_sent_wait: recorded_rows_of(&o.never_sent_wait)?,
        })
    }

    /// Adds another machine's (or another sum of machines).
    pub fn add(&mut self, other: &OpenLoopSum) {
        self.machines += other.machines;
        self.target_ops_per_sec += other.target_ops_per_sec;
        self.met &= other.met;
        self.never_sent += other.never_sent;
        let backlog = &mut self.backlog_per_second;
        if backlog.len() < other.backlog_per_second.len() {
            backlog.resize(other.backlog_per_second.len(), 0);
        }
        for (a, b) in backlog.iter_mut().zip(&other.backlog_per_second) {
            *a += b;
        }
        self.busiest_thread_cpu_percent = self
            .busiest_thread_cpu_percent
            .max(other.busiest_thread_cpu_percent);
        if let (Some(lag), Some(other)) = (&mut self.schedule_lag, &other.schedule_lag) {
            lag.add(other);
        }
        add_rows(&mut self.service_time, &other.service_time);
        add_rows(&mut self.response_time, &other.response_time);
        add_rows(&mut self.never_sent_wait, &other.never_sent_wait);
    }

    /// The merged `open_loop`; `achieved_ops_per_sec` is the merged run's
    /// rate.
    pub fn open_loop(&self, achieved_ops_per_sec: f64, percentiles: &[f64]) -> OpenLoop {
        OpenLoop {
            target_ops_per_sec: round(self.target_ops_per_sec, 2),
            arrival: self.arrival,
            achieved_ops_per_sec: round(achieved_ops_per_sec, 2),
            met: self.met,
            never_sent: self.never_sent,
            backlog_per_second: self.backlog_per_second.clone(),
            busiest_thread_cpu_percent: self.busiest_thread_cpu_percent,
            schedule_lag: self.schedule_lag.as_ref().map(|s| s.block(percentiles)),
            headline: self.headline,
            service_time: recorded(rows_json(&self.service_time, percentiles)),
            response_time: rows_json(&self.response_time, percentiles),
            never_sent_wait: recorded(rows_json(&self.never_sent_wait, percentiles)),
        }
    }
}
