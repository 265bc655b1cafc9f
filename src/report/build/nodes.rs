//! The `cluster` object of a routed phase (`--cluster-mode`,
//! `--read-server`), or of the aggregate: each node that answered, found in
//! the engine's results with its role and slots at discovery, its share of
//! the replies and the server's own calls on it, sorted by address; its
//! rate and latency (the row `kvbench merge` builds too, from its sums);
//! and what routing cost. The text's `Shards` table reads that object.

use std::time::Duration;

use hdrhistogram::Histogram;

use crate::config::Config;
use crate::engine::master::results::{NodeRole, PhaseResult, Results};
use crate::engine::stats::{NodeStats, Stats, percentile_us};
use crate::report::json::{compressed, ms};
use crate::report::model::cluster::{NodeLatency, NodeSummary, PerSecond, PhaseCluster, Redirects};
use crate::report::model::histogram::CompressedHistogram;
use crate::report::model::named::Named;
use crate::workload::ops::OpTable;

/// One node's row.
#[derive(Debug, Clone)]
pub struct Shard<'a> {
    /// What it answered, merged over the threads (and the runs, for an aggregate).
    pub stats: &'a NodeStats,
    /// Its role at discovery, when the discovery is known.
    pub role: Option<NodeRole>,
    /// The slots it served at discovery, when known.
    pub slots: Option<usize>,
    /// Its replies over the replies of every node, 0 to 1.
    pub share: f64,
    /// The server's own calls on this node of each command sent
    /// (`INFO commandstats`, lower-case names), summed over the phases;
    /// `None` when no phase has this node's evidence.
    pub server_calls: Option<Vec<(String, u64)>>,
}

impl Shard<'_> {
    /// The server's calls of every command sent, when its evidence exists.
    pub fn server_calls_total(&self) -> Option<u64> {
        self.server_calls
            .as_ref()
            .map(|c| c.iter().map(|(_, n)| n).sum())
    }
}

/// The rows of `stats.nodes` that answered anything (a reply or a
/// redirect), sorted by address (host, then port as a number), with their
/// roles from the discovery and the server's calls from `phases`.
pub fn shards<'a>(
    results: &Results,
    stats: &'a Stats,
    ops: &OpTable,
    phases: &[&PhaseResult],
) -> Vec<Shard<'a>> {
    let total: u64 = stats.nodes.iter().map(|n| n.count).sum();
    let mut rows: Vec<Shard<'a>> = stats
        .nodes
        .iter()
        .filter(|n| n.count + n.moved + n.ask > 0)
        .map(|n| {
            let known = results
                .cluster
                .as_ref()
                .and_then(|c| c.nodes.iter().find(|k| k.address == n.address));
            Shard {
                stats: n,
                role: known.map(|k| k.role),
                slots: known.map(|k| k.slots),
                share: if total == 0 {
                    0.0
                } else {
                    n.count as f64 / total as f64
                },
                server_calls: server_calls(&n.address, ops, phases),
            }
        })
        .collect();
    rows.sort_by(|a, b| address_order(&a.stats.address).cmp(&address_order(&b.stats.address)));
    rows
}

/// `host:port` as (host, port number), so that port 7002 sorts before 10000.
fn address_order(address: &str) -> (&str, u32, &str) {
    match address.rsplit_once(':') {
        Some((host, port)) => (host, port.parse().unwrap_or(u32::MAX), port),
        None => (address, 0, ""),
    }
}

/// The node's `cmdstat` calls of every command of the phases' op tables,
/// summed over the phases that have its evidence.
fn server_calls(
    address: &str,
    ops: &OpTable,
    phases: &[&PhaseResult],
) -> Option<Vec<(String, u64)>> {
    let mut calls: Vec<(String, u64)> = Vec::new();
    let mut found = false;
    for p in phases {
        let Some(node) = p.nodes.iter().find(|n| n.address == address) else {
            continue;
        };
        found = true;
        for w in p.ops(ops).witnesses() {
            let n = node.evidence.calls(&w.command);
            match calls.iter_mut().find(|(c, _)| *c == w.command) {
                Some((_, total)) => *total += n,
                None => calls.push((w.command, n)),
            }
        }
    }
    found.then_some(calls)
}

/// The phase's `cluster` object; `None` without `--cluster-mode` or
/// `--read-server` (whose two nodes, the write server as `master` and the
/// read endpoint as `replica`, it lists the same way).
pub fn cluster(c: &Config, results: &Results, p: &PhaseResult) -> Option<PhaseCluster> {
    let ops = p.ops(&c.ops);
    let mut one = cluster_of(c, results, &p.stats, &ops, &[p], p.duration)?;
    one.per_second = PerSecond {
        moved: p.series.iter().map(|s| s.moved).collect(),
        ask: p.series.iter().map(|s| s.ask).collect(),
        retries: p.series.iter().map(|s| s.retries).collect(),
    };
    Some(one)
}

/// The `cluster` object of `stats` over `duration`, the server's calls
/// summed over `phases`, with no seconds: a phase's, or the aggregate's
/// (`kvbench.aggregate`); `None` unrouted.
pub fn cluster_of(
    c: &Config,
    results: &Results,
    stats: &Stats,
    ops: &OpTable,
    phases: &[&PhaseResult],
    duration: Duration,
) -> Option<PhaseCluster> {
    let options = c.routing()?;
    let rows = shards(results, stats, ops, phases);
    Some(PhaseCluster {
        max_redirects: options.max_redirects,
        read_from: options.read_from.as_str().into(),
        nodes: rows.iter().map(|s| node(s, duration)).collect(),
        redirects: redirects(stats),
        per_second: PerSecond {
            moved: Vec::new(),
            ask: Vec::new(),
            retries: Vec::new(),
        },
    })
}

/// One node: exact counts, its rate and share, latency from its histogram
/// (and the histogram itself, for `kvbench merge`), and the server's calls
/// on it when its evidence exists.
fn node(s: &Shard<'_>, duration: Duration) -> NodeSummary {
    let n = s.stats;
    let row = NodeSummary {
        address: n.address.to_string(),
        role: s.role.map(|r| r.as_str().into()),
        slots: s.slots.map(|n| n as u64),
        count: n.count,
        hits: n.hits,
        misses: n.misses,
        errors: n.errors,
        moved: n.moved,
        ask: n.ask,
        replica_reads: n.replica_reads,
        server_calls: s.server_calls.clone().map(Named),
        ..NodeSummary::default()
    };
    let sums = NodeSums {
        over_s: duration.as_secs_f64(),
        share: s.share,
        latency_sum_us: n.latency_sum_us as f64,
        histogram: &n.latency_us,
    };
    node_row(row, &sums)
}

/// What a node's figures are made of, beside its counts: a run's node
/// counters, or `kvbench merge`'s sums over the machines.
pub struct NodeSums<'a> {
    /// The time its rate is over, s.
    pub over_s: f64,
    /// Its replies over every node's, 0 to 1.
    pub share: f64,
    /// The sum of its latencies, µs.
    pub latency_sum_us: f64,
    /// Its latencies, µs.
    pub histogram: &'a Histogram<u64>,
}

/// `row` (its identity and counts) with its rate, share and latency from
/// `sums`: one node's row, of a run or of a merge.
pub fn node_row(row: NodeSummary, sums: &NodeSums<'_>) -> NodeSummary {
    let h = sums.histogram;
    let mean_us = if row.count == 0 {
        0.0
    } else {
        sums.latency_sum_us / row.count as f64
    };
    let rate = if sums.over_s > 0.0 {
        row.count as f64 / sums.over_s
    } else {
        0.0
    };
    NodeSummary {
        ops_per_sec: rate,
        share: sums.share,
        latency: NodeLatency {
            avg_ms: mean_us / 1000.0,
            p50_ms: ms(percentile_us(h, 50.0) as f64),
            p99_ms: ms(percentile_us(h, 99.0) as f64),
            p99_9_ms: ms(percentile_us(h, 99.9) as f64),
        },
        latency_histogram: Some(CompressedHistogram(compressed(h))),
        ..row
    }
}

/// What routing cost over the phase.
fn redirects(stats: &Stats) -> Redirects {
    let totals = stats.totals();
    let e = &stats.errors;
    Redirects {
        moved: totals.moved,
        ask: totals.ask,
        retries: e.retries,
        node_down: e.node_down,
        refreshes: e.refreshes,
        asking_refused: stats.nodes.iter().map(|n| n.asking_refused).sum(),
    }
}
