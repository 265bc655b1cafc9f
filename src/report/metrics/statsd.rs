//! StatsD over UDP, as memtier_benchmark sends it (its `--statsd-*` flags
//! and docs/REALTIME_METRICS.md): once a second `ops_sec`, `ops_sec_avg`,
//! `bytes_sec`, `bytes_sec_avg` and `connections` as gauges, `latency_ms`
//! and `latency_avg_ms` as timings, `progress_pct`, `connection_errors`
//! (only once there are any) and one `latency_p<N>` gauge per
//! `--print-percentiles` value; at the end of a phase the rate and progress
//! gauges are set to 0, so that a graph drops back.
//!
//! Unlike memtier, whose every metric is a datagram of its own, one second's
//! lines travel together, separated by line feeds, in datagrams of at most
//! [`MAX_DATAGRAM`] bytes (StatsD's multi-metric packets). A send that fails
//! is counted (and said once), never fatal: the benchmark is what matters.

use std::io;
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};
use std::time::Duration;

use crate::config::{Config, StatsdTarget, Stop};
use crate::engine::master::results::{Phase, PhaseResult};
use crate::engine::master::sink::Sink;
use crate::engine::stats::Stats;
use crate::engine::stats::series::Second;
use crate::error::UsageError;
use crate::error::note;

/// The largest datagram sent: StatsD's advice for a LAN (1500-byte
/// Ethernet frames less the IP and UDP headers, with room to spare).
pub const MAX_DATAGRAM: usize = 1432;

/// The gauges memtier sets to 0 when a run ends.
const ZEROED_AT_END: [&str; 5] = [
    "ops_sec",
    "ops_sec_avg",
    "bytes_sec",
    "bytes_sec_avg",
    "progress_pct",
];

/// Sends a run's StatsD lines.
pub struct Statsd {
    socket: UdpSocket,
    to: SocketAddr,
    /// `prefix.label.`
    prefix: String,
    percentiles: Vec<f64>,
    connections: u64,
    keys: u64,
    stop: Stop,
    /// Datagrams sent and failed.
    sent: u64,
    failed: u64,
}

impl Statsd {
    /// Resolves the target and opens a non-blocking UDP socket aimed at it.
    pub fn open(target: &StatsdTarget, config: &Config) -> Result<Statsd, UsageError> {
        let to = (target.host.as_str(), target.port)
            .to_socket_addrs()
            .ok()
            .and_then(|mut all| all.next())
            .ok_or_else(|| {
                UsageError::new(
                    "--statsd-host",
                    format!(
                        "`{}` does not resolve; give the StatsD server's name or address",
                        target.host
                    ),
                )
            })?;
        let local: SocketAddr = if to.is_ipv4() {
            ([0, 0, 0, 0], 0).into()
        } else {
            ([0u16; 8], 0).into()
        };
        let socket = UdpSocket::bind(local)
            .and_then(|s| s.connect(to).map(|()| s))
            .and_then(|s| s.set_nonblocking(true).map(|()| s))
            .map_err(|e| {
                UsageError::new(
                    "--statsd-host",
                    format!("cannot open a UDP socket to {to}: {e}"),
                )
            })?;
        let shards = config.shard.map_or(1, |s| u64::from(s.count));
        Ok(Statsd {
            socket,
            to,
            prefix: target.name_prefix(),
            percentiles: config.output.percentiles.clone(),
            connections: config.connections() as u64,
            keys: config.keys.range.len() / shards.max(1),
            stop: config.stop,
            sent: 0,
            failed: 0,
        })
    }

    /// Datagrams that could not be sent, and all datagrams tried.
    pub fn failures(&self) -> (u64, u64) {
        (self.failed, self.sent + self.failed)
    }

    /// Sends `lines` packed into datagrams.
    fn send(&mut self, lines: &[String]) {
        for datagram in pack(lines, MAX_DATAGRAM) {
            match self.socket.send(datagram.as_bytes()) {
                Ok(_) => self.sent += 1,
                Err(e) => self.failed(&e),
            }
        }
    }

    fn failed(&mut self, e: &io::Error) {
        if self.failed == 0 {
            note(format_args!(
                "kvbench: StatsD: cannot send to {}: {e}; the run goes on and failed sends are counted",
                self.to
            ));
        }
        self.failed += 1;
    }

    /// How far the phase is, in percent (memtier's `progress_pct`).
    fn progress_pct(&self, done: u64, elapsed: Duration) -> f64 {
        let pct = match self.stop {
            Stop::Time(d) if !d.is_zero() => elapsed.as_secs_f64() / d.as_secs_f64() * 100.0,
            Stop::Requests(n) => ratio(done, n.saturating_mul(self.connections)),
            Stop::AllKeys => ratio(done, self.keys),
            Stop::Time(_) => 100.0,
        };
        pct.min(100.0)
    }
}

fn ratio(done: u64, planned: u64) -> f64 {
    if planned == 0 {
        100.0
    } else {
        done as f64 / planned as f64 * 100.0
    }
}

/// The lines of one second, as memtier names and formats them.
pub fn second_lines(
    prefix: &str,
    s: &Second,
    total: &Stats,
    elapsed: Duration,
    open: usize,
    progress_pct: f64,
    percentiles: &[f64],
) -> Vec<String> {
    let secs = elapsed.as_secs_f64();
    let per_sec = |n: u64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
    let done = total.replies();
    let bytes: u64 = total.ops.iter().map(|o| o.bytes_rx + o.bytes_tx).sum();
    let latency_sum: u64 = total.ops.iter().map(|o| o.latency_sum_us).sum();
    let avg_ms = if done == 0 {
        0.0
    } else {
        latency_sum as f64 / done as f64 / 1000.0
    };
    let connection_errors = total.errors.connection + total.errors.refused;
    let mut lines = vec![
        format!("{prefix}ops_sec:{}|g", s.totals.count),
        format!("{prefix}ops_sec_avg:{}|g", per_sec(done) as u64),
        format!(
            "{prefix}bytes_sec:{}|g",
            s.totals.bytes_rx + s.totals.bytes_tx
        ),
        format!("{prefix}bytes_sec_avg:{}|g", per_sec(bytes) as u64),
        format!("{prefix}latency_ms:{:.3}|ms", s.totals.mean_us / 1000.0),
        format!("{prefix}latency_avg_ms:{avg_ms:.3}|ms"),
        format!("{prefix}connections:{open}|g"),
        format!("{prefix}progress_pct:{progress_pct:.6}|g"),
    ];
    if connection_errors > 0 {
        lines.push(format!("{prefix}connection_errors:{connection_errors}|g"));
    }
    // memtier sends the percentiles only for a second that had replies.
    if s.totals.count > 0 {
        for &p in percentiles {
            let us = s
                .totals
                .percentiles_us
                .iter()
                .find(|(q, _)| *q == p)
                .map_or(0, |(_, us)| *us);
            lines.push(format!(
                "{prefix}latency_p{}:{:.6}|g",
                percentile_name(p),
                us as f64 / 1000.0
            ));
        }
    }
    lines
}

/// `99.9` → `99_9`, `50` → `50` (memtier's `%g` with `.` replaced).
pub fn percentile_name(p: f64) -> String {
    p.to_string().replace('.', "_")
}

/// Lines joined by line feeds into datagrams of at most `max` bytes; a line
/// longer than that travels alone.
pub fn pack(lines: &[String], max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in lines {
        if !current.is_empty() && current.len() + 1 + line.len() > max {
            out.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push('\n');
        }
        current.push_str(line);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

impl Sink for Statsd {
    fn start_phase(&mut self, phase: Phase, stop: Stop) {
        let _ = phase;
        self.stop = stop;
    }

    fn second(&mut self, s: &Second, total: &Stats, elapsed: Duration, open: usize) {
        let pct = self.progress_pct(total.replies(), elapsed);
        let lines = second_lines(
            &self.prefix,
            s,
            total,
            elapsed,
            open,
            pct,
            &self.percentiles,
        );
        self.send(&lines);
    }

    fn end_phase(&mut self, _: &PhaseResult) {
        let lines: Vec<String> = ZEROED_AT_END
            .iter()
            .map(|name| format!("{}{name}:0|g", self.prefix))
            .collect();
        self.send(&lines);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{pack, percentile_name, second_lines};
    use crate::engine::stats::Stats;
    use crate::engine::stats::series::{OpSecond, Second};
    use crate::report::metrics::tests::stats;

    #[test]
    fn statsd_lines_are_memtiers_names_and_parse_as_statsd() {
        let total = stats(2);
        let mut one = Stats::new(2).unwrap();
        one.ops[1].record(1_000);
        one.ops[1].record(3_000);
        let totals = OpSecond::from_stats(&one.totals(), &[50.0, 99.9]);
        let second = Second {
            second: 1,
            ops: Vec::new(),
            totals,
            backlog: 0,
            moved: 0,
            ask: 0,
            retries: 0,
        };
        let lines = second_lines(
            "memtier.default.",
            &second,
            &total,
            Duration::from_secs(2),
            4,
            66.5,
            &[50.0, 99.9],
        );
        let mut names = Vec::new();
        for line in &lines {
            let (name, rest) = line.split_once(':').unwrap();
            let (value, kind) = rest.split_once('|').unwrap();
            assert!(value.parse::<f64>().is_ok(), "{line}");
            assert!(["g", "ms"].contains(&kind), "{line}");
            names.push(name.strip_prefix("memtier.default.").unwrap());
        }
        assert_eq!(
            names,
            [
                "ops_sec",
                "ops_sec_avg",
                "bytes_sec",
                "bytes_sec_avg",
                "latency_ms",
                "latency_avg_ms",
                "connections",
                "progress_pct",
                "connection_errors",
                "latency_p50",
                "latency_p99_9",
            ]
        );
        assert_eq!(lines[0], "memtier.default.ops_sec:2|g");
        assert_eq!(
            lines[1],
            format!("memtier.default.ops_sec_avg:{}|g", 81 / 2)
        );
        assert_eq!(lines[4], "memtier.default.latency_ms:2.000|ms");
        assert_eq!(lines[7], "memtier.default.progress_pct:66.500000|g");
        assert_eq!(lines[8], "memtier.default.connection_errors:2|g");
    }

    #[test]
    fn statsd_lines_pack_into_bounded_datagrams() {
        let lines: Vec<String> = (0..100).map(|i| format!("a.b.metric_{i}:{i}|g")).collect();
        let datagrams = pack(&lines, 200);
        assert!(datagrams.len() > 5, "{}", datagrams.len());
        assert!(datagrams.iter().all(|d| d.len() <= 200));
        let back: Vec<&str> = datagrams.iter().flat_map(|d| d.split('\n')).collect();
        assert_eq!(back, lines.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(pack(&["x".repeat(300)], 200).len(), 1);
        assert!(pack(&[], 200).is_empty());
        assert_eq!(percentile_name(99.9), "99_9");
        assert_eq!(percentile_name(50.0), "50");
        assert_eq!(percentile_name(99.99), "99_99");
    }
}
