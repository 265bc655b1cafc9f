//! A host watched through its Prometheus node exporter (`node://host:port`):
//! `/metrics` read once a second, the few series the whitepaper method
//! watches taken from it — `node_cpu_seconds_total` by core and mode (busy is
//! every mode but `idle`, `iowait` and `steal`, as `/proc/stat` is read for
//! this machine in [`crate::engine::master::host`]), and each interface's
//! `node_network_{receive,transmit}_bytes_total` and `node_network_speed_bytes`
//! (absent for `lo` and for virtual links without a speed).
//!
//! The exposition format's lines are `name{label="value",…} number`; only
//! those three families are parsed, by hand: a parser crate for the whole
//! format (with its regex and time dependencies) would cost the build more than these
//! forty lines. The scrape is one HTTP/1.0 GET with `Connection: close`,
//! every step bounded by the same timeout.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

use crate::config::target::Endpoint;
use crate::engine::master::watch::{AgentError, connect};

/// The largest /metrics body read: a node exporter with every collector on
/// writes a few hundred KiB; more is not a node exporter.
const MAX_BODY: usize = 8 * 1024 * 1024;

/// One scrape of the series kvbench reads.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeReading {
    /// When the body was read.
    pub at: Instant,
    /// Cores the host has (distinct `cpu` labels).
    pub cores: u32,
    /// CPU seconds by mode, summed over the cores.
    pub cpu_by_mode: BTreeMap<String, f64>,
    /// Each interface's received and sent bytes, and its speed in bytes per
    /// second where the host knows it.
    pub interfaces: BTreeMap<String, Nic>,
}

/// One interface's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Nic {
    /// Bytes received.
    pub rx_bytes: f64,
    /// Bytes sent.
    pub tx_bytes: f64,
    /// Bytes per second the link carries (`node_network_speed_bytes`).
    pub speed_bytes: Option<f64>,
}

/// What a host did between two scrapes.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeUse {
    /// Seconds between the scrapes, by this machine's clock.
    pub seconds: f64,
    /// Cores the host has.
    pub cores: u32,
    /// Cores kept busy on average (0 to `cores`).
    pub busy_cores: f64,
    /// Each interface's bytes per second, received and sent, and its speed.
    pub interfaces: Vec<NicUse>,
}

/// One interface's rates between two scrapes.
#[derive(Debug, Clone, PartialEq)]
pub struct NicUse {
    /// Its name (`eth0`).
    pub device: String,
    /// Bytes per second received.
    pub rx_bytes_per_sec: f64,
    /// Bytes per second sent.
    pub tx_bytes_per_sec: f64,
    /// Bytes per second the link carries, where known.
    pub speed_bytes_per_sec: Option<f64>,
}

/// Modes in which a core does no work.
const NOT_BUSY: [&str; 3] = ["idle", "iowait", "steal"];

impl NodeReading {
    /// What happened from `before` to this scrape.
    pub fn since(&self, before: &NodeReading) -> NodeUse {
        let seconds = self.at.saturating_duration_since(before.at).as_secs_f64();
        let s = seconds.max(1e-9);
        let busy = |r: &NodeReading| -> f64 {
            r.cpu_by_mode
                .iter()
                .filter(|(mode, _)| !NOT_BUSY.contains(&mode.as_str()))
                .map(|(_, v)| v)
                .sum()
        };
        // A counter that went back (an exporter or host restart) tells nothing.
        let grew = |a: f64, b: f64| (a - b).max(0.0);
        let interfaces = self
            .interfaces
            .iter()
            .filter_map(|(device, now)| {
                let then = before.interfaces.get(device)?;
                Some(NicUse {
                    device: device.clone(),
                    rx_bytes_per_sec: grew(now.rx_bytes, then.rx_bytes) / s,
                    tx_bytes_per_sec: grew(now.tx_bytes, then.tx_bytes) / s,
                    speed_bytes_per_sec: now.speed_bytes,
                })
            })
            .collect();
        NodeUse {
            seconds,
            cores: self.cores,
            busy_cores: (grew(busy(self), busy(before)) / s).min(f64::from(self.cores)),
            interfaces,
        }
    }
}

/// Parses the series kvbench reads out of a `/metrics` body.
pub fn parse(body: &str, at: Instant) -> Result<NodeReading, AgentError> {
    let mut cpus = std::collections::BTreeSet::new();
    let mut reading = NodeReading {
        at,
        cores: 0,
        cpu_by_mode: BTreeMap::new(),
        interfaces: BTreeMap::new(),
    };
    for line in body.lines() {
        if line.starts_with('#') {
            continue;
        }
        let Some((name, labels, value)) = sample(line) else {
            continue;
        };
        match name {
            "node_cpu_seconds_total" => {
                if let (Some(cpu), Some(mode)) = (label(labels, "cpu"), label(labels, "mode")) {
                    cpus.insert(cpu.to_string());
                    *reading.cpu_by_mode.entry(mode.to_string()).or_default() += value;
                }
            }
            "node_network_receive_bytes_total"
            | "node_network_transmit_bytes_total"
            | "node_network_speed_bytes" => {
                let Some(device) = label(labels, "device") else {
                    continue;
                };
                let nic = reading.interfaces.entry(device.to_string()).or_default();
                match name {
                    "node_network_receive_bytes_total" => nic.rx_bytes = value,
                    "node_network_transmit_bytes_total" => nic.tx_bytes = value,
                    // The kernel says -1 for a link without a speed.
                    _ => nic.speed_bytes = Some(value).filter(|v| *v > 0.0),
                }
            }
            _ => {}
        }
    }
    if cpus.is_empty() {
        return Err(AgentError::Unexpected(
            "its /metrics has no node_cpu_seconds_total: is it a node exporter with the cpu collector on?"
                .into(),
        ));
    }
    reading.cores = cpus.len() as u32;
    Ok(reading)
}

/// `name{labels} value` of one sample line (a timestamp after the value is
/// ignored); `None` for anything else.
fn sample(line: &str) -> Option<(&str, &str, f64)> {
    let (head, rest) = match line.find('{') {
        Some(open) => {
            let close = open + line[open..].find('}')?;
            ((&line[..open], &line[open + 1..close]), &line[close + 1..])
        }
        None => {
            let space = line.find(' ')?;
            ((&line[..space], ""), &line[space..])
        }
    };
    let value = rest.split_whitespace().next()?.parse::<f64>().ok()?;
    Some((head.0, head.1, value))
}

/// The value of label `name` in `a="x",b="y"` (values with escaped quotes do
/// not occur in the labels read here).
fn label<'a>(labels: &'a str, name: &str) -> Option<&'a str> {
    labels.split(',').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key.trim() == name).then(|| value.trim().trim_matches('"'))
    })
}

/// One scrape of `endpoint`'s `/metrics`, each step bounded by `timeout`.
pub fn scrape(endpoint: &Endpoint, timeout: Duration) -> Result<NodeReading, AgentError> {
    let body = http_get(endpoint, "/metrics", timeout)?;
    parse(&body, Instant::now())
}

/// The body of a `GET path` answered `200`.
fn http_get(endpoint: &Endpoint, path: &str, timeout: Duration) -> Result<String, AgentError> {
    let bad = AgentError::Unexpected;
    let mut stream = connect(endpoint, timeout)?;
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: {endpoint}\r\nAccept: text/plain\r\nConnection: close\r\n\r\n"
    )?;
    let mut reply = Vec::new();
    stream.take(MAX_BODY as u64 + 1).read_to_end(&mut reply)?;
    if reply.len() > MAX_BODY {
        return Err(bad("a /metrics reply of more than 8 MiB".into()));
    }
    let text = String::from_utf8_lossy(&reply);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| bad("an HTTP reply without a body".into()))?;
    let status = head.lines().next().unwrap_or_default();
    if status.split_whitespace().nth(1) != Some("200") {
        return Err(bad(format!("GET {path} answered '{status}'")));
    }
    Ok(body.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = "# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.
# TYPE node_cpu_seconds_total counter
node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 100
node_cpu_seconds_total{cpu=\"0\",mode=\"iowait\"} 1
node_cpu_seconds_total{cpu=\"0\",mode=\"system\"} 10
node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 20
node_cpu_seconds_total{cpu=\"1\",mode=\"idle\"} 200
node_cpu_seconds_total{cpu=\"1\",mode=\"user\"} 5.5e+00
node_network_receive_bytes_total{device=\"eth0\"} 1.5e+06
node_network_transmit_bytes_total{device=\"eth0\"} 2000
node_network_speed_bytes{device=\"eth0\"} 1.25e+09
node_network_receive_bytes_total{device=\"lo\"} 10
node_network_transmit_bytes_total{device=\"lo\"} 10
node_network_speed_bytes{device=\"lo\"} -1
node_load1 0.5
";

    #[test]
    fn a_scrape_gives_cores_modes_and_interfaces() {
        let r = parse(BODY, Instant::now()).unwrap();
        assert_eq!(r.cores, 2);
        assert_eq!(r.cpu_by_mode["user"], 25.5);
        assert_eq!(r.cpu_by_mode["idle"], 300.0);
        assert_eq!(r.interfaces["eth0"].rx_bytes, 1.5e6);
        assert_eq!(r.interfaces["eth0"].speed_bytes, Some(1.25e9));
        assert_eq!(r.interfaces["lo"].speed_bytes, None);
    }

    #[test]
    fn busy_cores_leave_out_idle_and_iowait() {
        let t0 = Instant::now();
        let a = parse(BODY, t0).unwrap();
        let mut b = a.clone();
        b.at = t0 + Duration::from_secs(2);
        *b.cpu_by_mode.get_mut("user").unwrap() += 1.0;
        *b.cpu_by_mode.get_mut("system").unwrap() += 0.5;
        *b.cpu_by_mode.get_mut("idle").unwrap() += 2.5;
        *b.cpu_by_mode.get_mut("iowait").unwrap() += 7.0;
        b.interfaces.get_mut("eth0").unwrap().rx_bytes += 4000.0;
        let u = b.since(&a);
        assert_eq!(u.seconds, 2.0);
        assert_eq!(u.busy_cores, 0.75);
        let eth0 = u.interfaces.iter().find(|n| n.device == "eth0").unwrap();
        assert_eq!(eth0.rx_bytes_per_sec, 2000.0);
        assert_eq!(eth0.tx_bytes_per_sec, 0.0);
    }

    #[test]
    fn a_body_without_cpu_series_is_no_node_exporter() {
        let e = parse("node_load1 1\n", Instant::now())
            .unwrap_err()
            .to_string();
        assert!(e.contains("node_cpu_seconds_total"), "{e}");
    }

    #[test]
    fn sample_lines_with_and_without_labels_and_timestamps() {
        assert_eq!(
            sample("a{x=\"1\"} 2 1700000000"),
            Some(("a", "x=\"1\"", 2.0))
        );
        assert_eq!(sample("b 3"), Some(("b", "", 3.0)));
        assert_eq!(sample("garbage"), None);
    }
}
