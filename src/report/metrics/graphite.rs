//! memtier's Graphite event annotations (`--graphite-port`): an HTTP POST
//! of a small JSON event to `http://STATSD-HOST:PORT/events/` when each
//! measured run starts ("Benchmark Started") and ends ("Benchmark
//! Completed"), so that a Grafana dashboard over the StatsD metrics can
//! mark the runs. The body and tags are memtier's (its `statsd.cpp`).
//!
//! memtier sends these whenever StatsD is on, to port 8080 by default;
//! kvbench sends them only when `--graphite-port` is given, so that a StatsD
//! run opens no TCP connection nobody asked for. Like memtier's, each POST is
//! fire-and-forget with 2 s socket timeouts: a Graphite that is down costs
//! the run nothing. Each is sent from a thread of its own, so the master
//! never waits on it; the threads are joined when the run ends.

use std::io::Write;
use std::net::{TcpStream, ToSocketAddrs};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::config::StatsdTarget;

/// memtier's socket timeouts for an event POST.
pub const EVENT_TIMEOUT: Duration = Duration::from_secs(2);

/// Where the events go and what they say.
pub struct Graphite {
    host: String,
    port: u16,
    run_label: String,
    threads: usize,
    clients: usize,
    sending: Vec<JoinHandle<()>>,
}

impl Graphite {
    /// The events of `target` (`None` without `--graphite-port`), for a run
    /// of `threads` × `clients` connections.
    pub fn new(target: &StatsdTarget, threads: usize, clients: usize) -> Option<Graphite> {
        Some(Graphite {
            host: target.host.clone(),
            port: target.graphite_port?,
            run_label: target.run_label.clone(),
            threads,
            clients,
            sending: Vec::new(),
        })
    }

    /// Measured run `run` starts.
    pub fn started(&mut self, run: u32) {
        let data = format!(
            "threads={} connections={} run={run}",
            self.threads, self.clients
        );
        self.send(event_body(
            "Benchmark Started",
            &data,
            "memtier,start",
            &self.run_label,
        ));
    }

    /// Measured run `run` ended.
    pub fn completed(&mut self, run: u32) {
        self.send(event_body(
            "Benchmark Completed",
            &format!("run={run}"),
            "memtier,end",
            &self.run_label,
        ));
    }

    /// Waits for the POSTs still in flight (each bounded by its timeouts).
    pub fn finish(&mut self) {
        for t in self.sending.drain(..) {
            let _ = t.join();
        }
    }

    fn send(&mut self, body: String) {
        let request = event_request(&self.host, self.port, &body);
        let (host, port) = (self.host.clone(), self.port);
        self.sending.push(std::thread::spawn(move || {
            // Fire and forget, as memtier does: a failure is no concern of the run.
            let _ = post(&host, port, request.as_bytes());
        }));
    }
}

fn post(host: &str, port: u16, request: &[u8]) -> std::io::Result<()> {
    let addr = (host, port)
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| std::io::Error::other("no address"))?;
    let mut s = TcpStream::connect_timeout(&addr, EVENT_TIMEOUT)?;
    s.set_write_timeout(Some(EVENT_TIMEOUT))?;
    s.write_all(request)
}

/// memtier's event: `what`, its tags with `run:LABEL` appended, and `data`.
pub fn event_body(what: &str, data: &str, tags: &str, run_label: &str) -> String {
    // The label is sanitized to [A-Za-z0-9_-] and the rest is ours: nothing
    // here needs JSON escaping.
    format!(r#"{{"what":"{what}","tags":"{tags},run:{run_label}","data":"{data}"}}"#)
}

/// The whole HTTP/1.1 request for `body`, as memtier writes it.
pub fn event_request(host: &str, port: u16, body: &str) -> String {
    format!(
        "POST /events/ HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_memtiers_json_in_a_post_to_events() {
        let body = event_body(
            "Benchmark Started",
            "threads=4 connections=50 run=1",
            "memtier,start",
            "nightly",
        );
        assert_eq!(
            body,
            r#"{"what":"Benchmark Started","tags":"memtier,start,run:nightly","data":"threads=4 connections=50 run=1"}"#
        );
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["tags"], "memtier,start,run:nightly");
        let request = event_request("g", 8080, &body);
        assert!(request.starts_with("POST /events/ HTTP/1.1\r\nHost: g:8080\r\n"));
        let (head, sent) = request.split_once("\r\n\r\n").unwrap();
        assert_eq!(sent, body);
        assert!(head.contains(&format!("Content-Length: {}", body.len())));
    }
}
