//! A private Redis Cluster on loopback: N masters started as cluster-enabled
//! `redis-server` processes, the 16 384 slots split evenly among them
//! (`CLUSTER ADDSLOTSRANGE`), joined with `CLUSTER MEET`, ready once every
//! node says `cluster_state:ok` and agrees on the slots. Stopped when dropped.
//!
//! A node's cluster bus listens on its port + 10 000, so ports are drawn from
//! 20 000–29 999 (below the ephemeral range, where other sockets come and go)
//! and used only when both the port and its bus port can be bound.

use std::net::TcpListener;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use super::{TempDir, ask, redis_server, try_command};

/// One node of a [`Cluster`].
pub struct ClusterNode {
    child: Child,
    /// Its client port.
    pub port: u16,
}

/// A running cluster.
pub struct Cluster {
    /// The masters, in slot order: node i serves the i-th share of the slots.
    pub nodes: Vec<ClusterNode>,
    _dir: TempDir,
}

/// A port whose bus port (+10 000) is free too.
fn cluster_port(taken: &[u16]) -> u16 {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    for i in 0..10_000u32 {
        let port = 20_000 + ((seed.wrapping_add(i.wrapping_mul(7_919))) % 10_000) as u16;
        if taken.contains(&port) {
            continue;
        }
        let both = TcpListener::bind(("127.0.0.1", port))
            .and_then(|a| TcpListener::bind(("127.0.0.1", port + 10_000)).map(|b| (a, b)));
        if both.is_ok() {
            return port;
        }
    }
    panic!("no free port pair (port and port + 10000) in 20000-29999");
}

impl Cluster {
    /// Starts `masters` nodes and waits until the cluster is ready.
    pub fn start(masters: usize) -> Cluster {
        let dir = TempDir::new("cluster");
        let mut nodes = Vec::new();
        for _ in 0..masters {
            let taken: Vec<u16> = nodes.iter().map(|n: &ClusterNode| n.port).collect();
            let port = cluster_port(&taken);
            let child = redis_server(port, &dir.0)
                .args(["--cluster-enabled", "yes"])
                .args(["--cluster-config-file", &format!("nodes-{port}.conf")])
                .args(["--cluster-node-timeout", "5000"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| {
                    panic!("cannot start redis-server ({e}); install it with `apt-get install -y redis-server` or run `make test`, which does")
                });
            nodes.push(ClusterNode { child, port });
        }
        let cluster = Cluster { nodes, _dir: dir };
        for node in &cluster.nodes {
            wait(
                || try_command(node.port, &["PING"]).is_ok_and(|r| r == b"PONG"),
                "a node to start",
            );
        }
        let share = 16_384 / masters;
        for (i, node) in cluster.nodes.iter().enumerate() {
            let start = i * share;
            let end = if i + 1 == masters {
                16_383
            } else {
                start + share - 1
            };
            let reply = try_command(
                node.port,
                &[
                    "CLUSTER",
                    "ADDSLOTSRANGE",
                    &start.to_string(),
                    &end.to_string(),
                ],
            )
            .unwrap();
            assert_eq!(reply, b"OK", "ADDSLOTSRANGE on {}", node.port);
        }
        let first = cluster.nodes[0].port.to_string();
        for node in &cluster.nodes[1..] {
            assert_eq!(
                try_command(node.port, &["CLUSTER", "MEET", "127.0.0.1", &first]).unwrap(),
                b"OK"
            );
        }
        for node in &cluster.nodes {
            wait(
                || {
                    let info = ask(node.port, &["CLUSTER", "INFO"]);
                    info.contains("cluster_state:ok")
                        && info.contains("cluster_slots_assigned:16384")
                        && info.contains(&format!("cluster_known_nodes:{masters}"))
                },
                "every node to see the whole cluster",
            );
        }
        cluster
    }

    /// The ports of the masters.
    pub fn ports(&self) -> Vec<u16> {
        self.nodes.iter().map(|n| n.port).collect()
    }
}

/// Polls `ready` for up to 30 s.
fn wait(mut ready: impl FnMut() -> bool, what: &str) {
    let give_up = Instant::now() + Duration::from_secs(30);
    while !ready() {
        assert!(Instant::now() < give_up, "gave up waiting 30 s for {what}");
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
