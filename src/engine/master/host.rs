//! The client machine's own load during a phase, as the whitepaper method
//! watches it: this process's CPU (user + system, `getrusage`), the whole
//! machine's CPU (`/proc/stat`: busy over all ticks of every core), and the
//! bytes of the network interface that carries the traffic to the target
//! (`/proc/net/dev`). The master reads them at the phase's start, at each
//! completed second and at its end; nothing here runs on a worker thread.
//!
//! The interface is the one holding the local address the kernel picks for
//! the target (a UDP socket connected to it sends nothing): `lo` for a
//! server on this machine, `eth0` or a veth for one across a network. A
//! UNIX socket has none, and its net counters are absent.

use std::net::{SocketAddr, UdpSocket};
use std::time::Instant;

use crate::config::target::Endpoint;
use crate::engine::master::sysinfo::interface_of;
use crate::engine::worker::net::resolve;

/// One reading of the counters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    /// When it was taken.
    pub at: Instant,
    /// This process's CPU seconds, user + system, all threads.
    pub process_cpu_s: f64,
    /// `/proc/stat`'s busy ticks (all but idle and iowait), every core.
    pub busy_ticks: u64,
    /// All ticks, every core.
    pub total_ticks: u64,
    /// The interface's received and sent bytes.
    pub net: Option<(u64, u64)>,
}

/// The difference of two readings: what the machine did in between.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostUse {
    /// Seconds between the readings.
    pub seconds: f64,
    /// This process's CPU seconds.
    pub process_cpu_s: f64,
    /// The machine's busy share of all its cores, percent (100 = every core busy).
    pub machine_cpu_percent: f64,
    /// Bytes received and sent on the interface.
    pub net: Option<(u64, u64)>,
}

/// What a phase's readings found.
#[derive(Debug, Clone, PartialEq)]
pub struct HostPhase {
    /// The interface towards the target.
    pub interface: Option<String>,
    /// The machine's cores.
    pub cores: usize,
    /// From the phase's start to its end.
    pub whole: HostUse,
    /// Each completed second.
    pub per_second: Vec<HostUse>,
}

/// Reads the counters of this process, this machine and one interface.
#[derive(Debug, Clone)]
pub struct HostMeter {
    /// The interface that carries the traffic to the target.
    pub interface: Option<String>,
    /// Cores the machine has.
    pub cores: usize,
}

impl HostMeter {
    /// The meter for a run against `endpoint`.
    pub fn for_target(endpoint: &Endpoint) -> HostMeter {
        let interface = match endpoint {
            Endpoint::Unix(_) => None,
            Endpoint::Tcp { host, port, family } => resolve(host, *port, *family)
                .ok()
                .and_then(local_address_towards)
                .and_then(interface_of),
        };
        HostMeter {
            interface,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }

    /// The counters now.
    pub fn read(&self) -> Reading {
        let (busy_ticks, total_ticks) = machine_ticks().unwrap_or((0, 0));
        Reading {
            at: Instant::now(),
            process_cpu_s: process_cpu_s(),
            busy_ticks,
            total_ticks,
            net: self.interface.as_deref().and_then(net_bytes),
        }
    }
}

impl Reading {
    /// What happened from `earlier` to this reading.
    pub fn since(&self, earlier: &Reading) -> HostUse {
        let total = self.total_ticks.saturating_sub(earlier.total_ticks);
        let busy = self.busy_ticks.saturating_sub(earlier.busy_ticks);
        HostUse {
            seconds: self.at.saturating_duration_since(earlier.at).as_secs_f64(),
            process_cpu_s: (self.process_cpu_s - earlier.process_cpu_s).max(0.0),
            machine_cpu_percent: if total == 0 {
                0.0
            } else {
                100.0 * busy as f64 / total as f64
            },
            net: match (self.net, earlier.net) {
                (Some((rx, tx)), Some((rx0, tx0))) => {
                    Some((rx.saturating_sub(rx0), tx.saturating_sub(tx0)))
                }
                _ => None,
            },
        }
    }
}

/// The local address the kernel would send from towards `target`.
fn local_address_towards(target: SocketAddr) -> Option<std::net::IpAddr> {
    let bind: SocketAddr = if target.is_ipv4() {
        "0.0.0.0:0".parse().ok()?
    } else {
        "[::]:0".parse().ok()?
    };
    let socket = UdpSocket::bind(bind).ok()?;
    socket.connect(target).ok()?;
    Some(socket.local_addr().ok()?.ip())
}

/// This process's user + system CPU seconds.
fn process_cpu_s() -> f64 {
    // SAFETY: an all-zero rusage is a valid value for getrusage to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable rusage.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0.0;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// `/proc/stat`'s first line: (busy, total) ticks over every core.
fn machine_ticks() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    parse_cpu_line(text.lines().next()?)
}

/// `cpu  user nice system idle iowait irq softirq steal guest guest_nice`:
/// guest time is already in user and nice, so only the first eight add.
fn parse_cpu_line(line: &str) -> Option<(u64, u64)> {
    let mut fields = line.split_whitespace();
    if fields.next()? != "cpu" {
        return None;
    }
    let ticks: Vec<u64> = fields
        .take(8)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    let total: u64 = ticks.iter().sum();
    let idle = ticks.get(3)? + ticks.get(4).copied().unwrap_or(0);
    Some((total - idle, total))
}

/// `/proc/net/dev`'s received and sent bytes of `interface`.
fn net_bytes(interface: &str) -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/net/dev").ok()?;
    parse_net_dev(&text, interface)
}

fn parse_net_dev(text: &str, interface: &str) -> Option<(u64, u64)> {
    text.lines().find_map(|line| {
        let (name, counters) = line.split_once(':')?;
        if name.trim() != interface {
            return None;
        }
        let fields: Vec<u64> = counters
            .split_whitespace()
            .map(|f| f.parse().ok())
            .collect::<Option<_>>()?;
        // Receive: bytes packets errs drop fifo frame compressed multicast;
        // then transmit: bytes ...
        Some((*fields.first()?, *fields.get(8)?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_line_splits_busy_from_idle_and_iowait() {
        let line = "cpu  100 5 50 800 40 3 2 0 7 0";
        // Busy: 100 + 5 + 50 + 3 + 2 + 0; idle 800 + iowait 40; guest not added.
        assert_eq!(parse_cpu_line(line), Some((160, 1000)));
        assert_eq!(parse_cpu_line("cpu0 1 2 3 4"), None);
    }

    #[test]
    fn the_interface_line_gives_its_received_and_sent_bytes() {
        let text = "Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n    lo: 123456     100    0    0    0     0          0         0   654321     99    0    0    0     0       0          0\n  eth0: 9 1 0 0 0 0 0 0 10 1 0 0 0 0 0 0\n";
        assert_eq!(parse_net_dev(text, "lo"), Some((123_456, 654_321)));
        assert_eq!(parse_net_dev(text, "eth0"), Some((9, 10)));
        assert_eq!(parse_net_dev(text, "eth1"), None);
    }

    #[test]
    fn a_reading_later_shows_this_processs_work_and_loopbacks_bytes() {
        let target = Endpoint::Tcp {
            host: "127.0.0.1".into(),
            port: 9,
            family: crate::config::target::AddressFamily::Any,
        };
        let meter = HostMeter::for_target(&target);
        assert_eq!(meter.interface.as_deref(), Some("lo"));
        let before = meter.read();
        // Burn some CPU in this process.
        let mut x = 0u64;
        for i in 0..30_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let used = meter.read().since(&before);
        assert!(used.process_cpu_s > 0.0, "{used:?}");
        assert!(
            (0.0..=100.0).contains(&used.machine_cpu_percent),
            "{used:?}"
        );
        assert!(used.net.is_some());
    }
}
