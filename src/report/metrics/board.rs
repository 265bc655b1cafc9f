//! What the `/metrics` endpoint shows, as numbers: one [`PhaseSeries`] per
//! phase seen (per sweep cell), each holding its ops' counters and latency
//! buckets, plus the gauges of the phase in progress.
//!
//! A series is replaced from the phase's running total every second, never
//! added to, so it can only grow (the total only grows) and its final value is
//! the phase's `PhaseResult` itself: the numbers kvbench's JSON reports.

use hdrhistogram::Histogram;

use crate::engine::master::results::Phase;
use crate::engine::stats::{ErrorCounts, OpStats, Stats};
use crate::protocol::resp::ServerErrorKind;

/// Upper bounds of the latency buckets, µs: 1–2.5–5 steps from 10 µs to
/// 10 s (Prometheus' default buckets follow the same steps from 5 ms), so
/// that a local server's tens of µs and a stalled one's seconds both fall
/// into buckets that tell them apart. `+Inf` follows them.
pub const BUCKET_BOUNDS_US: [u64; 19] = [
    10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000,
    500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000,
];

/// One op's numbers over one phase so far.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OpSeries {
    /// The op's key in kvbench's JSON (`SET`, `GET`, `GET#2`): the `op` label.
    pub name: String,
    /// Replies, error replies included.
    pub count: u64,
    /// GET-like replies with a value.
    pub hits: u64,
    /// GET-like nil replies.
    pub misses: u64,
    /// Error replies by kind, indexed like [`ServerErrorKind::ALL`].
    pub errors_by_kind: [u64; ServerErrorKind::ALL.len()],
    /// Request bytes of the replies received.
    pub bytes_tx: u64,
    /// Reply bytes.
    pub bytes_rx: u64,
    /// Exact sum of the recorded latencies, µs.
    pub latency_sum_us: u64,
    /// Latencies at most each bound of the board's buckets
    /// ([`BUCKET_BOUNDS_US`] unless `--prometheus-latency-buckets`), cumulative.
    pub buckets: Vec<u64>,
    /// Every recorded latency (the `+Inf` bucket and `_count`).
    pub recorded: u64,
}

impl OpSeries {
    fn of(name: &str, s: &OpStats, bounds_us: &[u64]) -> OpSeries {
        OpSeries {
            name: name.to_string(),
            count: s.count,
            hits: s.hits,
            misses: s.misses,
            errors_by_kind: s.errors_by_kind,
            bytes_tx: s.bytes_tx,
            bytes_rx: s.bytes_rx,
            latency_sum_us: s.latency_sum_us,
            buckets: cumulative_buckets(&s.latency_us, bounds_us),
            recorded: s.latency_us.len(),
        }
    }
}

/// How many recorded values are at most each bound, in one pass over the
/// histogram's recorded buckets. A bucket of the histogram counts as at most
/// a bound when its lowest equivalent value is, so the answer is exact to
/// the histogram's precision (3 significant digits: 0.1 %).
pub fn cumulative_buckets(h: &Histogram<u64>, bounds_us: &[u64]) -> Vec<u64> {
    let mut per_bucket = vec![0u64; bounds_us.len()];
    for v in h.iter_recorded() {
        let value = h.lowest_equivalent(v.value_iterated_to());
        // Values above the last bound are only in `+Inf`.
        if let Some(i) = bounds_us.iter().position(|&b| value <= b) {
            per_bucket[i] += v.count_at_value();
        }
    }
    let mut running = 0;
    for n in &mut per_bucket {
        running += *n;
        *n = running;
    }
    per_bucket
}

/// One phase's series (of one sweep cell).
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseSeries {
    /// The sweep cell's label (`pipeline=4`), `None` outside a sweep.
    pub cell: Option<String>,
    /// Which phase.
    pub phase: Phase,
    /// One entry per row of the op table.
    pub ops: Vec<OpSeries>,
    /// Failures that are not replies.
    pub failures: ErrorCounts,
}

impl PhaseSeries {
    /// The `phase` label: `prefill`, `warmup` or `run`.
    pub fn phase_label(&self) -> &'static str {
        phase_label(self.phase)
    }

    /// The `run` label: 1..n for a measured run, 0 otherwise.
    pub fn run_label(&self) -> u32 {
        match self.phase {
            Phase::Run(n) => n,
            Phase::Prefill | Phase::Warmup => 0,
        }
    }
}

/// The `phase` label of a phase.
pub fn phase_label(phase: Phase) -> &'static str {
    match phase {
        Phase::Prefill => "prefill",
        Phase::Warmup => "warmup",
        Phase::Run(_) => "run",
    }
}

/// Everything the endpoint shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Board {
    /// `--shard-index` (or the launcher's): the `shard` label.
    pub shard: Option<u32>,
    /// `--prometheus-run-label`: labels every series carries, first.
    pub run_labels: Vec<(String, String)>,
    /// `--prometheus-latency-buckets`, µs; `None`: [`BUCKET_BOUNDS_US`].
    pub bucket_bounds_us: Option<Vec<u64>>,
    /// The row names of the run's op table.
    pub run_rows: Vec<String>,
    /// The row names of the prefill's op table (its own for `--command` runs).
    pub prefill_rows: Vec<String>,
    /// The sweep cell in progress.
    pub cell: Option<String>,
    /// Every phase seen, in order.
    pub series: Vec<PhaseSeries>,
    /// The phase in progress, `None` between phases.
    pub current: Option<Phase>,
    /// Connections open at the last report.
    pub open: usize,
    /// True once the whole run has ended: the values are final.
    pub finished: bool,
}

impl Board {
    /// The latency buckets' upper bounds, µs (`+Inf` follows them).
    pub fn bounds_us(&self) -> &[u64] {
        self.bucket_bounds_us
            .as_deref()
            .unwrap_or(&BUCKET_BOUNDS_US)
    }

    /// A phase begins: its series starts at zero, so a scraper sees every
    /// op from the phase's first second.
    pub fn start_phase(&mut self, phase: Phase, empty: &Stats) {
        self.current = Some(phase);
        let series = self.series_of(phase, empty);
        self.series.push(series);
    }

    /// The phase so far (or its final result) replaces its series.
    pub fn update(&mut self, phase: Phase, total: &Stats) {
        let series = self.series_of(phase, total);
        let cell = self.cell.clone();
        match self
            .series
            .iter_mut()
            .rev()
            .find(|s| s.phase == phase && s.cell == cell)
        {
            Some(old) => *old = series,
            None => self.series.push(series),
        }
    }

    /// A phase ended.
    pub fn end_phase(&mut self, phase: Phase, result: &Stats) {
        self.update(phase, result);
        self.current = None;
    }

    fn series_of(&self, phase: Phase, stats: &Stats) -> PhaseSeries {
        let rows = match phase {
            Phase::Prefill => &self.prefill_rows,
            Phase::Warmup | Phase::Run(_) => &self.run_rows,
        };
        let ops = stats
            .ops
            .iter()
            .enumerate()
            .map(|(i, op)| {
                let name = rows.get(i).cloned().unwrap_or_else(|| format!("row{i}"));
                OpSeries::of(&name, op, self.bounds_us())
            })
            .collect();
        PhaseSeries {
            cell: self.cell.clone(),
            phase,
            ops,
            failures: stats.errors,
        }
    }
}
