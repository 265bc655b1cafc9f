//! The slot map read from `CLUSTER SLOTS` replies built by hand: splits, holes,
//! overlaps, bad shapes and how each is named.

use super::{MapError, Node, SlotMap};
use crate::protocol::value::Value;

fn node(host: &str, port: i64, id: &str) -> Value {
    Value::Array(vec![
        Value::Bulk(host.as_bytes().to_vec()),
        Value::Integer(port),
        Value::Bulk(id.as_bytes().to_vec()),
    ])
}

fn range(start: i64, end: i64, master: Value) -> Value {
    Value::Array(vec![Value::Integer(start), Value::Integer(end), master])
}

fn three_masters() -> Value {
    Value::Array(vec![
        range(0, 5460, node("127.0.0.1", 7000, "a")),
        range(5461, 10922, node("127.0.0.1", 7001, "b")),
        range(10923, 16383, node("", 7002, "c")),
    ])
}

#[test]
fn three_masters_split_the_slots_and_an_empty_host_is_the_seeds() {
    let map = SlotMap::from_cluster_slots(&three_masters(), "127.0.0.9").unwrap();
    assert_eq!(map.nodes.len(), 3);
    assert_eq!(map.owner(0), 0);
    assert_eq!(map.owner(5461), 1);
    assert_eq!(map.owner(16383), 2);
    assert_eq!(map.nodes[2].host, "127.0.0.9");
    assert_eq!(map.slots_per_node(), vec![5461, 5462, 5461]);
}

#[test]
fn a_moved_slot_changes_owner_and_can_add_a_node() {
    let mut map = SlotMap::from_cluster_slots(&three_masters(), "h").unwrap();
    let new = Node {
        host: "127.0.0.1".into(),
        port: 7003,
        id: None,
    };
    assert_eq!(map.moved(100, new), 3);
    assert_eq!(map.owner(100), 3);
    assert_eq!(map.owner(101), 0);
}

#[test]
fn holes_and_bad_shapes_are_errors_that_say_so() {
    let partial = Value::Array(vec![range(0, 99, node("h", 1, "a"))]);
    assert_eq!(
        SlotMap::from_cluster_slots(&partial, "h"),
        Err(MapError::Unassigned {
            unassigned: 16284,
            first: 100,
            ranges: vec![(100, 16383)]
        })
    );
    let bad = Value::Array(vec![range(5, 1, node("h", 1, "a"))]);
    assert!(matches!(
        SlotMap::from_cluster_slots(&bad, "h"),
        Err(MapError::Shape(_))
    ));
    let beyond = Value::Array(vec![range(0, 16384, node("h", 1, "a"))]);
    assert!(matches!(
        SlotMap::from_cluster_slots(&beyond, "h"),
        Err(MapError::Shape(_))
    ));
    assert!(matches!(
        SlotMap::from_cluster_slots(&Value::Nil, "h"),
        Err(MapError::Shape(_))
    ));
}

#[test]
fn unassigned_ranges_are_named_in_the_message() {
    let two_holes = Value::Array(vec![range(5461, 10922, node("h", 1, "a"))]);
    let e = SlotMap::from_cluster_slots(&two_holes, "h").unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with("slots 0-5460 and 10923-16383 have no master (10922 of 16384"),
        "{text}"
    );
    let one = Value::Array(vec![
        range(0, 6, node("h", 1, "a")),
        range(8, 16383, node("h", 1, "a")),
    ]);
    let text = SlotMap::from_cluster_slots(&one, "h")
        .unwrap_err()
        .to_string();
    assert!(text.starts_with("slot 7 has no master (1 of"), "{text}");
    let many: Vec<(u16, u16)> = (0..10).map(|i| (i * 10, i * 10 + 1)).collect();
    let text = crate::error::describe_ranges(&many);
    assert!(text.contains("70-71 and 2 more ranges"), "{text}");
    assert!(!text.contains("80-81"), "{text}");
}

#[test]
fn two_masters_claiming_the_same_slots_are_refused_naming_both() {
    let overlapping = Value::Array(vec![
        range(0, 5460, node("127.0.0.1", 7000, "a")),
        range(5000, 16383, node("127.0.0.1", 7001, "b")),
    ]);
    let e = SlotMap::from_cluster_slots(&overlapping, "h").unwrap_err();
    assert_eq!(
        e,
        MapError::Overlap {
            slots: (5000, 5460),
            ranges: [(0, 5460), (5000, 16383)],
            nodes: ["127.0.0.1:7000".into(), "127.0.0.1:7001".into()],
        }
    );
    let text = e.to_string();
    assert!(
        text.starts_with("slots 5000-5460 are claimed by two masters: 127.0.0.1:7000 (its range 0-5460) and 127.0.0.1:7001 (its range 5000-16383)"),
        "{text}"
    );
    // One slot inside another's range, the later range listed first.
    let inside = Value::Array(vec![
        range(0, 16383, node("h", 1, "a")),
        range(42, 42, node("h", 2, "b")),
    ]);
    let text = SlotMap::from_cluster_slots(&inside, "h")
        .unwrap_err()
        .to_string();
    assert!(
        text.starts_with(
            "slot 42 is claimed by two masters: h:1 (its range 0-16383) and h:2 (its range 42)"
        ),
        "{text}"
    );
    // The same master listing a range twice disagrees with nobody.
    let repeated = Value::Array(vec![
        range(0, 16383, node("h", 1, "a")),
        range(0, 99, node("h", 1, "a")),
    ]);
    assert!(SlotMap::from_cluster_slots(&repeated, "h").is_ok());
}

#[test]
fn ipv6_addresses_are_bracketed_as_in_moved() {
    let n = Node {
        host: "::1".into(),
        port: 7000,
        id: None,
    };
    assert_eq!(n.address(), "[::1]:7000");
}
