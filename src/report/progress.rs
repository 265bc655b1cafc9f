//! The live progress line on stderr: phase, %, elapsed, ops/sec, average latency.
//!
//! On a terminal the line is redrawn every second; when stderr is a file or a
//! pipe (CI logs) only one line per finished phase is printed, so logs stay short.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use crate::config::{Config, Stop};
use crate::results::{Phase, PhaseResult, rate};
use crate::stats::Stats;
use crate::stats::series::Second;

/// State of the progress display.
pub struct Progress {
    live: bool,
    enabled: bool,
    threads: usize,
    connections: usize,
    planned_requests: u64,
    /// Requests a run plans (`-n` or `allkeys`); the prefill plans one per key.
    run_requests: u64,
    key_range: u64,
    phase: Phase,
    stop: Stop,
}

impl Progress {
    /// A progress display for this configuration; `enabled` false prints nothing.
    pub fn new(config: &Config, enabled: bool) -> Self {
        let planned_requests = match config.stop {
            Stop::Requests(n) => n.saturating_mul(config.connections() as u64),
            Stop::AllKeys => config.keys.range.len(),
            Stop::Time(_) => 0,
        };
        Progress {
            live: enabled && std::io::stderr().is_terminal(),
            enabled,
            threads: config.threads,
            connections: config.connections(),
            planned_requests,
            run_requests: planned_requests,
            key_range: config.keys.range.len(),
            phase: Phase::Warmup,
            stop: config.stop,
        }
    }

    /// A phase begins.
    pub fn start_phase(&mut self, phase: Phase, stop: Stop) {
        self.phase = phase;
        self.stop = stop;
        self.planned_requests = if phase == Phase::Prefill {
            self.key_range
        } else {
            self.run_requests
        };
    }

    /// A second of the phase is complete.
    pub fn second(&mut self, s: &Second, total: &Stats, elapsed: Duration, open: usize) {
        if !self.live {
            return;
        }
        let all = total.totals();
        let percent = match self.stop {
            Stop::Time(d) => 100.0 * elapsed.as_secs_f64() / d.as_secs_f64().max(1e-9),
            _ if self.planned_requests > 0 => {
                100.0 * all.count as f64 / self.planned_requests as f64
            }
            _ => 0.0,
        };
        let line = format!(
            "[{} {:>3.0}%, {:>4} secs] {:>2} threads {:>5} conns: {:>11} ops, {:>9.0} (avg: {:>9.0}) ops/sec, {:>6.3} (avg: {:>6.3}) msec latency",
            self.phase,
            percent.min(100.0),
            elapsed.as_secs(),
            self.threads,
            open,
            all.count,
            s.totals.count as f64,
            rate(all.count, elapsed),
            s.totals.mean_us / 1000.0,
            all.mean_us() / 1000.0,
        );
        let line = if self.phase == Phase::Prefill {
            self.prefill_line(all.count, elapsed)
        } else {
            line
        };
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{line}\x1b[K");
        let _ = err.flush();
    }

    /// The prefill's line: keys written, keys per second and the time left.
    fn prefill_line(&self, written: u64, elapsed: Duration) -> String {
        let per_sec = rate(written, elapsed);
        let left = self.planned_requests.saturating_sub(written);
        let eta = if per_sec > 0.0 {
            left as f64 / per_sec
        } else {
            f64::INFINITY
        };
        format!(
            "[PREFILL {:>3.0}%, {:>4} secs] {written} of {} keys, {per_sec:.0} keys/sec, ETA {eta:.0} secs",
            100.0 * written as f64 / self.planned_requests.max(1) as f64,
            elapsed.as_secs(),
            self.planned_requests,
        )
    }

    /// A phase ended: one summary line.
    pub fn end_phase(&mut self, r: &PhaseResult) {
        if !self.enabled {
            return;
        }
        let all = r.stats.totals();
        let mut err = std::io::stderr().lock();
        if self.live {
            let _ = write!(err, "\r\x1b[K");
        }
        let _ = writeln!(
            err,
            "[{}] {:.2} secs (then {:.2} secs of drain), {} threads, {} conns: {} ops, {:.0} ops/sec, {:.3} msec avg latency",
            r.phase,
            r.duration.as_secs_f64(),
            r.drain.as_secs_f64(),
            self.threads,
            self.connections,
            all.count,
            r.ops_per_sec(),
            all.mean_us() / 1000.0
        );
    }
}
