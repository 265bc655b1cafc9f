//! `kvbench.runs[i].cluster` (and the warm-up's and prefill's) in a
//! `--cluster-mode` report: the cluster options, one object per node that
//! answered ([`crate::report::shards`] builds the rows), the redirect totals
//! and the per-second redirects and retries. A single-server report has no
//! such key, so its JSON stays what it was.

use serde_json::{Map, Value, json};

use crate::config::Config;
use crate::engine::results::{PhaseResult, Results, rate};
use crate::engine::stats::{Stats, percentile_us};
use crate::report::json::{ms, round};
use crate::report::shards::{self, Shard};

/// The phase's `cluster` object; `None` without `--cluster-mode`.
pub fn phase_json(c: &Config, results: &Results, p: &PhaseResult) -> Option<Value> {
    let options = c.cluster?;
    let rows = shards::shards(results, &p.stats, &p.ops(&c.ops), &[p]);
    let nodes: Vec<Value> = rows.iter().map(|s| node_json(s, p)).collect();
    Some(json!({
        "max_redirects": options.max_redirects,
        "read_from": options.read_from.as_str(),
        "nodes": nodes,
        "redirects": redirects_json(&p.stats),
        "per_second": {
            "moved": p.series.iter().map(|s| s.moved).collect::<Vec<_>>(),
            "ask": p.series.iter().map(|s| s.ask).collect::<Vec<_>>(),
            "retries": p.series.iter().map(|s| s.retries).collect::<Vec<_>>(),
        },
    }))
}

/// One node: exact counts, its rate and share, latency from its histogram,
/// and the server's calls on it when its evidence exists.
fn node_json(s: &Shard<'_>, p: &PhaseResult) -> Value {
    let n = s.stats;
    let h = &n.latency_us;
    let server_calls = s.server_calls.as_ref().map(|calls| {
        let m: Map<String, Value> = calls.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        Value::Object(m)
    });
    json!({
        "address": n.address,
        "role": s.role.map(|r| r.as_str()),
        "slots": s.slots,
        "count": n.count,
        "ops_per_sec": round(rate(n.count, p.duration), 2),
        "share": round(s.share, 6),
        "hits": n.hits,
        "misses": n.misses,
        "errors": n.errors,
        "moved": n.moved,
        "ask": n.ask,
        "replica_reads": n.replica_reads,
        "latency": {
            "avg_ms": ms(n.mean_us()),
            "p50_ms": ms(percentile_us(h, 50.0) as f64),
            "p99_ms": ms(percentile_us(h, 99.0) as f64),
            "p99_9_ms": ms(percentile_us(h, 99.9) as f64),
        },
        "server_calls": server_calls,
    })
}

/// What routing cost over the phase.
fn redirects_json(stats: &Stats) -> Value {
    let totals = stats.totals();
    let e = &stats.errors;
    json!({
        "moved": totals.moved,
        "ask": totals.ask,
        "retries": e.retries,
        "node_down": e.node_down,
        "refreshes": e.refreshes,
        "asking_refused": stats.nodes.iter().map(|n| n.asking_refused).sum::<u64>(),
    })
}
