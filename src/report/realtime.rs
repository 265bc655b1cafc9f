//! `--realtime-latencies` (memtier 2.4): once a second, a block of lines on
//! stderr with the second's throughput, bandwidth and GET miss rate, and each
//! `--print-percentiles` latency, every number beside its value over the phase
//! so far (`avg:`), three percentiles to a line as memtier wraps them:
//!
//! ```text
//! [RUN #1 3s] throughput 153287 (avg: 150112) ops/sec  8.62MB/sec (avg: 8.44MB/sec)  miss 49.86% (avg: 49.90%)
//! [RUN #1 3s] latency p50 1.215 (avg: 1.199)  p99 2.415 (avg: 2.388)  p99.9 9.151 (avg: 8.120) ms
//! ```
//!
//! With `--latency-window SECS` each block ends with the same percentiles
//! over the last SECS seconds (`latency win60s p50 …`, memtier's row of that
//! name), three to a line.
//!
//! memtier redraws its block in place on a terminal; kvbench writes the lines
//! one after another (its own progress line stays the one redrawn), so that a
//! terminal's scrollback and a log file hold the same lines.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use crate::config::{Config, Stop};
use crate::engine::master::results::{Phase, PhaseResult};
use crate::engine::master::sink::Sink;
use crate::engine::stats::series::{OpSecond, Second};
use crate::engine::stats::{OpStats, Stats, percentile_us};
use crate::report::latency_window::LatencyWindow;

/// Percentiles per latency line, as memtier wraps them.
const PER_LINE: usize = 3;

/// The `--realtime-latencies` sink.
pub struct Realtime {
    percentiles: Vec<f64>,
    /// The GET-like rows, whose nil replies are misses.
    hit_rows: Vec<usize>,
    phase: Phase,
    /// On a terminal each line first clears the progress line it lands on.
    clear: bool,
    /// `--latency-window`: the last seconds' latencies.
    window: Option<LatencyWindow>,
}

impl Realtime {
    /// The sink for `config`'s percentiles.
    pub fn new(config: &Config) -> Realtime {
        Realtime {
            percentiles: config.output.percentiles.clone(),
            hit_rows: config.ops.hit_rows().collect(),
            phase: Phase::Run(1),
            clear: std::io::stderr().is_terminal(),
            window: config.latency_window.map(LatencyWindow::new),
        }
    }
}

/// `hits` / (`hits` + `misses`) as a miss percentage, or `---` without GETs.
fn miss(hits: u64, misses: u64) -> String {
    match hits + misses {
        0 => "---".into(),
        n => format!("{:.2}%", 100.0 * misses as f64 / n as f64),
    }
}

fn mb(bytes: u64, secs: f64) -> f64 {
    bytes as f64 / 1024.0 / 1024.0 / secs.max(1e-9)
}

/// The block of one second: `s` the second, `all` the phase so far over `secs`.
pub fn block(
    label: &str,
    s: &OpSecond,
    second_misses: (u64, u64),
    all: &OpStats,
    all_misses: (u64, u64),
    secs: f64,
    percentiles: &[f64],
) -> Vec<String> {
    let at = format!("[{label} {}s]", secs.round() as u64);
    let mut lines = vec![format!(
        "{at} throughput {} (avg: {:.0}) ops/sec  {:.2}MB/sec (avg: {:.2}MB/sec)  miss {} (avg: {})",
        s.count,
        all.count as f64 / secs.max(1e-9),
        mb(s.bytes_rx + s.bytes_tx, 1.0),
        mb(all.bytes_rx + all.bytes_tx, secs),
        miss(second_misses.0, second_misses.1),
        miss(all_misses.0, all_misses.1),
    )];
    let chunks: Vec<&[f64]> = percentiles.chunks(PER_LINE).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        let fields: Vec<String> = chunk
            .iter()
            .map(|&p| {
                let now = s
                    .percentiles_us
                    .iter()
                    .find(|(q, _)| *q == p)
                    .map_or(0, |(_, us)| *us);
                let avg = percentile_us(&all.latency_us, p);
                format!(
                    "p{p} {:.3} (avg: {:.3})",
                    now as f64 / 1e3,
                    avg as f64 / 1e3
                )
            })
            .collect();
        let unit = if i + 1 == chunks.len() { " ms" } else { "" };
        lines.push(format!("{at} latency {}{unit}", fields.join("  ")));
    }
    lines
}

/// The window's lines: `percentiles` of `window`, three to a line, the
/// last ending in `ms`.
pub fn window_lines(
    label: &str,
    secs: f64,
    window_secs: usize,
    window: &hdrhistogram::Histogram<u64>,
    percentiles: &[f64],
) -> Vec<String> {
    let at = format!("[{label} {}s]", secs.round() as u64);
    let chunks: Vec<&[f64]> = percentiles.chunks(PER_LINE).collect();
    chunks
        .iter()
        .enumerate()
        .map(|(i, chunk)| {
            let fields: Vec<String> = chunk
                .iter()
                .map(|&p| format!("p{p} {:.3}", percentile_us(window, p) as f64 / 1e3))
                .collect();
            let unit = if i + 1 == chunks.len() { " ms" } else { "" };
            format!("{at} latency win{window_secs}s {}{unit}", fields.join("  "))
        })
        .collect()
}

impl Sink for Realtime {
    fn start_phase(&mut self, phase: Phase, _: Stop) {
        self.phase = phase;
        if let Some(w) = &mut self.window {
            w.reset();
        }
    }

    fn second(&mut self, s: &Second, total: &Stats, elapsed: Duration, _: usize) {
        let (mut hits, mut misses) = (0, 0);
        for &r in &self.hit_rows {
            if let Some(op) = s.ops.get(r) {
                hits += op.hits;
                misses += op.misses;
            }
        }
        let all = total.totals();
        let gets = total.merged(self.hit_rows.iter().copied());
        let all_misses = gets.map_or((0, 0), |g| (g.hits, g.misses));
        let label = self.phase.to_string();
        let mut lines = block(
            &label,
            &s.totals,
            (hits, misses),
            &all,
            all_misses,
            elapsed.as_secs_f64(),
            &self.percentiles,
        );
        if let Some(w) = &mut self.window {
            let secs = w.seconds();
            if let Some(h) = w.tick(&all.latency_us) {
                let (at, p) = (elapsed.as_secs_f64(), &self.percentiles);
                lines.extend(window_lines(&label, at, secs, h, p));
            }
        }
        let mut err = std::io::stderr().lock();
        for line in lines {
            let clear = if self.clear { "\r\x1b[K" } else { "" };
            let _ = writeln!(err, "{clear}{line}");
        }
    }

    fn end_phase(&mut self, _: &PhaseResult) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_wraps_percentiles_three_to_a_line_and_shows_misses() {
        let mut all = OpStats::new().unwrap();
        for us in [1_000, 2_000, 3_000, 4_000] {
            all.record(us);
        }
        all.count = 4;
        all.bytes_rx = 2 * 1024 * 1024;
        let s = OpSecond {
            count: 2,
            hits: 0,
            misses: 0,
            bytes_rx: 0,
            bytes_tx: 0,
            mean_us: 0.0,
            accumulated_us: 0.0,
            min_us: 0,
            max_us: 0,
            percentiles_us: vec![(50.0, 1_000), (99.0, 2_000)],
        };
        let p = [50.0, 99.0, 99.9, 99.99];
        let lines = block("RUN #1", &s, (1, 1), &all, (3, 1), 2.0, &p);
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines[0].starts_with("[RUN #1 2s] throughput 2 (avg: 2) ops/sec  0.00MB/sec (avg: 1.00MB/sec)  miss 50.00% (avg: 25.00%)"),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].starts_with("[RUN #1 2s] latency p50 1.000 (avg: "),
            "{}",
            lines[1]
        );
        assert!(!lines[1].ends_with(" ms"), "{}", lines[1]);
        assert!(lines[2].contains("p99.99 0.000 (avg: 4."), "{}", lines[2]);
        assert!(lines[2].ends_with(" ms"), "{}", lines[2]);
        assert_eq!(miss(0, 0), "---");
    }
}
