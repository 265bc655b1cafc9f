//! Server evidence from every node of a cluster: one control connection per
//! node, INFO from each before and after a phase, and their sum, which the
//! cross-check compares with kvbench's totals.
//!
//! Which nodes the sum covers follows what Redis counts (measured on Redis
//! 7.0.15, see docs/cluster.md "Per-shard evidence"): a replica's
//! `INFO commandstats` counts every write it receives by replication, so
//! adding replicas would count each write twice. The sum covers the nodes
//! that were masters before or after the phase; a node whose role changed
//! (a failover) makes the write counts of that phase uncomparable, while
//! reads, which replicas serve only after `READONLY`, still compare.
//! Each node's `LATENCY HISTOGRAM` is read after its INFO and summed by the
//! same rule (`latency::nodes`).

use std::collections::BTreeMap;

use crate::config::target::Target;
use crate::engine::cluster::discover::node_target;
use crate::engine::cluster::map::Node;
use crate::engine::master::results::{NodeEvidence, NodeRole};
use crate::engine::master::server::latency::nodes::NodePhase;
use crate::engine::master::server::latency::{
    self, LatencySnapshot, LatencyUnavailable, PhaseLatency,
};

use super::sample::{ServerSampler, ServerSeries};
use super::{ControlLink, Info, PhaseEvidence};

/// The role INFO's `replication` section names (`role:master`, `role:slave`).
pub fn role_of(info: &Info) -> Option<NodeRole> {
    match info.get("role")? {
        "master" => Some(NodeRole::Master),
        "slave" | "replica" => Some(NodeRole::Replica),
        _ => None,
    }
}

/// One control connection per node, in discovery order (masters first).
pub struct NodeLinks {
    links: Vec<(Node, NodeRole, ControlLink)>,
}

impl NodeLinks {
    /// Opens a control connection to each node; a failure is kept by its
    /// link and reported with the phase whose evidence it costs.
    pub fn open(target: &Target, nodes: &[(Node, NodeRole)]) -> NodeLinks {
        let links = nodes
            .iter()
            .map(|(node, role)| {
                let link = ControlLink::open(&node_target(target, node));
                (node.clone(), *role, link)
            })
            .collect();
        NodeLinks { links }
    }

    /// INFO from every node, in order; `None` where a node did not answer.
    pub fn infos(&mut self) -> Vec<Option<Info>> {
        self.links.iter_mut().map(|(_, _, l)| l.info()).collect()
    }

    /// A sampler per node at the phase's start: its first reading.
    pub fn start_samplers(&mut self) -> Vec<ServerSampler> {
        self.links
            .iter_mut()
            .map(|(_, _, l)| ServerSampler::start(Some(l)))
            .collect()
    }

    /// A second completed: one more reading of every node.
    pub fn sample_second(&mut self, samplers: &mut [ServerSampler]) {
        for ((_, _, link), sampler) in self.links.iter_mut().zip(samplers) {
            sampler.second(link);
        }
    }

    /// Each node's series, by address, from `samplers` of
    /// [`Self::start_samplers`].
    pub fn finish_samplers(&self, samplers: Vec<ServerSampler>) -> Vec<(String, ServerSeries)> {
        self.links
            .iter()
            .zip(samplers)
            .filter_map(|((node, _, _), s)| Some((node.address(), s.finish()?)))
            .collect()
    }

    /// Forgets failures from before this phase.
    pub fn clear_lost(&mut self) {
        for (_, _, link) in &mut self.links {
            let _ = link.take_lost();
        }
    }

    /// `LATENCY HISTOGRAM` from every node, in order, each read after its
    /// INFO in `infos`, whose `run_id` tells that node's restart; a node
    /// that gave no INFO gives none.
    pub fn latencies(
        &mut self,
        infos: &[Option<Info>],
    ) -> Vec<Result<LatencySnapshot, LatencyUnavailable>> {
        self.links
            .iter_mut()
            .zip(infos)
            .map(|((_, _, link), info)| {
                let info = info.as_ref().ok_or(LatencyUnavailable::NoControl)?;
                let control = link.get().ok_or(LatencyUnavailable::NoControl)?;
                latency::read(control, info.get("run_id"))
            })
            .collect()
    }

    /// Each node's latency over a phase, from its histograms and INFO read
    /// before and after, and whether it is counted as [`counted`] decides
    /// (the role INFO gave, or the discovered one where INFO is missing).
    pub fn latency_phases(
        &self,
        infos: (&[Option<Info>], &[Option<Info>]),
        before: Vec<Result<LatencySnapshot, LatencyUnavailable>>,
        after: Vec<Result<LatencySnapshot, LatencyUnavailable>>,
    ) -> Vec<NodePhase> {
        let role = |info: Option<&Option<Info>>, discovered: NodeRole| {
            info.and_then(Option::as_ref)
                .and_then(role_of)
                .unwrap_or(discovered)
        };
        self.links
            .iter()
            .zip(before.into_iter().zip(after))
            .enumerate()
            .map(|(i, ((_, discovered, _), (before, after)))| NodePhase {
                counted: counts(
                    role(infos.0.get(i), *discovered),
                    role(infos.1.get(i), *discovered),
                ),
                latency: PhaseLatency::between(before, after),
            })
            .collect()
    }

    /// Each node's evidence from INFO read before and after a phase, and
    /// why a node's is missing, if one is.
    pub fn evidence(
        &mut self,
        before: Vec<Option<Info>>,
        after: Vec<Option<Info>>,
    ) -> (Vec<NodeEvidence>, Option<String>) {
        let mut nodes = Vec::with_capacity(self.links.len());
        let mut lost = Vec::new();
        for ((node, discovered, link), (before, after)) in
            self.links.iter_mut().zip(before.into_iter().zip(after))
        {
            let Some((before, after)) = before.zip(after) else {
                let why = link
                    .take_lost()
                    .unwrap_or_else(|| "it does not answer INFO".to_string());
                lost.push(format!("{}: {why}", node.address()));
                continue;
            };
            nodes.push(NodeEvidence {
                address: node.address(),
                role_before: role_of(&before).unwrap_or(*discovered),
                role_after: role_of(&after).unwrap_or(*discovered),
                evidence: PhaseEvidence {
                    before,
                    after,
                    slowlog: None,
                },
            });
        }
        let lost = (!lost.is_empty()).then(|| {
            format!(
                "no evidence from {} of {} nodes, so no sum to compare with: {}",
                lost.len(),
                self.links.len(),
                lost.join("; ")
            )
        });
        (nodes, lost)
    }
}

/// True when `node` belongs in the sum: a master before or after the phase.
pub fn counted(node: &NodeEvidence) -> bool {
    counts(node.role_before, node.role_after)
}

/// True for a node that was a master before or after the phase.
fn counts(before: NodeRole, after: NodeRole) -> bool {
    before == NodeRole::Master || after == NodeRole::Master
}

/// The evidence of the cluster as one server: every counted node's INFO
/// before and after, summed ([`sum_infos`]), and of the other nodes (replicas
/// throughout) only their reads and their `rejected_calls`: a request sent to a replica is
/// answered `-MOVED` there, and counted nowhere else. A node that restarted
/// during the phase counts from zero (its counters restarted), and the sum's
/// `run_id` is the same before and after, so the sum is not taken for a
/// restart of the whole cluster; each node's own evidence still says it.
pub fn sum_evidence(nodes: &[NodeEvidence]) -> Option<PhaseEvidence> {
    let empty = |info: &Info| Info {
        fields: BTreeMap::new(),
        section_of: BTreeMap::new(),
        ..info.clone()
    };
    let share = |node: &NodeEvidence, info: &Info| {
        if counted(node) {
            info.clone()
        } else {
            rejected_only(info)
        }
    };
    let mut befores = Vec::with_capacity(nodes.len());
    let mut afters = Vec::with_capacity(nodes.len());
    // The counted nodes first: the sum's text fields come from the first.
    let mut order: Vec<&NodeEvidence> = nodes.iter().collect();
    order.sort_by_key(|n| !counted(n));
    if !order.first().is_some_and(|n| counted(n)) {
        return None;
    }
    for node in order {
        let e = &node.evidence;
        befores.push(if e.restarted() {
            empty(&e.before)
        } else {
            share(node, &e.before)
        });
        afters.push(share(node, &e.after));
    }
    let mut before = sum_infos(&befores.iter().collect::<Vec<_>>())?;
    let after = sum_infos(&afters.iter().collect::<Vec<_>>())?;
    match after.get("run_id") {
        Some(id) => {
            before.fields.insert("run_id".into(), id.to_string());
        }
        None => {
            before.fields.remove("run_id");
        }
    }
    Some(PhaseEvidence {
        before,
        after,
        slowlog: None,
    })
}

/// Only the `rejected_calls` of each command: what a replica answered its
/// clients without running it; and the calls of read commands, which a
/// replica runs only for clients (`--read-from replica|any`), never by
/// replication.
fn rejected_only(info: &Info) -> Info {
    let mut only = Info {
        fields: BTreeMap::new(),
        section_of: BTreeMap::new(),
        ..info.clone()
    };
    for field in info.fields.keys() {
        let Some(command) = field.strip_prefix("cmdstat_") else {
            continue;
        };
        if crate::workload::ops::is_read_command(&command.to_ascii_uppercase()) {
            if let Some(value) = info.fields.get(field) {
                only.fields.insert(field.clone(), value.clone());
            }
            if let Some(section) = info.section_of.get(field) {
                only.section_of.insert(field.clone(), section.clone());
            }
            continue;
        }
        let rejected = info.rejected_calls(command);
        only.fields.insert(
            field.clone(),
            format!("calls=0,usec=0,usec_per_call=0.00,rejected_calls={rejected},failed_calls=0"),
        );
        if let Some(section) = info.section_of.get(field) {
            only.section_of.insert(field.clone(), section.clone());
        }
    }
    only
}

/// Sections whose numbers describe one process, not a share of the work:
/// taken from the first node and never added.
const NOT_ADDED: [&str; 4] = ["Server", "Replication", "Cluster", "Modules"];

/// The INFO of several nodes as if of one server: numbers added (calls,
/// rejected and failed calls, hits, misses, keys, CPU seconds, memory,
/// forks), including each `name=value` part of fields such as
/// `cmdstat_get` and `db0`; text and the Server, Replication, Cluster and
/// Modules sections from the first. `usec_per_call` is recomputed and
/// `avg_ttl` taken from the first. `None` for no nodes.
pub fn sum_infos(infos: &[&Info]) -> Option<Info> {
    let (first, rest) = infos.split_first()?;
    let mut sum = (*first).clone();
    for info in rest {
        for (field, value) in &info.fields {
            let section = info.section_of.get(field).map_or("", String::as_str);
            if NOT_ADDED.iter().any(|s| s.eq_ignore_ascii_case(section)) {
                continue;
            }
            let Some(mine) = sum.fields.get_mut(field) else {
                sum.fields.insert(field.clone(), value.clone());
                sum.section_of.insert(field.clone(), section.to_string());
                continue;
            };
            if let Some(added) = add_values(mine, value) {
                *mine = added;
            }
        }
    }
    for (field, value) in sum.fields.iter_mut() {
        if field.starts_with("cmdstat_") {
            *value = with_usec_per_call(value);
        }
    }
    Some(sum)
}

/// `a + b` for two numbers, or part by part for two `name=number,…` lists;
/// `None` (keep `a`) for text.
fn add_values(a: &str, b: &str) -> Option<String> {
    if let Some(n) = add_numbers(a, b) {
        return Some(n);
    }
    if !a.contains('=') {
        return None;
    }
    let parts: Option<Vec<String>> = a
        .split(',')
        .map(|part| {
            let (name, mine) = part.split_once('=')?;
            let theirs = b
                .split(',')
                .find_map(|p| p.strip_prefix(name)?.strip_prefix('='));
            Some(match theirs {
                _ if name == "avg_ttl" || name == "usec_per_call" => part.to_string(),
                Some(theirs) => format!("{name}={}", add_numbers(mine, theirs)?),
                None => part.to_string(),
            })
        })
        .collect();
    parts.map(|p| p.join(","))
}

fn add_numbers(a: &str, b: &str) -> Option<String> {
    if let (Ok(x), Ok(y)) = (a.parse::<u64>(), b.parse::<u64>()) {
        return Some(x.saturating_add(y).to_string());
    }
    let (x, y) = (a.parse::<f64>().ok()?, b.parse::<f64>().ok()?);
    (x.is_finite() && y.is_finite()).then(|| format!("{:.6}", x + y))
}

/// A `cmdstat_*` value with `usec_per_call` made `usec / calls` again.
fn with_usec_per_call(value: &str) -> String {
    let part = |name: &str| {
        value
            .split(',')
            .find_map(|p| p.strip_prefix(name)?.strip_prefix('='))
            .and_then(|v| v.parse::<f64>().ok())
    };
    let (Some(calls), Some(usec)) = (part("calls"), part("usec")) else {
        return value.to_string();
    };
    let per_call = if calls > 0.0 { usec / calls } else { 0.0 };
    value
        .split(',')
        .map(|p| match p.split_once('=') {
            Some(("usec_per_call", _)) => format!("usec_per_call={per_call:.2}"),
            _ => p.to_string(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests;
