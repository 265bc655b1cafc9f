//! The cluster's pure parts against a real 3-master Redis Cluster on
//! loopback: kvbench's key slots equal `CLUSTER KEYSLOT` (hash tags
//! included), the slot map read from `CLUSTER SLOTS` names the node that
//! accepts each key, and every other node's `-MOVED` parses to that node.

use crate::common::cluster::Cluster;
use crate::common::pipeline;
use kvbench::engine::cluster::map::SlotMap;
use kvbench::engine::cluster::redirect::{self, RedirectKind};
use kvbench::engine::cluster::slot::{NumberedSlots, key_slot};
use kvbench::protocol::value::{self, Value};

/// `CLUSTER SLOTS` as kvbench's owned value.
fn cluster_slots(port: u16) -> Value {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    s.write_all(b"*2\r\n$7\r\nCLUSTER\r\n$5\r\nSLOTS\r\n")
        .unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0; 65536];
    loop {
        if let Some((v, _)) = value::parse(&buf).unwrap() {
            return v;
        }
        let n = s.read(&mut chunk).unwrap();
        assert!(n > 0);
        buf.extend_from_slice(&chunk[..n]);
    }
}

#[test]
fn slots_map_and_redirects_agree_with_a_real_cluster() {
    let cluster = Cluster::start(3);
    let ports = cluster.ports();
    let map = SlotMap::from_cluster_slots(&cluster_slots(ports[0]), "127.0.0.1").unwrap();
    assert_eq!(map.nodes.len(), 3);
    let mut served: Vec<u16> = map.nodes.iter().map(|n| n.port).collect();
    served.sort_unstable();
    let mut expected = ports.clone();
    expected.sort_unstable();
    assert_eq!(served, expected);
    assert_eq!(map.slots_per_node().iter().sum::<usize>(), 16_384);

    let keys: Vec<String> = (0..200)
        .map(|n| format!("memtier-{n}"))
        .chain(
            [
                "{user1000}.following",
                "{user1000}.followers",
                "foo{}{bar}",
                "a{b}c",
                "{",
            ]
            .map(String::from),
        )
        .collect();
    // CLUSTER KEYSLOT for every key in one round trip.
    let commands: Vec<Vec<&str>> = keys
        .iter()
        .map(|k| vec!["CLUSTER", "KEYSLOT", k.as_str()])
        .collect();
    let slots = pipeline(ports[0], &commands);
    for (key, reply) in keys.iter().zip(&slots) {
        let theirs = reply.integer().unwrap() as u16;
        assert_eq!(key_slot(key.as_bytes()), theirs, "{key}");
    }
    for n in 0..200u64 {
        let key = format!("memtier-{n}");
        assert_eq!(
            NumberedSlots::new(b"memtier-").slot(n),
            key_slot(key.as_bytes())
        );
    }

    // The owner accepts each key; every other node redirects to the owner.
    let mut moved = 0;
    for key in keys.iter().take(60) {
        let slot = key_slot(key.as_bytes());
        let owner = &map.nodes[map.owner(slot)];
        for &port in &ports {
            let reply = pipeline(port, &[["SET", key.as_str(), "v"]]).remove(0);
            if port == owner.port {
                assert_eq!(
                    reply.text().as_deref(),
                    Some("OK"),
                    "{key} on its owner {port}"
                );
                continue;
            }
            let Value::Error(message) = &reply else {
                panic!("{key} on {port} (not its owner) answered {reply:?}");
            };
            let r = redirect::parse(message.as_bytes()).unwrap_or_else(|| panic!("{message}"));
            assert_eq!(r.kind, RedirectKind::Moved);
            assert_eq!(r.slot, slot);
            assert_eq!(r.node, owner.address(), "{message}");
            moved += 1;
        }
    }
    assert_eq!(moved, 60 * 2);
}
