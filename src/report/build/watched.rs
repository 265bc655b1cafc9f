//! `runs[i].watched` from the master's readings of each `--watch`
//! ([`crate::engine::master::watch`]): a shard's INFO before and after the phase
//! differenced (its calls, hits, misses, CPU and network over the phase,
//! by its own clock), a host's scrapes, a proxy's backends.

use crate::config::watch::WatchKind;
use crate::engine::master::server::PhaseEvidence;
use crate::engine::master::server::sample::ServerSeries;
use crate::engine::master::watch::node::NodeUse;
use crate::engine::master::watch::twemproxy::ProxyReading;
use crate::engine::master::watch::{Found, WatchedPhase};
use crate::report::json::round;
use crate::report::model::named::Named;
use crate::report::model::watched::{ProxyBackend, Watched, WatchedInterface};
use crate::workload::ops::Witness;

/// Each watched component of a phase; `ops` names the op rows for the
/// shards' seconds (their time per op).
pub fn watched(found: &[WatchedPhase], ops: &[Witness]) -> Vec<Watched> {
    found.iter().map(|w| one(w, ops)).collect()
}

fn empty(w: &WatchedPhase, role: &str) -> Watched {
    Watched {
        kind: w.kind.name().to_string(),
        role: role.to_string(),
        address: w.address.clone(),
        error: w.error.clone(),
        seconds: 0.0,
        run_id: None,
        ops_per_sec: None,
        calls: None,
        hits: None,
        misses: None,
        hit_rate_percent: None,
        keys: None,
        cpu_percent: None,
        main_thread_cpu_percent: None,
        threads: None,
        net_input_bytes_per_sec: None,
        net_output_bytes_per_sec: None,
        cores: None,
        busy_cores: None,
        host_cpu_percent: None,
        interfaces: None,
        client_connections: None,
        backends: None,
        per_second: Vec::new(),
        busy_cores_per_second: Vec::new(),
    }
}

fn one(w: &WatchedPhase, ops: &[Witness]) -> Watched {
    match &w.found {
        Found::Server { evidence, series } => {
            let mut out = empty(w, "shard");
            if let Some(e) = evidence {
                shard(&mut out, e, w.kind, series.as_ref());
            }
            out.per_second = series
                .iter()
                .flat_map(|s| &s.per_second)
                .map(|u| super::host::server_second(u, ops))
                .collect();
            out
        }
        Found::Host { whole, per_second } => {
            let mut out = empty(w, "host");
            if let Some(u) = whole {
                host(&mut out, u);
            }
            out.busy_cores_per_second = per_second.iter().map(|u| round(u.busy_cores, 3)).collect();
            out
        }
        Found::Proxy { phase, seconds } => {
            let mut out = empty(w, "proxy");
            out.seconds = round(*seconds, 3);
            if let Some(p) = phase {
                proxy(&mut out, p);
            }
            out
        }
    }
}

/// Seconds between the two INFOs by the server's clock, else by the series.
fn seconds(e: &PhaseEvidence, series: Option<&ServerSeries>) -> f64 {
    e.server_seconds()
        .unwrap_or_else(|| series.map_or(0.0, |s| s.per_second.iter().map(|u| u.seconds).sum()))
}

fn shard(out: &mut Watched, e: &PhaseEvidence, kind: WatchKind, series: Option<&ServerSeries>) {
    let s = seconds(e, series);
    let per_sec = |n: f64| (s > 0.0).then(|| round(n / s, 1));
    let calls: Vec<(String, u64)> = e
        .after
        .fields
        .keys()
        .filter_map(|k| k.strip_prefix("cmdstat_"))
        .map(|c| (c.to_string(), e.answered(c)))
        .filter(|(_, n)| *n > 0)
        .collect();
    let (hits, misses) = (e.delta("keyspace_hits"), e.delta("keyspace_misses"));
    let main_cpu = e.main_thread_cpu_seconds().and_then(|c| per_sec(100.0 * c));
    out.seconds = round(s, 3);
    out.run_id = e.after.get("run_id").map(str::to_string);
    out.ops_per_sec = per_sec(e.delta("total_commands_processed") as f64)
        .filter(|_| kind != WatchKind::Memcached);
    out.calls = Some(Named(calls));
    out.hits = Some(hits);
    out.misses = Some(misses);
    out.hit_rate_percent =
        (hits + misses > 0).then(|| round(100.0 * hits as f64 / (hits + misses) as f64, 2));
    out.keys = Some(match kind {
        WatchKind::Memcached => e.after.u64("curr_items").unwrap_or(0),
        _ => e.after.keys(0),
    });
    out.cpu_percent = per_sec(100.0 * e.cpu_seconds());
    out.main_thread_cpu_percent = main_cpu;
    out.threads = match kind {
        WatchKind::Memcached => e.after.u64("threads"),
        _ => Some(e.after.u64("io_threads_active").unwrap_or(0).max(1)),
    };
    out.net_input_bytes_per_sec = e
        .after
        .get("total_net_input_bytes")
        .and_then(|_| per_sec(e.delta("total_net_input_bytes") as f64));
    out.net_output_bytes_per_sec = e
        .after
        .get("total_net_output_bytes")
        .and_then(|_| per_sec(e.delta("total_net_output_bytes") as f64));
}

fn host(out: &mut Watched, u: &NodeUse) {
    out.seconds = round(u.seconds, 3);
    out.cores = Some(u.cores);
    out.busy_cores = Some(round(u.busy_cores, 3));
    out.host_cpu_percent = Some(round(100.0 * u.busy_cores / f64::from(u.cores.max(1)), 1));
    out.interfaces = Some(
        u.interfaces
            .iter()
            .filter(|n| n.rx_bytes_per_sec > 0.0 || n.tx_bytes_per_sec > 0.0)
            .map(|n| WatchedInterface {
                device: n.device.clone(),
                rx_bytes_per_sec: round(n.rx_bytes_per_sec, 1),
                tx_bytes_per_sec: round(n.tx_bytes_per_sec, 1),
                speed_bytes_per_sec: n.speed_bytes_per_sec,
            })
            .collect(),
    );
}

fn proxy(out: &mut Watched, p: &ProxyReading) {
    out.client_connections = Some(p.client_connections);
    out.backends = Some(
        p.backends
            .iter()
            .map(|b| ProxyBackend {
                pool: b.pool.clone(),
                server: b.server.clone(),
                requests: b.requests,
                responses: b.responses,
                errors: b.errors,
            })
            .collect(),
    );
}
