//! The server latency of a cluster as of one server: each node's
//! `LATENCY HISTOGRAM` differenced around the phase on its own (its own
//! `run_id` tells its own restart), then the phase histograms summed per
//! command over the nodes the INFO sum counts (`cluster::counted`).
//!
//! The rule is the INFO sum's, for the same reason: a replica runs every
//! write its master replicates, and its histogram of `set` holds them, so a
//! replica's writes would count each write twice. Reads are never
//! replicated: a replica runs a read only for a client that sent it
//! `READONLY` (`--read-from replica|any|nearest`), so a replica's histogram
//! of a read command is traffic no master saw, and is added.

use std::collections::BTreeMap;

use crate::engine::master::server::latency::{Cumulative, LatencyUnavailable, PhaseLatency};
use crate::workload::ops::is_read_command;

/// One node's phase: whether the sum counts all of its commands (a master
/// before or after the phase) and its differenced histograms.
#[derive(Debug, Clone, PartialEq)]
pub struct NodePhase {
    /// A master before or after the phase; otherwise only its reads count.
    pub counted: bool,
    /// Its histograms over the phase, or why they are not known.
    pub latency: PhaseLatency,
}

/// Whether a replica's histogram of `command` (the server's lower-case
/// name) is its clients' own traffic: a read, as `rejected_only` decides
/// for its INFO.
fn only_from_clients(command: &str) -> bool {
    is_read_command(&command.to_ascii_uppercase())
}

/// The cluster's phase: every node's share added per command. One node
/// whose histograms are not known makes the whole unknown, with its reason:
/// a sum without it would be read as complete (a replica's too, since its
/// reads may be in it), as the INFO sum is not taken without every node.
pub fn sum(nodes: &[NodePhase]) -> PhaseLatency {
    if nodes.is_empty() {
        return PhaseLatency::Unavailable(LatencyUnavailable::NoControl);
    }
    let mut shares: BTreeMap<&str, Vec<&Cumulative>> = BTreeMap::new();
    for node in nodes {
        let known = match &node.latency {
            PhaseLatency::Known(known) => known,
            PhaseLatency::Unavailable(why) => return PhaseLatency::Unavailable(*why),
        };
        for (command, h) in known {
            if node.counted || only_from_clients(command) {
                shares.entry(command).or_default().push(h);
            }
        }
    }
    let summed = shares
        .into_iter()
        .map(|(command, parts)| (command.to_string(), Cumulative::sum(parts)))
        .filter(|(_, h)| h.total() > 0)
        .collect();
    PhaseLatency::Known(summed)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::{NodePhase, sum};
    use crate::engine::master::server::latency::{Cumulative, LatencyUnavailable, PhaseLatency};

    fn node(counted: bool, commands: &[(&str, u64)]) -> NodePhase {
        let known: BTreeMap<String, Cumulative> = commands
            .iter()
            .map(|(name, calls)| {
                let h = Cumulative {
                    edges: vec![(2, *calls)],
                };
                (name.to_string(), h)
            })
            .collect();
        NodePhase {
            counted,
            latency: PhaseLatency::Known(known),
        }
    }

    fn calls(found: &PhaseLatency) -> BTreeMap<String, u64> {
        match found {
            PhaseLatency::Known(k) => k.iter().map(|(n, h)| (n.clone(), h.total())).collect(),
            PhaseLatency::Unavailable(why) => panic!("unavailable: {why:?}"),
        }
    }

    #[test]
    fn masters_add_up_and_a_replica_adds_only_its_reads() {
        let nodes = [
            node(true, &[("set", 100), ("get", 400), ("info", 2)]),
            node(true, &[("set", 90), ("get", 410)]),
            // The replica's SETs came by replication; its GETs from clients.
            node(false, &[("set", 100), ("get", 30), ("info", 2)]),
        ];
        let found = calls(&sum(&nodes));
        assert_eq!(found["set"], 190);
        assert_eq!(found["get"], 840);
        assert_eq!(found["info"], 2);
    }

    #[test]
    fn one_node_without_histograms_makes_the_cluster_unknown() {
        let mut replica = node(false, &[]);
        replica.latency = PhaseLatency::Unavailable(LatencyUnavailable::TrackingOff);
        let nodes = [node(true, &[("get", 1)]), replica];
        assert_eq!(
            sum(&nodes),
            PhaseLatency::Unavailable(LatencyUnavailable::TrackingOff)
        );
        assert_eq!(
            sum(&[]),
            PhaseLatency::Unavailable(LatencyUnavailable::NoControl)
        );
    }
}
