//! The master's part of a `--cluster-mode` run: the topology discovered
//! before any benchmark connection opens, what the results say about it,
//! the refresher and each worker's start, and the per-node evidence. A
//! `--read-server` run starts here too, from a fixed topology of one shard
//! (the write server and its read endpoint), with nothing to refresh.

use std::sync::Arc;

use crate::config::target::Endpoint;
use crate::config::{ClusterOptions, Config, ReadFrom, ReadServer};
use crate::engine::cluster::discover::discover_on;
use crate::engine::cluster::map::Node;
use crate::engine::cluster::nearest::NodeLatency;
use crate::engine::cluster::refresh::{self, MIN_REFRESH_INTERVAL, Refresher};
use crate::engine::cluster::topology::{Topology, WorkerCluster};
use crate::engine::master::results::{ClusterContext, ClusterNode, NodeRole};
use crate::engine::master::server::cluster::{NodeLinks, sum_evidence};
use crate::engine::master::server::latency::{
    self, LatencySnapshot, LatencyUnavailable, PhaseLatency,
};
use crate::engine::master::server::{Control, Info, PhaseEvidence, SlowlogEntry};

use crate::error::RunError;

/// What a cluster run starts with.
pub(super) struct ClusterStart {
    /// For `Results.cluster`.
    pub context: ClusterContext,
    /// One per worker thread, for `crew::spawn`.
    pub workers: Vec<WorkerCluster>,
    /// Kept until the run ends; dropping it stops the thread (`None` for a
    /// `--read-server` run, whose topology is fixed).
    #[allow(dead_code, reason = "held for its Drop, which stops the refresher")]
    pub refresher: Option<Refresher>,
    /// Every node with its role at discovery, for the per-node evidence.
    pub nodes: Vec<(Node, NodeRole)>,
}

/// Discovers the cluster from the seed (`--server`/`--port`) over the
/// preflight's connection: an error the user can fix (no cluster,
/// unassigned slots) is exit 2, at once.
pub(super) fn start(
    config: &Config,
    options: ClusterOptions,
    seed: &mut Control,
) -> Result<ClusterStart, RunError> {
    let topology =
        discover_on(seed, &config.target).map_err(|e| e.into_run_error(&config.target.endpoint))?;
    let context = context(&topology, options);
    let nodes = roles(&topology);
    let latency = Arc::new(match options.read_from {
        ReadFrom::Nearest => measure_nearest(config, &topology),
        _ => NodeLatency::default(),
    });
    let (refresher, handles) = refresh::spawn(
        config.target.clone(),
        topology.all_nodes(),
        config.threads,
        MIN_REFRESH_INTERVAL,
    );
    let topology = Arc::new(topology);
    let workers = handles
        .into_iter()
        .map(|refresh| WorkerCluster {
            topology: Arc::clone(&topology),
            refresh: Some(refresh),
            latency: Arc::clone(&latency),
        })
        .collect();
    Ok(ClusterStart {
        context,
        workers,
        refresher: Some(refresher),
        nodes,
    })
}

/// `--read-server`: the fixed topology of one shard, the target (`--server`
/// /`--port`) its master with every slot and the read endpoint its replica.
/// Nothing is discovered: the endpoint may be a proxy or a cloud reader
/// endpoint, and its connections are refused as clearly when the workers
/// open them.
pub(super) fn start_read_server(config: &Config, read: &ReadServer) -> ClusterStart {
    let master = match &config.target.endpoint {
        Endpoint::Tcp { host, port, .. } => Node {
            host: host.clone(),
            port: *port,
            id: None,
        },
        // Refused when the configuration was built.
        Endpoint::Unix(_) => Node {
            host: String::new(),
            port: 0,
            id: None,
        },
    };
    let endpoint = Node {
        host: read.host.clone(),
        port: read.port,
        id: None,
    };
    let topology = Topology::read_endpoint(master, endpoint);
    let options = config.routing().unwrap_or_default();
    let context = context(&topology, options);
    let nodes = roles(&topology);
    let latency = Arc::new(match read.read_from {
        ReadFrom::Nearest => measure_nearest(config, &topology),
        _ => NodeLatency::default(),
    });
    let topology = Arc::new(topology);
    let workers = (0..config.threads)
        .map(|_| WorkerCluster {
            topology: Arc::clone(&topology),
            refresh: None,
            latency: Arc::clone(&latency),
        })
        .collect();
    ClusterStart {
        context,
        workers,
        refresher: None,
        nodes,
    }
}

/// `--read-from nearest`: times every node and says on stderr what it found,
/// so that a reader can match the per-node counts to the choice.
fn measure_nearest(config: &Config, topology: &Topology) -> NodeLatency {
    let latency = NodeLatency::measure(&config.target, &topology.all_nodes());
    let shown: Vec<String> = latency
        .measured()
        .map(|(address, rtt)| match rtt {
            Some(d) => format!("{address} {:.4} ms", d.as_secs_f64() * 1e3),
            None => format!("{address} no answer"),
        })
        .collect();
    crate::error::note(format_args!(
        "kvbench: --read-from nearest: fastest PING of {} per node: {}; each shard's reads go to its fastest node",
        crate::engine::cluster::nearest::PINGS_PER_NODE,
        shown.join(", ")
    ));
    latency
}

/// Masters, then each master's replicas.
fn roles(topology: &Topology) -> Vec<(Node, NodeRole)> {
    let masters = topology
        .map
        .nodes
        .iter()
        .map(|n| (n.clone(), NodeRole::Master));
    let replicas = topology
        .replicas
        .iter()
        .flatten()
        .map(|n| (n.clone(), NodeRole::Replica));
    let mut all: Vec<(Node, NodeRole)> = Vec::new();
    for (node, role) in masters.chain(replicas) {
        if !all.iter().any(|(n, _)| n.address() == node.address()) {
            all.push((node, role));
        }
    }
    all
}

/// The nodes as the results name them: masters with their slots, then
/// replicas with their master.
pub(super) fn context(topology: &Topology, options: ClusterOptions) -> ClusterContext {
    let slots = topology.map.slots_per_node();
    let mut nodes: Vec<ClusterNode> = topology
        .map
        .nodes
        .iter()
        .zip(slots)
        .map(|(node, slots)| ClusterNode {
            address: node.address(),
            role: NodeRole::Master,
            slots,
            master: None,
        })
        .collect();
    for (master, replicas) in topology.map.nodes.iter().zip(&topology.replicas) {
        for replica in replicas {
            nodes.push(ClusterNode {
                address: replica.address(),
                role: NodeRole::Replica,
                slots: 0,
                master: Some(master.address()),
            });
        }
    }
    ClusterContext { nodes, options }
}

/// What every node said before a phase, in the links' order.
pub(super) struct NodesBefore {
    infos: Vec<Option<Info>>,
    latency: Vec<Result<LatencySnapshot, LatencyUnavailable>>,
}

/// Every node's INFO, then every node's `LATENCY HISTOGRAM`.
pub(super) fn before_phase(links: &mut NodeLinks) -> NodesBefore {
    let infos = links.infos();
    let latency = links.latencies(&infos);
    NodesBefore { infos, latency }
}

/// A phase's evidence from every node: each node's own, the masters' sum
/// (with the seed's slow log) or why there is none, and the server latency
/// summed the same way.
pub(super) struct NodesEvidence {
    pub nodes: Vec<crate::engine::master::results::NodeEvidence>,
    pub sum: Option<PhaseEvidence>,
    pub lost: Option<String>,
    pub latency: PhaseLatency,
}

/// Reads every node again after the phase (INFO, then `LATENCY
/// HISTOGRAM`) and pairs it with what `before` read into evidence.
pub(super) fn phase_evidence(
    links: &mut NodeLinks,
    before: NodesBefore,
    slowlog: Option<Vec<SlowlogEntry>>,
) -> NodesEvidence {
    let after = links.infos();
    let latency_after = links.latencies(&after);
    let phases = links.latency_phases((&before.infos, &after), before.latency, latency_after);
    let latency = latency::nodes::sum(&phases);
    let (nodes, lost) = links.evidence(before.infos, after);
    // A sum without one of the masters would be compared as if complete.
    let sum = match lost {
        None => sum_evidence(&nodes).map(|sum| PhaseEvidence { slowlog, ..sum }),
        Some(_) => None,
    };
    NodesEvidence {
        nodes,
        sum,
        lost,
        latency,
    }
}

#[cfg(test)]
mod tests {
    use super::{context, roles};
    use crate::config::ClusterOptions;
    use crate::engine::cluster::map::{Node, SlotMap};
    use crate::engine::cluster::topology::Topology;
    use crate::engine::master::results::NodeRole;

    fn node(port: u16) -> Node {
        Node {
            host: "127.0.0.1".into(),
            port,
            id: None,
        }
    }

    #[test]
    fn the_context_lists_masters_with_their_slots_then_replicas_with_their_master() {
        let map = SlotMap::from_ranges([(0, 99, node(1)), (100, 16383, node(2))]).unwrap();
        let topology = Topology {
            map,
            replicas: vec![vec![node(3)], vec![]],
        };
        let c = context(&topology, ClusterOptions::default());
        let summary: Vec<(&str, NodeRole, usize, Option<&str>)> = c
            .nodes
            .iter()
            .map(|n| (n.address.as_str(), n.role, n.slots, n.master.as_deref()))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("127.0.0.1:1", NodeRole::Master, 100, None),
                ("127.0.0.1:2", NodeRole::Master, 16284, None),
                ("127.0.0.1:3", NodeRole::Replica, 0, Some("127.0.0.1:1")),
            ]
        );
        assert_eq!(roles(&topology).len(), 3);
    }
}
