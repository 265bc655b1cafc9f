//! The router: slots to masters, MOVED, replicas for `--read-from`, refreshes.

use std::sync::Arc;

use crossbeam_channel::bounded;

use crate::config::{ClusterOptions, ReadFrom};
use crate::engine::cluster::map::{Node, SlotMap};
use crate::engine::cluster::topology::{RefreshHandle, Topology, WorkerCluster};
use crate::engine::worker::client::Router;
use crate::protocol::value::Value;

fn node(port: i64) -> Value {
    Value::Array(vec![
        Value::Bulk(b"127.0.0.1".to_vec()),
        Value::Integer(port),
    ])
}

fn three_masters() -> Topology {
    let reply = Value::Array(vec![
        Value::Array(vec![Value::Integer(0), Value::Integer(5460), node(7000)]),
        Value::Array(vec![
            Value::Integer(5461),
            Value::Integer(10922),
            node(7001),
        ]),
        Value::Array(vec![
            Value::Integer(10923),
            Value::Integer(16383),
            node(7002),
        ]),
    ]);
    let map = SlotMap::from_cluster_slots(&reply, "127.0.0.1").unwrap();
    let mut topology = Topology::masters(map);
    topology.replicas[0].push(Node {
        host: "127.0.0.1".into(),
        port: 7100,
        id: None,
    });
    topology
}

fn router(
    read_from: ReadFrom,
) -> (
    Router,
    crossbeam_channel::Receiver<()>,
    crossbeam_channel::Sender<Arc<Topology>>,
) {
    let (ask_tx, ask_rx) = bounded(1);
    let (up_tx, up_rx) = bounded(4);
    let cluster = WorkerCluster {
        topology: Arc::new(three_masters()),
        refresh: Some(RefreshHandle::new(ask_tx, up_rx)),
        latency: Arc::default(),
    };
    let options = ClusterOptions {
        read_from,
        ..ClusterOptions::default()
    };
    (
        Router::cluster(cluster, options, b"memtier-"),
        ask_rx,
        up_tx,
    )
}

#[test]
fn slots_go_to_their_masters_and_moved_changes_one_slot() {
    let (mut r, _asks, _ups) = router(ReadFrom::Primary);
    assert_eq!(r.masters(), vec![0, 1, 2]);
    assert_eq!(r.route(Some(0), false, 0), 0);
    assert_eq!(r.route(Some(5461), false, 0), 1);
    assert_eq!(r.route(Some(16383), true, 0), 2);
    assert_eq!(r.moved(100, "127.0.0.1:7002", Some(0)), 2);
    assert_eq!(r.route(Some(100), false, 0), 2);
    assert_eq!(r.route(Some(101), false, 0), 0);
    // A node named with an empty host is on the host of the node that named it.
    let new = r.moved(7, ":7003", Some(1));
    assert_eq!(r.nodes()[new].address(), "127.0.0.1:7003");
}

#[test]
fn replica_reads_follow_read_from() {
    let (primary, _, _) = router(ReadFrom::Primary);
    assert_eq!(primary.route(Some(0), true, 1), 0);
    let (replica, _, _) = router(ReadFrom::Replica);
    let r = replica.route(Some(0), true, 0);
    assert_eq!(replica.nodes()[r].port, 7100);
    assert!(replica.is_replica(r));
    // Writes stay on the master; a master without replicas serves its reads.
    assert_eq!(replica.route(Some(0), false, 0), 0);
    assert_eq!(replica.route(Some(6000), true, 0), 1);
    let (any, _, _) = router(ReadFrom::Any);
    assert_eq!(any.route(Some(0), true, 0), 0);
    assert_eq!(any.nodes()[any.route(Some(0), true, 1)].port, 7100);
}

#[test]
fn refresh_asks_coalesce_and_a_new_topology_is_applied() {
    let (mut r, asks, ups) = router(ReadFrom::Primary);
    assert!(r.ask_refresh());
    assert!(
        !r.ask_refresh(),
        "a second ask before the refresh runs coalesces"
    );
    asks.recv().unwrap();
    assert!(r.ask_refresh());
    assert!(!r.take_updates());
    let mut moved = three_masters();
    moved.map.moved(
        0,
        Node {
            host: "127.0.0.1".into(),
            port: 7001,
            id: None,
        },
    );
    ups.send(Arc::new(moved)).unwrap();
    assert!(r.take_updates());
    assert_eq!(r.route(Some(0), false, 0), 1);
    assert!(!Router::single(b"memtier-").is_cluster());
}

#[test]
fn a_read_server_sends_writes_to_the_server_and_reads_to_the_endpoint_without_readonly() {
    let at = |port| Node {
        host: "127.0.0.1".into(),
        port,
        id: None,
    };
    let routed = |read_from| {
        let cluster = WorkerCluster {
            topology: Arc::new(Topology::read_endpoint(at(6379), at(6380))),
            refresh: None,
            latency: Arc::default(),
        };
        let options = ClusterOptions {
            read_from,
            ..ClusterOptions::default()
        };
        Router::cluster(cluster, options, b"memtier-")
    };
    let r = routed(ReadFrom::Replica);
    assert!(r.is_routed() && !r.is_cluster());
    // Each client connects to both before the run.
    assert_eq!(r.first_nodes(), vec![0, 1]);
    assert_eq!(r.nodes()[1].address(), "127.0.0.1:6380");
    for slot in [Some(0), Some(16383), Some(r.numbered_slot(42)), None] {
        assert_eq!(r.route(slot, false, 3), 0, "{slot:?}");
    }
    for spread in 0..4 {
        assert_eq!(r.route(Some(r.numbered_slot(7)), true, spread), 1);
    }
    assert!(r.is_replica(1) && !r.needs_readonly(1));
    // Nothing refreshes a fixed topology.
    assert!(!r.ask_refresh());
    // any: by client, the master or the endpoint.
    let any = routed(ReadFrom::Any);
    assert_eq!(
        (any.route(Some(5), true, 0), any.route(Some(5), true, 1)),
        (0, 1)
    );
    // A cluster replica does need READONLY.
    let (cluster, _, _) = router(ReadFrom::Replica);
    let replica = cluster.route(Some(0), true, 0);
    assert!(cluster.is_routed() && cluster.needs_readonly(replica));
    assert_eq!(cluster.first_nodes(), cluster.masters());
}
