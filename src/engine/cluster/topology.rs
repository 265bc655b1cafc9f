//! What a cluster looks like at one moment: the slot map (masters) and each
//! master's replicas, as discovery and every refresh produce it; and the
//! handle through which a worker asks for a fresh one and receives it.

use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender, TrySendError};

use super::map::{Node, SlotMap};
use super::nearest::NodeLatency;

/// The masters, their slots and their replicas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    /// Slots to masters.
    pub map: SlotMap,
    /// The replicas of each master, indexed like `map.nodes`.
    pub replicas: Vec<Vec<Node>>,
}

impl Topology {
    /// A topology of masters only.
    pub fn masters(map: SlotMap) -> Topology {
        let replicas = vec![Vec::new(); map.nodes.len()];
        Topology { map, replicas }
    }

    /// `--read-server`: one master (the write server) owning every slot,
    /// the read endpoint its only replica.
    pub fn read_endpoint(master: Node, read: Node) -> Topology {
        Topology {
            map: SlotMap::single(master),
            replicas: vec![vec![read]],
        }
    }

    /// Every node, masters first, each once.
    pub fn all_nodes(&self) -> Vec<Node> {
        let mut all = self.map.nodes.clone();
        for node in self.replicas.iter().flatten() {
            if !all.iter().any(|n| n.address() == node.address()) {
                all.push(node.clone());
            }
        }
        all
    }
}

/// A worker's end of the topology refresher: asking never blocks and many
/// asks coalesce into one refresh (the refresher rate-limits them across all
/// workers); fresh topologies arrive as they are read.
#[derive(Debug, Clone)]
pub struct RefreshHandle {
    requests: Sender<()>,
    updates: Receiver<Arc<Topology>>,
}

impl RefreshHandle {
    /// A handle over the two channels: `requests` to the refresher (bounded,
    /// so that asks coalesce) and `updates` from it.
    pub fn new(requests: Sender<()>, updates: Receiver<Arc<Topology>>) -> Self {
        RefreshHandle { requests, updates }
    }

    /// Asks for a refresh; returns false when one was already asked for and
    /// not yet taken, or the refresher is gone.
    pub fn request(&self) -> bool {
        match self.requests.try_send(()) {
            Ok(()) => true,
            Err(TrySendError::Full(())) | Err(TrySendError::Disconnected(())) => false,
        }
    }

    /// The newest topology received since the last call, if any.
    pub fn latest(&self) -> Option<Arc<Topology>> {
        self.updates.try_iter().last()
    }
}

/// What one worker thread of a `--cluster-mode` (or `--read-server`) run
/// starts with.
#[derive(Debug, Clone)]
pub struct WorkerCluster {
    /// The topology discovered before the run.
    pub topology: Arc<Topology>,
    /// Its end of the refresher; `None` for the fixed topology of a
    /// `--read-server` run, which nothing refreshes.
    pub refresh: Option<RefreshHandle>,
    /// `--read-from nearest`: each node's round trip at the start (empty
    /// for the other modes).
    pub latency: Arc<NodeLatency>,
}
