//! A proxy watched through twemproxy's stats port (`twemproxy://host:port`):
//! a connection there is answered with one JSON document and closed. Its
//! top level holds the service's fields and one object per pool; a pool
//! holds its own counters (`client_connections`, …) and one object per
//! backend server (`requests`, `responses`, `server_err`, `server_timedout`,
//! `server_eof`, …), keyed by the server's name in the proxy's config.
//! Counters only grow while the proxy runs, so a phase's share is the
//! difference of two readings.

use std::io::Read;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::config::target::Endpoint;
use crate::engine::master::watch::{AgentError, connect};

/// The largest stats document read: a proxy of hundreds of backends
/// writes tens of KiB.
const MAX_STATS: u64 = 4 * 1024 * 1024;

/// One reading of the stats port.
#[derive(Debug, Clone, PartialEq)]
pub struct ProxyReading {
    /// When it was read.
    pub at: Instant,
    /// Client connections open, every pool's.
    pub client_connections: u64,
    /// Each backend, in the document's order.
    pub backends: Vec<Backend>,
}

/// One backend's counters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backend {
    /// The pool it serves.
    pub pool: String,
    /// Its name in the proxy's config.
    pub server: String,
    /// Requests forwarded to it.
    pub requests: u64,
    /// Replies it sent back.
    pub responses: u64,
    /// Errors, time-outs and closed connections on its side.
    pub errors: u64,
}

impl ProxyReading {
    /// What each backend took from `before` to this reading; the open
    /// client connections are this reading's.
    pub fn since(&self, before: &ProxyReading) -> ProxyReading {
        let backends = self
            .backends
            .iter()
            .map(|b| {
                let then = before
                    .backends
                    .iter()
                    .find(|t| t.pool == b.pool && t.server == b.server);
                let grew = |now: u64, then: Option<u64>| now.saturating_sub(then.unwrap_or(0));
                Backend {
                    pool: b.pool.clone(),
                    server: b.server.clone(),
                    requests: grew(b.requests, then.map(|t| t.requests)),
                    responses: grew(b.responses, then.map(|t| t.responses)),
                    errors: grew(b.errors, then.map(|t| t.errors)),
                }
            })
            .collect();
        ProxyReading {
            at: self.at,
            client_connections: self.client_connections,
            backends,
        }
    }
}

/// Parses twemproxy's stats document.
pub fn parse(text: &str, at: Instant) -> Result<ProxyReading, AgentError> {
    let unexpected = |why: String| AgentError::Unexpected(why);
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        unexpected(format!(
            "its stats port did not send JSON ({e}): is it twemproxy's -s port?"
        ))
    })?;
    let top = doc.as_object().ok_or_else(|| {
        unexpected("its stats are not a JSON object: is it twemproxy's -s port?".into())
    })?;
    let n = |v: &Value, field: &str| v.get(field).and_then(Value::as_u64).unwrap_or(0);
    let mut reading = ProxyReading {
        at,
        client_connections: 0,
        backends: Vec::new(),
    };
    for (pool, fields) in top.iter().filter(|(_, v)| v.is_object()) {
        reading.client_connections += n(fields, "client_connections");
        let servers = fields.as_object().into_iter().flatten();
        for (server, c) in servers.filter(|(_, v)| v.is_object()) {
            reading.backends.push(Backend {
                pool: pool.clone(),
                server: server.clone(),
                requests: n(c, "requests"),
                responses: n(c, "responses"),
                errors: n(c, "server_err") + n(c, "server_timedout") + n(c, "server_eof"),
            });
        }
    }
    if reading.backends.is_empty() {
        return Err(unexpected(
            "its stats name no pool with servers: is it twemproxy's -s port?".into(),
        ));
    }
    Ok(reading)
}

/// One reading of `endpoint`, each step bounded by `timeout`.
pub fn read(endpoint: &Endpoint, timeout: Duration) -> Result<ProxyReading, AgentError> {
    let stream = connect(endpoint, timeout)?;
    let mut text = String::new();
    stream.take(MAX_STATS).read_to_string(&mut text)?;
    parse(&text, Instant::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATS: &str = r#"{"service":"nutcracker", "source":"h", "version":"0.5.0", "uptime":9, "timestamp":1700000000, "total_connections":7, "curr_connections":5,
"alpha": {"client_eof":0, "client_err":0, "client_connections":4, "server_ejects":0, "forward_error":0, "fragments":0,
"shard1": {"server_eof":0, "server_err":1, "server_timedout":2, "server_connections":1, "server_ejected_at":0, "requests":100, "request_bytes":3000, "responses":97, "response_bytes":500, "in_queue":0, "in_queue_bytes":0, "out_queue":0, "out_queue_bytes":0},
"shard2": {"server_eof":0, "server_err":0, "server_timedout":0, "server_connections":1, "server_ejected_at":0, "requests":50, "request_bytes":1, "responses":50, "response_bytes":1, "in_queue":0, "in_queue_bytes":0, "out_queue":0, "out_queue_bytes":0}}}"#;

    #[test]
    fn the_stats_document_gives_each_backend_and_the_clients() {
        let r = parse(STATS, Instant::now()).unwrap();
        assert_eq!(r.client_connections, 4);
        assert_eq!(r.backends.len(), 2);
        assert_eq!(
            r.backends[0],
            Backend {
                pool: "alpha".into(),
                server: "shard1".into(),
                requests: 100,
                responses: 97,
                errors: 3
            }
        );
    }

    #[test]
    fn a_phase_is_the_growth_between_readings() {
        let t0 = Instant::now();
        let a = parse(STATS, t0).unwrap();
        let b = parse(&STATS.replace("\"requests\":100", "\"requests\":160"), t0).unwrap();
        let d = b.since(&a);
        assert_eq!(d.backends[0].requests, 60);
        assert_eq!(d.backends[1].requests, 0);
    }

    #[test]
    fn something_else_on_the_port_is_named() {
        let e = |text: &str| parse(text, Instant::now()).unwrap_err().to_string();
        assert!(e("+PONG\r\n").contains("JSON"));
        assert!(e("{\"a\":1}").contains("no pool"));
    }
}
