//! `kvbench.rounds`: each merged run as the whitepaper tabulates a round —
//! the set's rate, hit rate and p50/p99/p99.9, beside what every client
//! machine (its `runs[i].client`: kvbench's CPU, the machine's CPU, its
//! interface's bytes) and every server (its INFO over the set's window:
//! CPU and network) did meanwhile. A client saturated at 100 % or a server
//! at its one core's limit says which side the number measures.

use hdrhistogram::Histogram;

use crate::engine::stats::percentile_us;
use crate::report::json::round;
use crate::report::limit;
use crate::report::model::kvbench::PhaseSummary;
use crate::report::model::shard::{Round, RoundClient, RoundServer};
use crate::report::model::watched::Limit;
use crate::tools::merge::check::ShardFile;
use crate::tools::merge::document::hit_rate;
use crate::tools::merge::evidence::ServerSum;
use crate::tools::merge::run::RunSum;

/// One machine's row of a round, from its file's run; `histogram` is its
/// every reply's latency (µs), its rows added.
pub fn client_of(f: &ShardFile, summary: &PhaseSummary, histogram: &Histogram<u64>) -> RoundClient {
    let c = summary.client.as_ref();
    RoundClient {
        target: f.kvbench.target.clone(),
        ops_per_sec: summary.ops_per_sec,
        hit_rate_percent: {
            let (hits, misses) = summary
                .totals
                .iter()
                .fold((0, 0), |(h, m), (_, t)| (h + t.hits, m + t.misses));
            (hits + misses > 0).then(|| round(100.0 * hits as f64 / (hits + misses) as f64, 2))
        },
        index: f.shard().map(|s| s.index),
        host: f.shard().and_then(|s| s.host.clone()),
        file: f.path.clone(),
        process_cpu_percent: c.map(|c| c.process_cpu_percent),
        machine_cpu_percent: c.map(|c| c.machine_cpu_percent),
        net_rx_bytes_per_sec: c.and_then(|c| c.net_rx_bytes_per_sec),
        net_tx_bytes_per_sec: c.and_then(|c| c.net_tx_bytes_per_sec),
        cores: c.map(|c| c.cores),
        p99_ms: (!histogram.is_empty())
            .then(|| round(percentile_us(histogram, 99.0) as f64 / 1000.0, 3)),
    }
}

fn server_row(s: &ServerSum, run_s: f64) -> RoundServer {
    let e = s.phase_evidence();
    let seconds = e.server_seconds().unwrap_or(run_s).max(1e-9);
    let per_sec = |field: &str| {
        s.after
            .get(field)
            .map(|_| round(e.delta(field) as f64 / seconds, 1))
    };
    RoundServer {
        run_id: s.identity.clone(),
        target: s.target.clone(),
        seconds: round(seconds, 3),
        cpu_percent: round(100.0 * e.cpu_seconds() / seconds, 1),
        net_input_bytes_per_sec: per_sec("total_net_input_bytes"),
        net_output_bytes_per_sec: per_sec("total_net_output_bytes"),
    }
}

/// The round's limit ([`crate::report::limit`]): the watched components,
/// each server the machines drove, each machine (kvbench at `threads`).
fn limit(r: &RunSum, threads: usize) -> Limit {
    let mut candidates = limit::watched(&r.watched);
    for s in &r.evidence.servers {
        let e = s.phase_evidence();
        let seconds = e.server_seconds().unwrap_or_else(|| r.duration_s());
        candidates.extend(limit::target(&s.target, &e, seconds));
    }
    for (i, c) in r.clients.iter().enumerate() {
        let name = match (&c.host, c.index) {
            (Some(host), _) => format!("client {host}"),
            (None, Some(index)) => format!("client shard {index}"),
            (None, None) => format!("client {}", i + 1),
        };
        if let (Some(process), Some(machine), Some(cores)) =
            (c.process_cpu_percent, c.machine_cpu_percent, c.cores)
        {
            candidates.extend(limit::client(&name, process, machine, cores, threads));
        }
    }
    let answered = !r.evidence.servers.is_empty() || r.cluster.is_some();
    limit::judge(&candidates, limit::unwatched(answered, &r.watched))
}

/// The rounds of the merged runs; `threads` is each machine's `-t`.
pub fn rounds(runs: &[RunSum], threads: usize) -> Vec<Round> {
    runs.iter()
        .map(|r| {
            let h = &r.totals.histogram;
            let p = |q: f64| (!h.is_empty()).then(|| round(percentile_us(h, q) as f64 / 1000.0, 3));
            Round {
                phase: r.phase.clone(),
                ops_per_sec: round(r.ops_per_sec(), 2),
                hit_rate_percent: hit_rate(&r.totals.totals).map(|v| round(v, 2)),
                p50_ms: p(50.0),
                p99_ms: p(99.0),
                p99_9_ms: p(99.9),
                clients: r.clients.clone(),
                servers: r
                    .evidence
                    .servers
                    .iter()
                    .map(|s| server_row(s, r.duration_s()))
                    .collect(),
                watched: r.watched.clone(),
                limit: Some(limit(r, threads)),
            }
        })
        .collect()
}

/// The targets the machines of `rounds` drove, each once, in the order met.
pub fn targets(rounds: &[Round]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for c in rounds.iter().flat_map(|r| &r.clients) {
        if !out.contains(&c.target.as_str()) {
            out.push(&c.target);
        }
    }
    out
}
