//! Where a client's requests go: one server, or the master (or a replica,
//! with `--read-from`) of each key's slot. A `--read-server` run is routed
//! the same way over a fixed topology: one master owning every slot (the
//! write server) and one replica (the read endpoint), with no refresher and
//! no `READONLY`. A worker holds one router for all its clients; its node
//! list only grows, so a node's index names the same node in every client's
//! links and in the per-node stats for the whole run.

use std::sync::Arc;

use crate::config::{ClusterOptions, ReadFrom};
use crate::engine::cluster::map::Node;
use crate::engine::cluster::nearest::{self, NodeLatency};
use crate::engine::cluster::slot::{NumberedSlots, SLOTS};
use crate::engine::cluster::topology::{RefreshHandle, Topology, WorkerCluster};
use crate::error::ConnectError;

/// One server, or a cluster's slot map.
pub struct Router {
    /// Every node this worker has heard of, masters and replicas, in order
    /// first heard of. One server: empty.
    nodes: Vec<Node>,
    /// For each slot, its master's index in `nodes`. One server: empty.
    owner: Vec<u16>,
    /// For each node index, the indexes of its replicas (masters only).
    replicas: Vec<Vec<usize>>,
    /// `--read-from nearest`: for each master's index, the node its reads
    /// go to (itself or one of its replicas), chosen when a topology is applied.
    nearest: Vec<usize>,
    /// The round trips `nearest` is chosen by.
    latency: Arc<NodeLatency>,
    /// The refresher of a `--cluster-mode` run; `None` for one server and
    /// for a `--read-server` run.
    refresh: Option<RefreshHandle>,
    options: ClusterOptions,
    /// The slots of `--key-prefix`'s numbered keys.
    keys: NumberedSlots,
}

impl Router {
    /// The one-server router: every request to the client's only connection.
    /// `prefix` is `--key-prefix`.
    pub fn single(prefix: &[u8]) -> Router {
        Router {
            nodes: Vec::new(),
            owner: Vec::new(),
            replicas: Vec::new(),
            nearest: Vec::new(),
            latency: Arc::default(),
            refresh: None,
            options: ClusterOptions::default(),
            keys: NumberedSlots::new(prefix),
        }
    }

    /// The router of a cluster (or `--read-server`) run, from the topology
    /// found (or fixed) at the start; `prefix` is `--key-prefix`, whose keys'
    /// slots it computes.
    pub fn cluster(cluster: WorkerCluster, options: ClusterOptions, prefix: &[u8]) -> Router {
        let mut router = Router {
            nodes: Vec::new(),
            owner: vec![0; usize::from(SLOTS)],
            replicas: Vec::new(),
            nearest: Vec::new(),
            latency: cluster.latency,
            refresh: cluster.refresh,
            options,
            keys: NumberedSlots::new(prefix),
        };
        router.apply(&cluster.topology);
        router
    }

    /// The slot of the key `--key-prefix` + decimal `number`.
    #[inline]
    pub fn numbered_slot(&self, number: u64) -> u16 {
        self.keys.slot(number)
    }

    /// The slot of the key `--key-prefix` + `digits` (the number's decimal
    /// digits, read from an encoded request).
    #[inline]
    pub fn numbered_slot_of_digits(&self, digits: &[u8]) -> u16 {
        self.keys.slot_of_digits(digits)
    }

    /// True when requests are routed over nodes: a cluster run, or a
    /// `--read-server` run.
    pub fn is_routed(&self) -> bool {
        !self.owner.is_empty()
    }

    /// True in a Redis Cluster run (`--cluster-mode`): a topology that
    /// refreshes, replicas that serve reads after `READONLY`.
    pub fn is_cluster(&self) -> bool {
        self.refresh.is_some()
    }

    /// The nodes a client connects to before the run: every master, and
    /// with `--read-server` its endpoint too, so that an endpoint that cannot
    /// be reached is an error before the run, not a count during it.
    pub fn first_nodes(&self) -> Vec<usize> {
        let mut nodes = self.masters();
        if !self.is_cluster() && self.options.read_from != ReadFrom::Primary {
            nodes.extend(self.replicas.iter().flatten().copied());
        }
        nodes
    }

    /// `--max-redirects`.
    pub fn max_redirects(&self) -> u32 {
        self.options.max_redirects
    }

    /// The nodes known so far.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The master nodes' indexes, in map order (what a client connects to first).
    pub fn masters(&self) -> Vec<usize> {
        let mut masters: Vec<usize> = self.owner.iter().map(|&o| usize::from(o)).collect();
        masters.sort_unstable();
        masters.dedup();
        masters
    }

    /// True when `node` serves reads only (a replica, used with `--read-from`).
    pub fn is_replica(&self, node: usize) -> bool {
        self.replicas.iter().any(|r| r.contains(&node))
    }

    /// True when a connection to `node` must send `READONLY` first: a
    /// cluster replica. A standalone replica (`--read-server`) serves reads
    /// as it is, and would answer `READONLY` with an error.
    pub fn needs_readonly(&self, node: usize) -> bool {
        self.is_cluster() && self.is_replica(node)
    }

    /// `e`, a failure to connect to `node` before the run, named for the
    /// node when no flag of the command line points at it (a cluster node
    /// the seed named) or when its own flag does (the `--read-server`
    /// endpoint); the target's own failure stays as it is.
    pub fn blame(&self, node: usize, e: ConnectError) -> ConnectError {
        let Some(address) = self.nodes.get(node).map(Node::address) else {
            return e;
        };
        let source = Box::new(e);
        if self.is_cluster() {
            ConnectError::ClusterNode {
                node: address,
                source,
            }
        } else if self.is_replica(node) {
            ConnectError::ReadServer {
                node: address,
                source,
            }
        } else {
            *source
        }
    }

    /// The node for a request on `slot`: its master, or for a read with
    /// `--read-from replica|any`, one of its replicas picked by `spread`
    /// (the client's number, so each client keeps to one).
    pub fn route(&self, slot: Option<u16>, read: bool, spread: usize) -> usize {
        let Some(slot) = slot else {
            // A command without a key: the first master (any node answers).
            return self.owner.first().map_or(0, |&o| usize::from(o));
        };
        let master = self
            .owner
            .get(usize::from(slot))
            .map_or(0, |&o| usize::from(o));
        if !read {
            return master;
        }
        let replicas = self.replicas.get(master).map_or(&[][..], Vec::as_slice);
        match self.options.read_from {
            ReadFrom::Primary => master,
            ReadFrom::Replica if replicas.is_empty() => master,
            ReadFrom::Replica => replicas[spread % replicas.len()],
            ReadFrom::Any => match spread % (replicas.len() + 1) {
                0 => master,
                i => replicas[i - 1],
            },
            ReadFrom::Nearest => self.nearest.get(master).copied().unwrap_or(master),
        }
    }

    /// The index of the node at `address` (`host:port`; an empty host is
    /// `from`'s host, as Redis may announce), adding it when new.
    pub fn find_or_add(&mut self, address: &str, from: Option<usize>) -> usize {
        let (host, port) = split_address(address);
        let host = match (host.is_empty(), from.and_then(|f| self.nodes.get(f))) {
            (true, Some(node)) => node.host.clone(),
            _ => host.to_string(),
        };
        let node = Node {
            host,
            port,
            id: None,
        };
        let address = node.address();
        if let Some(i) = self.nodes.iter().position(|n| n.address() == address) {
            return i;
        }
        self.nodes.push(node);
        self.replicas.push(Vec::new());
        self.nearest.push(self.nodes.len() - 1);
        self.nodes.len() - 1
    }

    /// After `-MOVED slot address`: the slot's master is now that node.
    pub fn moved(&mut self, slot: u16, address: &str, from: Option<usize>) -> usize {
        let node = self.find_or_add(address, from);
        if let Some(owner) = self.owner.get_mut(usize::from(slot)) {
            *owner = node as u16;
        }
        node
    }

    /// Takes a whole new topology: slots to masters, replicas to masters.
    pub fn apply(&mut self, topology: &Topology) {
        let masters: Vec<usize> = topology
            .map
            .nodes
            .iter()
            .map(|n| self.find_or_add(&n.address(), None))
            .collect();
        for slot in 0..SLOTS {
            let owner = masters[topology.map.owner(slot)];
            self.owner[usize::from(slot)] = owner as u16;
        }
        for list in &mut self.replicas {
            list.clear();
        }
        for (m, replicas) in topology.replicas.iter().enumerate() {
            let ids: Vec<usize> = replicas
                .iter()
                .map(|r| self.find_or_add(&r.address(), None))
                .collect();
            if let Some(&master) = masters.get(m) {
                self.replicas[master] = ids;
            }
        }
        if self.options.read_from == ReadFrom::Nearest {
            for &master in &masters {
                let rtt = |n: usize| self.latency.of(&self.nodes[n].address());
                self.nearest[master] = nearest::pick(master, &self.replicas[master], rtt);
            }
        }
    }

    /// Applies the newest topology the refresher sent, if any; true when it did.
    pub fn take_updates(&mut self) -> bool {
        let latest: Option<Arc<Topology>> = self.refresh.as_ref().and_then(RefreshHandle::latest);
        match latest {
            Some(topology) => {
                self.apply(&topology);
                true
            }
            None => false,
        }
    }

    /// Asks the refresher for a fresh topology (after a MOVED); true when
    /// this ask was taken (asks coalesce until the refresh runs).
    pub fn ask_refresh(&self) -> bool {
        self.refresh.as_ref().is_some_and(RefreshHandle::request)
    }
}

/// `host:port` → (host, port); IPv6 hosts may be bracketed.
fn split_address(address: &str) -> (&str, u16) {
    let (host, port) = address.rsplit_once(':').unwrap_or((address, ""));
    let host = host.trim_start_matches('[').trim_end_matches(']');
    (host, port.parse().unwrap_or(0))
}

#[cfg(test)]
mod tests;
