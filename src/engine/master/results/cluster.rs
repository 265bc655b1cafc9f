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
