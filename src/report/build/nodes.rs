//! The nodes of a routed phase (`--cluster-mode`, `--read-server`) as the
//! builder finds them in the engine's results: each node that answered,
//! with its role and slots at discovery, its share of the replies and the
//! server's own calls on it, sorted by address. The JSON's `cluster` object
//! ([`crate::report::build::evidence::cluster`]) is made of them, and the
//! text's `Shards` table reads that object.

use crate::engine::master::results::{NodeRole, PhaseResult, Results};
use crate::engine::stats::{NodeStats, Stats};
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
