//! The server's CPU and network second by second during a phase, as the
//! whitepaper method watches them beside the client's: INFO's
//! `used_cpu_user` + `used_cpu_sys` and `total_net_input_bytes` /
//! `total_net_output_bytes` (memcached's `rusage_*` and `bytes_read` /
//! `bytes_written`, read into the same names), and Redis's
//! `total_commands_processed`, differenced between readings.
//!
//! On Redis 7 and later, each reading also takes `LATENCY HISTOGRAM`, so
//! that each second has the server's own time per command
//! ([`ServerSecondUse::latency`]); a server that refuses it (before Redis 7,
//! `latency-tracking no`) is not asked again that phase.
//!
//! The master reads INFO on its control connection at the phase's start and
//! at each completed second, where it reads this machine's counters too: the
//! workers never wait for it (their reports queue in the channel meanwhile).
//! A reading that fails stops the series for the rest of the phase, so a
//! server that stopped answering costs at most one `--connection-timeout`,
//! not one per second; the connection is reopened for the phase's closing
//! evidence as before.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::engine::master::server::info::Software;
use crate::engine::master::server::latency::{self, Cumulative, LatencySnapshot};
use crate::engine::master::server::{ControlLink, Info};

/// One reading of the server's counters.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerReading {
    /// When the master had the reply.
    pub at: Instant,
    /// The process's identity (INFO `run_id`; memcached's pid and start).
    pub run_id: Option<String>,
    /// CPU seconds, user + system, all its threads.
    pub cpu_s: Option<f64>,
    /// Bytes read from its clients.
    pub net_input_bytes: Option<u64>,
    /// Bytes written to them.
    pub net_output_bytes: Option<u64>,
    /// Commands processed (INFO `total_commands_processed`).
    pub commands: Option<u64>,
    /// Every command's histogram (Redis 7+), when asked for and answered.
    pub latency: Option<LatencySnapshot>,
}

/// What the server did between two readings; `None` where it does not
/// say, or where it restarted in between (its counters began again).
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSecondUse {
    /// Seconds between the readings, by this machine's clock.
    pub seconds: f64,
    /// CPU seconds used.
    pub cpu_s: Option<f64>,
    /// Bytes read.
    pub net_input_bytes: Option<u64>,
    /// Bytes written.
    pub net_output_bytes: Option<u64>,
    /// Commands processed (every client's).
    pub commands: Option<u64>,
    /// The histograms of the commands the server ran in between, by the
    /// server's name (`get`); `None` where either reading lacked them.
    pub latency: Option<BTreeMap<String, Cumulative>>,
}

/// A phase's readings, differenced.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSeries {
    /// The process's identity at the first reading.
    pub run_id: Option<String>,
    /// Each completed second.
    pub per_second: Vec<ServerSecondUse>,
}

impl ServerReading {
    /// The reading of `info`, taken at `at`.
    pub fn of(info: &Info, at: Instant) -> ServerReading {
        let cpu = match (info.f64("used_cpu_user"), info.f64("used_cpu_sys")) {
            (Some(user), Some(sys)) => Some(user + sys),
            _ => None,
        };
        ServerReading {
            at,
            run_id: info.get("run_id").map(str::to_string),
            cpu_s: cpu,
            net_input_bytes: info.u64("total_net_input_bytes"),
            net_output_bytes: info.u64("total_net_output_bytes"),
            commands: info.u64("total_commands_processed"),
            latency: None,
        }
    }

    /// What happened from `before` to this reading.
    pub fn since(&self, before: &ServerReading) -> ServerSecondUse {
        let seconds = self.at.saturating_duration_since(before.at).as_secs_f64();
        // After a restart the counters are the new process's: no difference
        // with the old one's means anything.
        let same = self.run_id == before.run_id;
        let grew = |a: Option<u64>, b: Option<u64>| Some(a?.saturating_sub(b?)).filter(|_| same);
        ServerSecondUse {
            seconds,
            cpu_s: match (self.cpu_s, before.cpu_s) {
                (Some(a), Some(b)) if same => Some((a - b).max(0.0)),
                _ => None,
            },
            net_input_bytes: grew(self.net_input_bytes, before.net_input_bytes),
            net_output_bytes: grew(self.net_output_bytes, before.net_output_bytes),
            commands: grew(self.commands, before.commands),
            // A restart is handled by `since`: all of the new process's.
            latency: match (&self.latency, &before.latency) {
                (Some(now), Some(then)) => Some(now.since(then)),
                _ => None,
            },
        }
    }
}

/// Samples one server through the master's control connection.
#[derive(Debug, Default)]
pub struct ServerSampler {
    last: Option<ServerReading>,
    series: Option<ServerSeries>,
    /// True while `LATENCY HISTOGRAM` is read with each INFO.
    latency: bool,
}

impl ServerSampler {
    /// The first reading, at the phase's start; a server without INFO (or
    /// `None` for `link`, as in `--cluster-mode`) gives an empty sampler.
    pub fn start(link: Option<&mut ControlLink>) -> ServerSampler {
        let last = link.and_then(|l| read(l, true));
        ServerSampler {
            latency: last.as_ref().is_some_and(|r| r.latency.is_some()),
            series: last.as_ref().map(|r| ServerSeries {
                run_id: r.run_id.clone(),
                per_second: Vec::new(),
            }),
            last,
        }
    }

    /// A second completed: one more reading, unless an earlier one failed.
    pub fn second(&mut self, link: &mut ControlLink) {
        let Some(last) = &self.last else {
            return;
        };
        let Some(now) = read(link, self.latency) else {
            self.last = None;
            return;
        };
        // Refused once, not asked again this phase.
        self.latency &= now.latency.is_some();
        if let Some(series) = &mut self.series {
            series.per_second.push(now.since(last));
        }
        self.last = Some(now);
    }

    /// The series, when the first reading worked.
    pub fn finish(self) -> Option<ServerSeries> {
        self.series
    }
}

/// One reading on the open connection, without reopening it; with
/// `latency`, Redis's histograms too (read after INFO, whose `run_id` tells
/// a restart).
fn read(link: &mut ControlLink, latency: bool) -> Option<ServerReading> {
    let control = link.get()?;
    let info = control.info_checked().ok()??;
    let mut reading = ServerReading::of(&info, Instant::now());
    if latency && info.software != Software::Memcached {
        reading.latency = latency::read(control, info.get("run_id")).ok();
    }
    Some(reading)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant, SystemTime};

    use super::ServerReading;
    use crate::engine::master::server::Info;

    fn info(run_id: &str, user: f64, sys: f64, input: u64, output: u64) -> Info {
        let text = format!(
            "# Server\r\nrun_id:{run_id}\r\n# Stats\r\ntotal_commands_processed:{input}\r\ntotal_net_input_bytes:{input}\r\ntotal_net_output_bytes:{output}\r\n# CPU\r\nused_cpu_sys:{sys}\r\nused_cpu_user:{user}\r\n"
        );
        Info::parse(&text, SystemTime::now())
    }

    #[test]
    fn a_second_is_the_growth_of_cpu_and_bytes_between_readings() {
        let t0 = Instant::now();
        let a = ServerReading::of(&info("x", 1.0, 0.5, 100, 1000), t0);
        let b = ServerReading::of(
            &info("x", 1.5, 0.75, 400, 5000),
            t0 + Duration::from_secs(1),
        );
        let s = b.since(&a);
        assert_eq!(s.seconds, 1.0);
        assert_eq!(s.cpu_s, Some(0.75));
        assert_eq!(
            (s.net_input_bytes, s.net_output_bytes),
            (Some(300), Some(4000))
        );
        assert_eq!(s.commands, Some(300));
    }

    #[test]
    fn a_restart_between_readings_leaves_the_second_unknown() {
        let t0 = Instant::now();
        let a = ServerReading::of(&info("x", 9.0, 9.0, 900, 900), t0);
        let b = ServerReading::of(&info("y", 0.1, 0.1, 10, 10), t0);
        let s = b.since(&a);
        assert_eq!(
            (s.cpu_s, s.net_input_bytes, s.net_output_bytes),
            (None, None, None)
        );
    }
}
