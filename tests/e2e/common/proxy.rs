//! What stands behind a target for `--watch` to sample: a private nutcracker
//! (twemproxy) in front of redis-server shards, with its stats port, and a
//! private Prometheus node exporter reading this machine's CPUs and network
//! interfaces; on free loopback ports ([`Nutcracker`], [`NodeExporter`]) or
//! in a [`Lan`]'s server namespace on fixed ports ([`start_nutcracker_in`],
//! [`start_node_exporter_in`]). Each reads its own config from a private
//! directory, never Debian's, and is stopped on drop, even when the test
//! panics (in a `Lan`, with the namespace).
//!
//! Their own readings are the witnesses the tests compare kvbench's with:
//! the stats port's JSON ([`Nutcracker::stats`], [`backend_requests`]) and
//! the exporter's `/metrics` ([`NodeExporter::metrics`], [`cpus`],
//! [`metric`]). `scripts/ensure-proxy.sh` (`make deps`) installs both; a
//! machine without them panics with that fix.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::netns::{Lan, SERVER_ADDR};
use super::{TempDir, free_port, machine, try_pipeline};

/// The one pool of every nutcracker here; its servers are `shard0`, `shard1`, …
/// in the order of the backends given.
pub const POOL: &str = "alpha";

/// nutcracker's port for clients inside a [`Lan`]'s server namespace (its
/// own network: nothing else listens there).
pub const LAN_PROXY_PORT: u16 = 22121;
/// nutcracker's stats port inside a [`Lan`]'s server namespace.
pub const LAN_STATS_PORT: u16 = 22222;
/// The node exporter's port inside a [`Lan`]'s server namespace.
pub const LAN_NODE_PORT: u16 = 9100;

/// How long a component may take to answer after its start: generous, for
/// a loaded two-core machine; a component that never answers fails the test.
const START_LIMIT: Duration = Duration::from_secs(20);

/// The fix a machine without these programs needs.
const FIX: &str = "install it with `make deps` (scripts/ensure-proxy.sh)";

/// A private nutcracker on free loopback ports in front of redis-servers on
/// loopback, stopped when dropped.
pub struct Nutcracker {
    child: Child,
    /// The port clients connect to on 127.0.0.1.
    pub port: u16,
    /// The stats port on 127.0.0.1 (JSON, one document per connection).
    pub stats_port: u16,
    _dir: TempDir,
    _share: machine::Share,
}

impl Nutcracker {
    /// Starts one in front of the redis-servers at 127.0.0.1:`backends`
    /// (server `shardN` is `backends[N]`) and waits until it answers PING and
    /// its stats port answers JSON.
    pub fn start(backends: &[u16]) -> Nutcracker {
        let dir = TempDir::new("nutcracker");
        let servers: Vec<String> = backends.iter().map(|p| format!("127.0.0.1:{p}")).collect();
        for _ in 0..5 {
            let (port, stats_port) = (free_port(), free_port());
            let config = dir.path("nutcracker.yml");
            std::fs::write(&config, config_yaml(&format!("127.0.0.1:{port}"), &servers)).unwrap();
            let child = Command::new(program("nutcracker"))
                .args(nutcracker_args(&config, "127.0.0.1", stats_port, &dir.0))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start nutcracker ({e}); {FIX}"));
            let mut proxy = Nutcracker {
                child,
                port,
                stats_port,
                _dir: TempDir(PathBuf::new()),
                _share: machine::share(),
            };
            if proxy.wait_ready() {
                proxy._dir = dir;
                return proxy;
            }
            // Someone took a port between our probe and its bind: try others.
            drop(proxy);
        }
        let log = std::fs::read_to_string(dir.path("nutcracker.log")).unwrap_or_default();
        panic!("nutcracker did not start on any of 5 pairs of free ports; its log:\n{log}");
    }

    fn wait_ready(&mut self) -> bool {
        let deadline = Instant::now() + START_LIMIT;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return false;
            }
            let pong = try_pipeline(self.port, &[["PING"]])
                .is_ok_and(|r| r[0].text().as_deref() == Some("PONG"));
            if pong && self.try_stats().is_ok() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }

    fn try_stats(&self) -> io::Result<Value> {
        let text = read_reply(("127.0.0.1", self.stats_port), "")?;
        serde_json::from_str(&text).map_err(io::Error::other)
    }

    /// The stats port's JSON now. nutcracker aggregates its counters once
    /// a second here (`-i 1000`), so it may be up to a second behind.
    pub fn stats(&self) -> Value {
        self.try_stats()
            .unwrap_or_else(|e| panic!("nutcracker's stats on {}: {e}", self.stats_port))
    }
}

impl Drop for Nutcracker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A private Prometheus node exporter on a free loopback port, stopped when
/// dropped.
pub struct NodeExporter {
    child: Child,
    /// Its HTTP port on 127.0.0.1 (`/metrics`).
    pub port: u16,
    _dir: TempDir,
    _share: machine::Share,
}

impl NodeExporter {
    /// Starts one and waits until its `/metrics` lists the CPUs.
    pub fn start() -> NodeExporter {
        let dir = TempDir::new("node-exporter");
        let log = dir.path("node-exporter.log");
        for _ in 0..5 {
            let port = free_port();
            let child = Command::new(program("prometheus-node-exporter"))
                .args(node_exporter_args(&format!("127.0.0.1:{port}")))
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&log).unwrap())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start prometheus-node-exporter ({e}); {FIX}"));
            let mut exporter = NodeExporter {
                child,
                port,
                _dir: TempDir(PathBuf::new()),
                _share: machine::share(),
            };
            if exporter.wait_ready() {
                exporter._dir = dir;
                return exporter;
            }
            drop(exporter);
        }
        let log = std::fs::read_to_string(&log).unwrap_or_default();
        panic!("prometheus-node-exporter did not start on any of 5 free ports; its log:\n{log}");
    }

    fn wait_ready(&mut self) -> bool {
        let deadline = Instant::now() + START_LIMIT;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return false;
            }
            if http_get(("127.0.0.1", self.port), "/metrics")
                .is_ok_and(|m| m.contains("node_cpu_seconds_total"))
            {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }

    /// Its `/metrics` page now (the text exposition format).
    pub fn metrics(&self) -> String {
        http_get(("127.0.0.1", self.port), "/metrics")
            .unwrap_or_else(|e| panic!("the node exporter's /metrics on {}: {e}", self.port))
    }
}

impl Drop for NodeExporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------
// The same inside a Lan's server namespace.
// ---------------------------------------------------------------------------

/// Starts nutcracker in `lan`'s server namespace on
/// `SERVER_ADDR:`[`LAN_PROXY_PORT`], its stats on
/// `SERVER_ADDR:`[`LAN_STATS_PORT`], in front of the redis-servers at
/// `SERVER_ADDR:backends` (`Lan::start_redis`); its config and log in `dir`.
/// Waits until it answers PING and JSON there; stopped with the `Lan`.
pub fn start_nutcracker_in(lan: &mut Lan, dir: &Path, backends: &[u16]) {
    let servers: Vec<String> = backends
        .iter()
        .map(|p| format!("{SERVER_ADDR}:{p}"))
        .collect();
    let config = dir.join("nutcracker.yml");
    let listen = format!("{SERVER_ADDR}:{LAN_PROXY_PORT}");
    std::fs::write(&config, config_yaml(&listen, &servers)).unwrap();
    let server = lan.server.clone();
    lan.keep(
        Lan::exec(&server, &program("nutcracker")).args(nutcracker_args(
            &config,
            SERVER_ADDR,
            LAN_STATS_PORT,
            dir,
        )),
    );
    let deadline = Instant::now() + START_LIMIT;
    while lan.redis_cli(LAN_PROXY_PORT, &["PING"]).trim() != "PONG"
        || try_stats_in(lan, LAN_STATS_PORT).is_err()
    {
        if Instant::now() > deadline {
            let log = std::fs::read_to_string(dir.join("nutcracker.log")).unwrap_or_default();
            panic!(
                "nutcracker in {server} did not answer on {listen} within {START_LIMIT:?} ({FIX}); its log:\n{log}"
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Starts the node exporter in `lan`'s server namespace on
/// `SERVER_ADDR:`[`LAN_NODE_PORT`] (it reads the namespace's interfaces:
/// `lo`, the bridge `br0` and the clients' veth ends `c1`, `c2`, …); its log
/// in `dir`. Waits until `/metrics` answers there; stopped with the `Lan`.
pub fn start_node_exporter_in(lan: &mut Lan, dir: &Path) {
    let server = lan.server.clone();
    let log = dir.join("node-exporter.log");
    // `ip netns exec` mounts the namespace's own /sys, where netclass reads
    // the interfaces; `exec` keeps the exporter the process `Lan` stops.
    lan.keep(
        Lan::exec(&server, "sh")
            .arg("-c")
            .arg(r#"exec "$0" "$@" 2>"$LOG""#)
            .arg(program("prometheus-node-exporter"))
            .args(node_exporter_args(&format!(
                "{SERVER_ADDR}:{LAN_NODE_PORT}"
            )))
            .env("LOG", &log),
    );
    let deadline = Instant::now() + START_LIMIT;
    while !read_in(lan, LAN_NODE_PORT, &http_request("/metrics"))
        .is_ok_and(|m| m.contains("node_cpu_seconds_total"))
    {
        if Instant::now() > deadline {
            let log = std::fs::read_to_string(&log).unwrap_or_default();
            panic!(
                "prometheus-node-exporter in {server} did not answer on {SERVER_ADDR}:{LAN_NODE_PORT} within {START_LIMIT:?} ({FIX}); its log:\n{log}"
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// nutcracker's stats JSON from `SERVER_ADDR:port` in `lan`'s server namespace.
pub fn stats_in(lan: &Lan, port: u16) -> Value {
    try_stats_in(lan, port).unwrap_or_else(|e| panic!("nutcracker's stats in the Lan: {e}"))
}

fn try_stats_in(lan: &Lan, port: u16) -> io::Result<Value> {
    serde_json::from_str(&read_in(lan, port, "")?).map_err(io::Error::other)
}

/// The node exporter's `/metrics` from `SERVER_ADDR:port` in `lan`'s
/// server namespace.
pub fn metrics_in(lan: &Lan, port: u16) -> String {
    let reply = read_in(lan, port, &http_request("/metrics"))
        .unwrap_or_else(|e| panic!("/metrics in the Lan: {e}"));
    http_body(&reply).unwrap_or_else(|e| panic!("/metrics in the Lan: {e}"))
}

/// Sends `request` to `SERVER_ADDR:port` from inside `lan`'s server
/// namespace and returns everything read until the peer closes. This
/// process is in the root namespace and cannot reach that address: bash's
/// `/dev/tcp` does it there, bounded by `timeout`.
fn read_in(lan: &Lan, port: u16, request: &str) -> io::Result<String> {
    let out = Lan::exec(&lan.server, "timeout")
        .args(["10", "bash", "-c"])
        .arg(r#"exec 3<>"/dev/tcp/$0/$1" && printf %s "$2" >&3 && cat <&3"#)
        .args([SERVER_ADDR, &port.to_string(), request])
        .stderr(Stdio::null())
        .output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "{SERVER_ADDR}:{port}: {}",
            out.status
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

// ---------------------------------------------------------------------------
// Configs, and reading what the components say.
// ---------------------------------------------------------------------------

/// Where `name` is: the first on PATH, else Debian's /usr/sbin (where
/// nutcracker and haproxy are, off a user's PATH), else the bare name, so
/// that starting it fails with the fix.
pub fn program(name: &str) -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .map_or_else(|| name.to_string(), |p| p.to_str().unwrap().to_string())
}

/// One pool listening on `listen` over `servers` (`host:port`), as a
/// sharded Redis behind twemproxy is usually set up: keys spread by
/// ketama over fnv1a_64, and a shard that stops answering is not ejected
/// (its keys would move to the others and blur the per-shard counts).
fn config_yaml(listen: &str, servers: &[String]) -> String {
    let mut yaml = format!(
        "{POOL}:\n  listen: {listen}\n  redis: true\n  hash: fnv1a_64\n  distribution: ketama\n  auto_eject_hosts: false\n  servers:\n"
    );
    for (i, server) in servers.iter().enumerate() {
        yaml.push_str(&format!("    - {server}:1 shard{i}\n"));
    }
    yaml
}

/// nutcracker's arguments: `config`, the stats port on `stats_addr`, its
/// pid file and log in `dir`. `-i 1000`: the stats are aggregated each
/// second, not each 30 s (the default), so a one-second sampler sees them move.
fn nutcracker_args(config: &Path, stats_addr: &str, stats_port: u16, dir: &Path) -> Vec<String> {
    let path = |p: &Path| p.to_str().unwrap().to_string();
    vec![
        "-c".into(),
        path(config),
        "-s".into(),
        stats_port.to_string(),
        "-a".into(),
        stats_addr.into(),
        "-i".into(),
        "1000".into(),
        "-p".into(),
        path(&dir.join("nutcracker.pid")),
        "-o".into(),
        path(&dir.join("nutcracker.log")),
    ]
}

/// The node exporter's arguments: listening on `listen`, with only the
/// collectors `--watch node://` reads (CPU time by mode, interface bytes,
/// interface speed). Debian's exporter leaves out `lo` by default
/// (`--collector.netdev.device-exclude=^lo$`), where a loopback test's
/// traffic is: the empty pattern keeps every interface. Without
/// `ignore-invalid-speed`, an interface without a speed (`lo`) would read
/// -125000 bytes/s.
fn node_exporter_args(listen: &str) -> Vec<String> {
    [
        &format!("--web.listen-address={listen}")[..],
        "--collector.disable-defaults",
        "--collector.cpu",
        "--collector.netdev",
        "--collector.netclass",
        "--collector.netdev.device-exclude=",
        "--collector.netclass.ignore-invalid-speed",
    ]
    .map(String::from)
    .to_vec()
}

/// The requests nutcracker forwarded to its servers so far: the sum of
/// `requests` over the pool's servers (the JSON objects among the pool's
/// fields).
pub fn backend_requests(stats: &Value) -> u64 {
    let pool = stats[POOL]
        .as_object()
        .unwrap_or_else(|| panic!("no pool {POOL} in {stats}"));
    pool.values()
        .filter(|v| v.is_object())
        .map(|server| server["requests"].as_u64().unwrap())
        .sum()
}

/// The CPUs a node exporter's `metrics` lists (distinct `cpu` labels of
/// `node_cpu_seconds_total`).
pub fn cpus(metrics: &str) -> usize {
    let mut seen: Vec<&str> = metrics
        .lines()
        .filter_map(|l| l.strip_prefix("node_cpu_seconds_total{cpu=\""))
        .filter_map(|rest| rest.split_once('"').map(|(cpu, _)| cpu))
        .collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}

/// The value of metric `name` for interface `device` in `metrics`; `None`
/// when the exporter does not list it.
pub fn metric(metrics: &str, name: &str, device: &str) -> Option<f64> {
    let head = format!("{name}{{device=\"{device}\"");
    metrics.lines().find_map(|l| {
        let rest = l.strip_prefix(&head)?;
        rest.rsplit_once(' ')?.1.parse().ok()
    })
}

/// `GET path` over HTTP/1.0 (the server closes after its reply).
fn http_request(path: &str) -> String {
    format!("GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n")
}

/// The body of a `200` reply.
fn http_body(reply: &str) -> io::Result<String> {
    let (head, body) = reply
        .split_once("\r\n\r\n")
        .ok_or_else(|| io::Error::other("no end of the HTTP header"))?;
    if !head.starts_with("HTTP/1.") || !head.lines().next().unwrap().contains(" 200 ") {
        return Err(io::Error::other(format!("answered {head}")));
    }
    Ok(body.to_string())
}

/// `GET path` from `addr`; the body of its `200` reply.
fn http_get(addr: (&str, u16), path: &str) -> io::Result<String> {
    http_body(&read_reply(addr, &http_request(path))?)
}

/// Sends `request` to `addr` and reads until the peer closes.
fn read_reply(addr: (&str, u16), request: &str) -> io::Result<String> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    s.write_all(request.as_bytes())?;
    let mut text = String::new();
    s.read_to_string(&mut text)?;
    Ok(text)
}
