//! What a `--cluster-mode` run adds to its results: the nodes it found and,
//! per phase, each node's own evidence beside the sum.

use crate::config::ClusterOptions;
use crate::engine::master::server::PhaseEvidence;

/// A node's role when it was looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeRole {
    /// Serves slots.
    Master,
    /// Copies a master.
    Replica,
}

impl NodeRole {
    /// `master` or `replica`, as reports spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeRole::Master => "master",
            NodeRole::Replica => "replica",
        }
    }
}

/// One node of the cluster, as discovered before the first phase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterNode {
    /// `host:port`, as the slot map and the per-node stats name it.
    pub address: String,
    /// Its role at discovery.
    pub role: NodeRole,
    /// Slots it served at discovery (0 for a replica).
    pub slots: usize,
    /// A replica's master (`host:port`).
    pub master: Option<String>,
}

/// The cluster a run drove.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterContext {
    /// Masters first, then replicas.
    pub nodes: Vec<ClusterNode>,
    /// `--max-redirects` and `--read-from`.
    pub options: ClusterOptions,
}

/// One node's evidence around one phase.
#[derive(Debug, Clone)]
pub struct NodeEvidence {
    /// `host:port`.
    pub address: String,
    /// Its role before and after the phase (a failover changes it).
    pub role_before: NodeRole,
    /// Its role after the phase.
    pub role_after: NodeRole,
    /// Its INFO before and after.
    pub evidence: PhaseEvidence,
}

impl NodeEvidence {
    /// True when the node's role changed during the phase (a failover).
    pub fn role_changed(&self) -> bool {
        self.role_before != self.role_after
    }
}

/// Why the summed write counts of a phase cannot be compared with kvbench's,
/// if they cannot: a node changed role during it, so the sum holds writes
/// it copied as a replica as well as those it served as a master. Reads
/// still compare (replicas serve none without `READONLY`).
pub fn writes_uncomparable(nodes: &[NodeEvidence]) -> Option<String> {
    let changed: Vec<String> = nodes
        .iter()
        .filter(|n| n.role_changed())
        .map(|n| {
            format!(
                "{} {} -> {}",
                n.address,
                n.role_before.as_str(),
                n.role_after.as_str()
            )
        })
        .collect();
    (!changed.is_empty()).then(|| {
        format!(
            "a node changed role during the phase ({}): write counts cannot be cross-checked, reads still can",
            changed.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use super::{NodeEvidence, NodeRole, writes_uncomparable};
    use crate::engine::master::server::{Info, PhaseEvidence};

    fn node(address: &str, before: NodeRole, after: NodeRole) -> NodeEvidence {
        let info = Info::parse("", SystemTime::UNIX_EPOCH);
        NodeEvidence {
            address: address.into(),
            role_before: before,
            role_after: after,
            evidence: PhaseEvidence {
                before: info.clone(),
                after: info,
                slowlog: None,
            },
        }
    }

    #[test]
    fn only_a_role_change_makes_writes_uncomparable_and_it_names_the_nodes() {
        let steady = [
            node("a:1", NodeRole::Master, NodeRole::Master),
            node("b:1", NodeRole::Replica, NodeRole::Replica),
        ];
        assert_eq!(writes_uncomparable(&steady), None);
        assert_eq!(writes_uncomparable(&[]), None);
        let failover = [
            node("a:1", NodeRole::Master, NodeRole::Replica),
            node("b:1", NodeRole::Replica, NodeRole::Master),
            node("c:1", NodeRole::Master, NodeRole::Master),
        ];
        let why = writes_uncomparable(&failover).unwrap();
        assert!(
            why.contains("a:1 master -> replica, b:1 replica -> master"),
            "{why}"
        );
        assert!(!why.contains("c:1"), "{why}");
        assert!(why.contains("reads still can"), "{why}");
    }
}
