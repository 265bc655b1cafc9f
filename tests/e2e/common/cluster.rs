//! A private Redis Cluster on loopback: cluster-enabled `redis-server`
//! processes, the 16 384 slots split evenly among the masters
//! (`CLUSTER ADDSLOTSRANGE`), joined with `CLUSTER MEET`, replicas attached
//! with `CLUSTER REPLICATE`; ready once every node says `cluster_state:ok`,
//! every node's `CLUSTER NODES` tells the same story and every replica's link
//! to its master is up. What the nodes saw is read back here (roles, slots,
//! `INFO commandstats` summed over masters or over all nodes); the reshard and
//! failover drivers are in [`drivers`], running kvbench against it and
//! reading its cluster report in [`kvbench`]; scripted nodes for what a real
//! cluster cannot be made to do in [`scripted`]. Stopped when dropped.
//!
//! A node's cluster bus listens on its port + 10 000, so ports are drawn from
//! 20 000–29 999 (below the ephemeral range, where other sockets come and go)
//! and used only when both the port and its bus port can be bound.

pub mod drivers;
pub mod kvbench;
pub mod scripted;
pub mod view;

use std::net::TcpListener;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

pub use view::NodeView;

use super::{TempDir, ask, hand_out, machine, parse_commandstats, redis_server, try_command};
use view::parse_nodes_line;

/// One node of a [`Cluster`].
pub struct ClusterNode {
    child: Child,
    /// Its client port.
    pub port: u16,
}

/// A running cluster.
pub struct Cluster {
    /// Every live node in start order: the masters first, in slot order
    /// (master i started with the i-th share of the slots), then the replicas
    /// (replica j of master j % masters). Roles change with a failover: ask
    /// [`Cluster::masters`]. A node killed by [`Cluster::kill`] leaves it.
    pub nodes: Vec<ClusterNode>,
    dir: TempDir,
    _share: machine::Share,
}

/// A node's role, as `INFO replication` says now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Master,
    Replica,
}

/// A port whose bus port (+10 000) is free too, never handed out before in
/// this process (by [`free_port`](super::free_port) either).
fn cluster_port() -> u16 {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos()
        ^ std::process::id().wrapping_mul(2_654_435_761);
    for i in 0..10_000u32 {
        let port = 20_000 + ((seed.wrapping_add(i.wrapping_mul(7_919))) % 10_000) as u16;
        let both = TcpListener::bind(("127.0.0.1", port))
            .and_then(|a| TcpListener::bind(("127.0.0.1", port + 10_000)).map(|b| (a, b)));
        // The bus port is recorded too: an ephemeral port (32768 and up)
        // handed to another test could be this node's bus port.
        if both.is_ok() && hand_out(port + 10_000) && hand_out(port) {
            return port;
        }
    }
    panic!("no free port pair (port and port + 10000) in 20000-29999");
}

/// `cluster-node-timeout` unless a test asks for another: short enough that
/// the nodes meet quickly, long enough that a busy machine flags no node as
/// failing by mistake.
const NODE_TIMEOUT_MS: &str = "5000";

/// Starts one cluster-enabled node in `dir` with `extra` redis-server
/// arguments (they come last, so they override the defaults here), on
/// another port if another process took the first one between the probe and
/// the bind.
fn start_node(dir: &TempDir, extra: &[&str]) -> ClusterNode {
    for _ in 0..5 {
        let port = cluster_port();
        let child = redis_server(port, &dir.0)
            .args(["--cluster-enabled", "yes"])
            .args(["--cluster-config-file", &format!("nodes-{port}.conf")])
            .args(["--cluster-node-timeout", NODE_TIMEOUT_MS])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start redis-server ({e}); install it with `apt-get install -y redis-server` or run `make test`, which does")
            });
        let mut node = ClusterNode { child, port };
        let give_up = Instant::now() + Duration::from_secs(10);
        while Instant::now() < give_up {
            if let Ok(Some(_)) = node.child.try_wait() {
                break;
            }
            if try_command(port, &["PING"]).is_ok_and(|r| r == b"PONG") {
                return node;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = node.child.kill();
        let _ = node.child.wait();
    }
    panic!("a cluster node did not start on any of 5 free port pairs");
}

impl Cluster {
    /// Starts `masters` masters and no replica and waits until the cluster is ready.
    pub fn start(masters: usize) -> Cluster {
        Cluster::start_with_replicas(masters, 0)
    }

    /// Starts `masters` masters with `replicas_per_master` replicas each and
    /// waits until the cluster is ready (see [`Cluster::wait_settled`]).
    pub fn start_with_replicas(masters: usize, replicas_per_master: usize) -> Cluster {
        Cluster::start_with_args(masters, replicas_per_master, &[])
    }

    /// [`Cluster::start_with_replicas`] with `extra` redis-server arguments
    /// on every node, e.g. `["--cluster-node-timeout", "1000"]` for a quick
    /// automatic failover.
    pub fn start_with_args(masters: usize, replicas_per_master: usize, extra: &[&str]) -> Cluster {
        assert!(masters > 0, "a cluster needs a master");
        let share = machine::share();
        let dir = TempDir::new("cluster");
        let total = masters * (1 + replicas_per_master);
        let nodes = (0..total).map(|_| start_node(&dir, extra)).collect();
        let cluster = Cluster {
            nodes,
            dir,
            _share: share,
        };
        // Distinct config epochs, as `redis-cli --cluster create` gives them:
        // nodes that all start at epoch 0 settle only after collision rounds.
        for (i, node) in cluster.nodes.iter().enumerate() {
            let epoch = (i + 1).to_string();
            let reply = try_command(node.port, &["CLUSTER", "SET-CONFIG-EPOCH", &epoch]).unwrap();
            assert_eq!(reply, b"OK", "SET-CONFIG-EPOCH on {}", node.port);
        }
        let share = 16_384 / masters;
        for (i, node) in cluster.nodes[..masters].iter().enumerate() {
            let start = i * share;
            let end = if i + 1 == masters {
                16_383
            } else {
                start + share - 1
            };
            let range = [start.to_string(), end.to_string()];
            let reply = try_command(
                node.port,
                &["CLUSTER", "ADDSLOTSRANGE", &range[0], &range[1]],
            )
            .unwrap();
            assert_eq!(reply, b"OK", "ADDSLOTSRANGE on {}", node.port);
        }
        let first = cluster.nodes[0].port.to_string();
        for node in &cluster.nodes[1..] {
            let reply = try_command(node.port, &["CLUSTER", "MEET", "127.0.0.1", &first]).unwrap();
            assert_eq!(reply, b"OK", "MEET from {}", node.port);
        }
        for node in &cluster.nodes {
            wait(
                || {
                    let view = cluster.view(node.port);
                    view.len() == total && view.iter().all(|v| !v.unsettled)
                },
                "every node to know every other",
            );
        }
        for (j, replica) in cluster.nodes[masters..].iter().enumerate() {
            let master = cluster.node_id(cluster.nodes[j % masters].port);
            let reply = try_command(replica.port, &["CLUSTER", "REPLICATE", &master]).unwrap();
            assert_eq!(reply, b"OK", "REPLICATE {master} on {}", replica.port);
        }
        cluster.wait_settled(masters, total - masters);
        cluster
    }

    /// Waits until every node says `cluster_state:ok` with all slots
    /// assigned, every node's `CLUSTER NODES` agrees (the same ids, roles,
    /// masters and slots; nothing failing or in handshake), the agreed view
    /// has `masters` masters and `replicas` replicas, and every replica's
    /// link to its master is up. `redis-cli --cluster reshard` refuses a
    /// cluster whose nodes disagree, so this is also its precondition.
    pub fn wait_settled(&self, masters: usize, replicas: usize) {
        wait(
            || {
                let first = self.agreed_view(self.nodes[0].port);
                let agreed = self.nodes.iter().all(|n| {
                    let info = ask(n.port, &["CLUSTER", "INFO"]);
                    info.contains("cluster_state:ok")
                        && info.contains("cluster_slots_assigned:16384")
                        && self.agreed_view(n.port) == first
                });
                let shape = first.iter().filter(|v| v.master.is_none()).count() == masters
                    && first.iter().filter(|v| v.master.is_some()).count() == replicas;
                agreed
                    && shape
                    && first.iter().all(|v| !v.unsettled)
                    && self
                        .replicas()
                        .iter()
                        .all(|&p| super::info(p, "replication", "master_link_status") == "up")
            },
            &format!(
                "the cluster to settle ({masters} masters, {replicas} replicas, all agreeing, links up)"
            ),
        );
    }

    /// The ports of every node, in start order.
    pub fn ports(&self) -> Vec<u16> {
        self.nodes.iter().map(|n| n.port).collect()
    }

    /// The port kvbench is pointed at (any node would do).
    pub fn seed_port(&self) -> u16 {
        self.nodes[0].port
    }

    /// A node's role now, from its own `INFO replication`.
    pub fn role(&self, port: u16) -> Role {
        match super::info(port, "replication", "role").as_str() {
            "master" => Role::Master,
            "slave" => Role::Replica,
            other => panic!("127.0.0.1:{port} has role {other:?}"),
        }
    }

    /// The ports of the nodes that are masters now, in start order.
    pub fn masters(&self) -> Vec<u16> {
        self.with_role(Role::Master)
    }

    /// The ports of the nodes that are replicas now, in start order.
    pub fn replicas(&self) -> Vec<u16> {
        self.with_role(Role::Replica)
    }

    fn with_role(&self, role: Role) -> Vec<u16> {
        self.ports()
            .into_iter()
            .filter(|&p| self.role(p) == role)
            .collect()
    }

    /// A node's id (`CLUSTER MYID`).
    pub fn node_id(&self, port: u16) -> String {
        ask(port, &["CLUSTER", "MYID"])
    }

    /// `CLUSTER NODES` as `port` sees it, sorted by id.
    pub fn view(&self, port: u16) -> Vec<NodeView> {
        let text = ask(port, &["CLUSTER", "NODES"]);
        let mut views: Vec<NodeView> = text.lines().map(parse_nodes_line).collect();
        views.sort();
        views
    }

    /// [`Cluster::view`] without what differs from node to node by nature
    /// (which line is `myself`), so two nodes' views compare equal when they agree.
    fn agreed_view(&self, port: u16) -> Vec<NodeView> {
        let mut views = self.view(port);
        for v in &mut views {
            v.myself = false;
        }
        views
    }

    /// Slots the node at `port` serves, by its own account.
    pub fn slot_count(&self, port: u16) -> usize {
        self.view(port)
            .iter()
            .find(|v| v.myself)
            .map_or(0, NodeView::slot_count)
    }

    /// The port of the master serving `slot`, as the seed node sees it.
    pub fn owner(&self, slot: u16) -> u16 {
        self.view(self.seed_port())
            .iter()
            .find(|v| v.slots.iter().any(|&(a, b)| a <= slot && slot <= b))
            .unwrap_or_else(|| panic!("no node serves slot {slot}"))
            .port
    }

    /// Resets `INFO commandstats` on every node.
    pub fn reset_stats(&self) {
        for node in &self.nodes {
            let reply = try_command(node.port, &["CONFIG", "RESETSTAT"]).unwrap();
            assert_eq!(reply, b"OK", "CONFIG RESETSTAT on {}", node.port);
        }
    }

    /// Calls of `command` (lower case, as `cmdstat_` names it) on one node.
    pub fn calls(&self, port: u16, command: &str) -> u64 {
        let stats = parse_commandstats(&ask(port, &["INFO", "commandstats"]));
        stats.get(command).map_or(0, |c| c.0)
    }

    /// (port, calls of `command`) for every current master, in start order.
    pub fn calls_by_master(&self, command: &str) -> Vec<(u16, u64)> {
        self.masters()
            .into_iter()
            .map(|p| (p, self.calls(p, command)))
            .collect()
    }

    /// Calls of `command` summed over the current masters.
    pub fn sum_calls(&self, command: &str) -> u64 {
        self.calls_by_master(command).iter().map(|c| c.1).sum()
    }

    /// Calls of `command` summed over every node, replicas included (a
    /// replica counts the writes its master propagates to it, too).
    pub fn sum_calls_all(&self, command: &str) -> u64 {
        self.ports().iter().map(|&p| self.calls(p, command)).sum()
    }

    /// Keys on the node at `port`.
    pub fn dbsize(&self, port: u16) -> u64 {
        ask_integer(port, &["DBSIZE"])
    }

    /// Keys summed over the current masters (replicas hold copies).
    pub fn dbsize_sum(&self) -> u64 {
        self.masters().iter().map(|&p| self.dbsize(p)).sum()
    }
}

/// One integer reply.
fn ask_integer(port: u16, args: &[&str]) -> u64 {
    let reply = try_command(port, args).unwrap();
    String::from_utf8(reply).unwrap().parse().unwrap()
}

/// Polls `ready` for up to 30 s.
pub fn wait(mut ready: impl FnMut() -> bool, what: &str) {
    wait_for(Duration::from_secs(30), &mut ready, what);
}

/// Polls `ready` for up to `limit`, panicking with `what` when it never is.
pub fn wait_for(limit: Duration, mut ready: impl FnMut() -> bool, what: &str) {
    let give_up = Instant::now() + limit;
    while !ready() {
        assert!(
            Instant::now() < give_up,
            "gave up waiting {limit:?} for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for node in &mut self.nodes {
            let _ = node.child.kill();
            let _ = node.child.wait();
        }
    }
}
