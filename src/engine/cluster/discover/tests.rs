//! Reading `CLUSTER SHARDS` (both its RESP2 and RESP3 shapes) and
//! `CLUSTER SLOTS` replies into a topology, from values built by hand after
//! what Redis 7.0 sends.

use super::{fields, from_shards, from_slots, unknown_subcommand};
use crate::error::MapError;
use crate::protocol::value::Value;

fn bulk(s: &str) -> Value {
    Value::Bulk(s.as_bytes().to_vec())
}

/// A map in the shape of `resp3`: a `%` map, or RESP2's flat array.
fn map(resp3: bool, pairs: Vec<(&str, Value)>) -> Value {
    if resp3 {
        Value::Map(pairs.into_iter().map(|(k, v)| (bulk(k), v)).collect())
    } else {
        Value::Array(pairs.into_iter().flat_map(|(k, v)| [bulk(k), v]).collect())
    }
}

fn node(resp3: bool, id: &str, endpoint: &str, port: i64, role: &str, health: &str) -> Value {
    map(
        resp3,
        vec![
            ("id", bulk(id)),
            ("port", Value::Integer(port)),
            ("ip", bulk("10.0.0.1")),
            ("endpoint", bulk(endpoint)),
            ("role", bulk(role)),
            ("replication-offset", Value::Integer(0)),
            ("health", bulk(health)),
        ],
    )
}

fn shard(resp3: bool, slots: &[i64], nodes: Vec<Value>) -> Value {
    map(
        resp3,
        vec![
            (
                "slots",
                Value::Array(slots.iter().map(|&s| Value::Integer(s)).collect()),
            ),
            ("nodes", Value::Array(nodes)),
        ],
    )
}

/// Three shards: the first with two slot ranges and a replica, the second
/// with a failed replica, the third announced with an unknown endpoint.
fn three_shards(resp3: bool) -> Value {
    Value::Array(vec![
        shard(
            resp3,
            &[0, 5000, 5001, 5460],
            vec![
                node(resp3, "a", "127.0.0.1", 7000, "master", "online"),
                node(resp3, "a1", "127.0.0.1", 7003, "replica", "loading"),
            ],
        ),
        shard(
            resp3,
            &[10923, 16383],
            vec![
                node(resp3, "c1", "127.0.0.1", 7005, "replica", "fail"),
                node(resp3, "c", "?", 7002, "master", "online"),
            ],
        ),
        shard(
            resp3,
            &[5461, 10922],
            vec![node(resp3, "b", "", 7001, "master", "online")],
        ),
    ])
}

#[test]
fn shards_in_both_shapes_give_the_same_masters_slots_and_replicas() {
    for resp3 in [false, true] {
        let t = from_shards(&three_shards(resp3), "seed", false).unwrap();
        let addresses: Vec<String> = t.map.nodes.iter().map(|n| n.address()).collect();
        // A "?" or empty endpoint is the seed's host, as in CLUSTER SLOTS.
        assert_eq!(
            addresses,
            ["127.0.0.1:7000", "seed:7002", "seed:7001"],
            "resp3 {resp3}"
        );
        assert_eq!(t.map.slots_per_node(), vec![5461, 5461, 5462]);
        assert_eq!(t.map.owner(5001), 0);
        assert_eq!(t.map.owner(5461), 2);
        assert_eq!(t.map.nodes[0].id.as_deref(), Some("a"));
        assert_eq!(t.replicas.len(), 3);
        assert_eq!(t.replicas[0].len(), 1);
        assert_eq!(t.replicas[0][0].port, 7003);
        // The failed replica is left out.
        assert!(t.replicas[1].is_empty());
        assert_eq!(t.all_nodes().len(), 4);
    }
}

#[test]
fn a_node_without_an_endpoint_is_reached_at_its_ip_and_tls_picks_its_port() {
    let bare = map(
        false,
        vec![
            ("id", bulk("x")),
            ("port", Value::Integer(7000)),
            ("tls-port", Value::Integer(8000)),
            ("ip", bulk("10.1.1.1")),
            ("role", bulk("master")),
        ],
    );
    let reply = Value::Array(vec![shard(false, &[0, 16383], vec![bare])]);
    let plain = from_shards(&reply, "seed.example", false).unwrap();
    assert_eq!(plain.map.nodes[0].address(), "10.1.1.1:7000");
    let tls = from_shards(&reply, "seed.example", true).unwrap();
    assert_eq!(tls.map.nodes[0].port, 8000);
}

#[test]
fn a_shard_without_slots_or_master_leaves_its_ranges_unassigned() {
    for resp3 in [false, true] {
        let reply = Value::Array(vec![
            shard(
                resp3,
                &[5461, 10922],
                vec![node(resp3, "b", "h", 7001, "master", "online")],
            ),
            shard(
                resp3,
                &[0, 5460],
                vec![node(resp3, "a1", "h", 7003, "replica", "online")],
            ),
            shard(
                resp3,
                &[],
                vec![node(resp3, "c", "h", 7002, "master", "online")],
            ),
        ]);
        let Err(MapError::Unassigned { ranges, .. }) = from_shards(&reply, "h", false) else {
            panic!("holes must be an error");
        };
        assert_eq!(ranges, vec![(0, 5460), (10923, 16383)]);
    }
}

#[test]
fn malformed_shards_are_shape_errors() {
    let odd_slots = Value::Array(vec![shard(false, &[0], vec![])]);
    let not_a_map = Value::Array(vec![Value::Array(vec![bulk("slots")])]);
    let no_port = Value::Array(vec![shard(
        false,
        &[0, 16383],
        vec![map(false, vec![("role", bulk("master"))])],
    )]);
    for bad in [Value::Nil, odd_slots, not_a_map, no_port] {
        assert!(
            matches!(from_shards(&bad, "h", false), Err(MapError::Shape(_))),
            "{bad:?}"
        );
    }
}

fn slot_node(host: &str, port: i64, id: &str) -> Value {
    Value::Array(vec![bulk(host), Value::Integer(port), bulk(id)])
}

#[test]
fn cluster_slots_gives_replicas_by_position() {
    let reply = Value::Array(vec![
        Value::Array(vec![
            Value::Integer(0),
            Value::Integer(8191),
            slot_node("127.0.0.1", 7000, "a"),
            slot_node("127.0.0.1", 7002, "a1"),
        ]),
        Value::Array(vec![
            Value::Integer(8192),
            Value::Integer(16383),
            slot_node("", 7001, "b"),
        ]),
    ]);
    let t = from_slots(&reply, "seed").unwrap();
    assert_eq!(t.map.nodes.len(), 2);
    assert_eq!(t.map.nodes[1].host, "seed");
    assert_eq!(t.replicas[0].len(), 1);
    assert_eq!(t.replicas[0][0].port, 7002);
    assert!(t.replicas[1].is_empty());
}

#[test]
fn helpers_read_maps_and_old_servers_unknown_subcommand() {
    assert!(fields(&Value::Array(vec![bulk("k")])).is_none());
    assert_eq!(
        fields(&map(true, vec![("k", Value::Nil)])).unwrap().len(),
        1
    );
    assert!(unknown_subcommand(
        "ERR Unknown subcommand or wrong number of arguments for 'SHARDS'. Try CLUSTER HELP."
    ));
    assert!(unknown_subcommand(
        "ERR unknown subcommand 'SHARDS'. Try CLUSTER HELP."
    ));
    assert!(!unknown_subcommand(
        "ERR This instance has cluster support disabled"
    ));
}
