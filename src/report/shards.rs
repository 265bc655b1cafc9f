//! The per-shard view of a `--cluster-mode` run: one row per node that
//! answered, with its share of the replies, its rates, its latency
//! percentiles (from its histogram merged over every thread) and the server's
//! own calls on that node; and the text that shows it: the `Shards` table,
//! the redirect totals, and memtier's `MOVED/sec` and `ASK/sec` columns of
//! the op tables. The JSON of the same rows is in
//! [`crate::report::build::evidence::cluster`].
//!
//! A `--read-server` run has the same table of its two nodes (the write
//! server and the read endpoint). A single-server run has no nodes and none
//! of this is printed, so its report stays byte for byte what it was.

use std::fmt::Write;
use std::time::Duration;

use crate::engine::master::results::{NodeRole, PhaseResult, Results, rate};
use crate::engine::stats::{NodeStats, Stats, percentile_us};
use crate::workload::ops::OpTable;

/// The latency percentiles of the shard rows. Fixed rather than
/// `--print-percentiles`, so that the table stays one line per node however
/// many percentiles the op tables print.
pub const SHARD_PERCENTILES: [f64; 3] = [50.0, 99.0, 99.9];

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

/// The `Shards` table (so `title`d for a cluster): one row per node that
/// answered, then the redirect totals when any is non-zero.
pub fn table(
    out: &mut String,
    title: &str,
    shards: &[Shard<'_>],
    stats: &Stats,
    duration: Duration,
) {
    if shards.is_empty() {
        return;
    }
    let node_width = shards
        .iter()
        .map(|s| s.stats.address.len())
        .max()
        .unwrap_or(0)
        .max(4)
        + 2;
    let width = node_width + 8 + 6 + 14 + 9 + 13 * 4 + 16 * (1 + SHARD_PERCENTILES.len()) + 14;
    let _ = writeln!(out, "{title}");
    let _ = writeln!(out, "{}", "=".repeat(width));
    let _ = write!(
        out,
        "{:<node_width$}{:<8}{:>6}{:>14}{:>9}{:>13}{:>13}{:>13}{:>13}{:>16}",
        "Node",
        "Role",
        "Slots",
        "Ops/sec",
        "Share",
        "Hits/sec",
        "Misses/sec",
        "MOVED/sec",
        "ASK/sec",
        "Avg. Latency"
    );
    for p in SHARD_PERCENTILES {
        let _ = write!(out, "{:>16}", format!("p{p} Latency"));
    }
    let _ = writeln!(out, "{:>14}", "Server calls");
    let _ = writeln!(out, "{}", "-".repeat(width));
    for s in shards {
        let n = s.stats;
        let slots = s.slots.map_or("?".to_string(), |v| v.to_string());
        let _ = write!(
            out,
            "{:<node_width$}{:<8}{:>6}{:>14.2}{:>7.2} %{:>13.2}{:>13.2}{:>13.2}{:>13.2}{:>16.5}",
            n.address,
            s.role.map_or("?", NodeRole::as_str),
            slots,
            rate(n.count, duration),
            100.0 * s.share,
            rate(n.hits, duration),
            rate(n.misses, duration),
            rate(n.moved, duration),
            rate(n.ask, duration),
            n.mean_us() / 1000.0
        );
        for p in SHARD_PERCENTILES {
            let _ = write!(
                out,
                "{:>16.5}",
                percentile_us(&n.latency_us, p) as f64 / 1000.0
            );
        }
        let calls = s
            .server_calls_total()
            .map_or("---".to_string(), |c| c.to_string());
        let _ = writeln!(out, "{calls:>14}");
    }
    redirects_line(out, stats);
    out.push_str("\n\n");
}

/// What routing cost: redirects followed, retries, requests not sent to a
/// node that was down, and topology refreshes; nothing when all are zero.
fn redirects_line(out: &mut String, stats: &Stats) {
    let totals = stats.totals();
    let e = &stats.errors;
    let counts = [
        totals.moved,
        totals.ask,
        e.retries,
        e.node_down,
        e.refreshes,
    ];
    let asking_refused: u64 = stats.nodes.iter().map(|n| n.asking_refused).sum();
    if counts.iter().all(|n| *n == 0) && asking_refused == 0 {
        return;
    }
    // Said only when it happened: a healthy cluster answers every ASKING.
    let refused = if asking_refused > 0 {
        format!(" ({asking_refused} ASKING answered with an error)")
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "Redirects: {} MOVED and {} ASK followed{refused}, {} retries after TRYAGAIN or CLUSTERDOWN, {} requests not sent (node down), {} topology refreshes",
        totals.moved, totals.ask, e.retries, e.node_down, e.refreshes
    );
}
