//! Summing nodes' INFO into the cluster's, and which nodes the sum covers.

use std::time::SystemTime;

use super::{counted, role_of, sum_evidence, sum_infos};
use crate::engine::master::results::{NodeEvidence, NodeRole};
use crate::engine::master::server::{Info, PhaseEvidence};

fn info(run_id: &str, role: &str, set_calls: u64, get_calls: u64, hits: u64, cpu: f64) -> Info {
    let text = format!(
        "# Server\r\nredis_version:7.0.15\r\nrun_id:{run_id}\r\ntcp_port:7000\r\nprocess_id:{set_calls}\r\n\
         # Stats\r\nkeyspace_hits:{hits}\r\ntotal_commands_processed:{}\r\n\
         # Replication\r\nrole:{role}\r\nconnected_slaves:1\r\n\
         # CPU\r\nused_cpu_user:{cpu}\r\nused_cpu_sys:0.5\r\n\
         # Commandstats\r\ncmdstat_set:calls={set_calls},usec={},usec_per_call=2.00,rejected_calls=1,failed_calls=0\r\n\
         cmdstat_get:calls={get_calls},usec={get_calls},usec_per_call=1.00,rejected_calls=0,failed_calls=0\r\n\
         # Keyspace\r\ndb0:keys={set_calls},expires=0,avg_ttl=7\r\n",
        set_calls + get_calls,
        set_calls * 2,
    );
    Info::parse(&text, SystemTime::UNIX_EPOCH)
}

#[test]
fn numbers_add_up_and_what_describes_one_process_comes_from_the_first() {
    let a = info("a", "master", 10, 100, 50, 1.25);
    let b = info("b", "master", 30, 300, 70, 2.5);
    let sum = sum_infos(&[&a, &b]).unwrap();
    assert_eq!(sum.calls("set"), 40);
    assert_eq!(sum.calls("get"), 400);
    assert_eq!(sum.rejected_calls("set"), 2);
    assert_eq!(sum.u64("keyspace_hits"), Some(120));
    assert_eq!(sum.u64("total_commands_processed"), Some(440));
    assert_eq!(sum.keys(0), 40);
    assert_eq!(sum.f64("used_cpu_user"), Some(3.75));
    assert_eq!(sum.get("run_id"), Some("a"));
    assert_eq!(sum.u64("tcp_port"), Some(7000));
    assert_eq!(sum.u64("process_id"), Some(10));
    assert_eq!(sum.u64("connected_slaves"), Some(1));
    assert!(
        sum.get("db0").unwrap().ends_with("avg_ttl=7"),
        "{:?}",
        sum.get("db0")
    );
    assert!(
        sum.get("cmdstat_set")
            .unwrap()
            .contains("usec=80,usec_per_call=2.00"),
        "{:?}",
        sum.get("cmdstat_set")
    );
    assert!(sum_infos(&[]).is_none());
    assert_eq!(sum_infos(&[&a]).unwrap(), a);
}

#[test]
fn a_command_only_one_node_saw_is_kept() {
    let a = info("a", "master", 1, 1, 0, 0.0);
    let b = Info::parse(
        "# Commandstats\r\ncmdstat_hset:calls=5,usec=5,usec_per_call=1.00\r\n",
        SystemTime::UNIX_EPOCH,
    );
    let sum = sum_infos(&[&a, &b]).unwrap();
    assert_eq!(sum.calls("hset"), 5);
    assert_eq!(sum.calls("set"), 1);
}

fn node(address: &str, before: Info, after: Info) -> NodeEvidence {
    NodeEvidence {
        address: address.into(),
        role_before: role_of(&before).unwrap(),
        role_after: role_of(&after).unwrap(),
        evidence: PhaseEvidence {
            before,
            after,
            slowlog: None,
        },
    }
}

#[test]
fn the_sum_covers_masters_only_and_a_restarted_node_counts_from_zero() {
    let nodes = vec![
        node(
            "m1",
            info("a", "master", 10, 10, 0, 0.0),
            info("a", "master", 110, 60, 0, 0.0),
        ),
        // Restarted: its 5 SET calls after are all of this phase.
        node(
            "m2",
            info("b", "master", 500, 0, 0, 0.0),
            info("b2", "master", 5, 0, 0, 0.0),
        ),
        // A replica counts the replicated SETs: left out of the sum.
        node(
            "r1",
            info("c", "slave", 10, 0, 0, 0.0),
            info("c", "slave", 110, 0, 0, 0.0),
        ),
    ];
    assert!(!counted(&nodes[2]));
    let sum = sum_evidence(&nodes).unwrap();
    assert_eq!(sum.calls("set"), 105);
    assert_eq!(sum.calls("get"), 50);
    // Every node had one rejected SET before and after: only the restarted
    // master's, counted from zero, falls in the phase.
    assert_eq!(sum.rejected_calls("set"), 1);
    assert_eq!(sum.after.get("run_id"), Some("a"));
    assert!(!sum.restarted());
    assert!(nodes[1].evidence.restarted());
    assert!(sum_evidence(&nodes[2..]).is_none());
}

#[test]
fn a_promoted_replica_is_counted_and_its_role_change_is_seen() {
    let promoted = node(
        "r1",
        info("c", "slave", 0, 0, 0, 0.0),
        info("c", "master", 7, 3, 0, 0.0),
    );
    assert!(counted(&promoted));
    assert_eq!(
        (promoted.role_before, promoted.role_after),
        (NodeRole::Replica, NodeRole::Master)
    );
    assert_eq!(
        role_of(&Info::parse("x:1\r\n", SystemTime::UNIX_EPOCH)),
        None
    );
}

#[test]
fn a_replicas_moved_answers_are_in_the_sum_but_not_its_replicated_writes() {
    let mut after = info("c", "slave", 110, 0, 0, 0.0);
    after.fields.insert(
        "cmdstat_get".into(),
        "calls=0,usec=0,usec_per_call=0.00,rejected_calls=40,failed_calls=0".into(),
    );
    let nodes = vec![
        node(
            "m1",
            info("a", "master", 0, 0, 0, 0.0),
            info("a", "master", 100, 0, 0, 0.0),
        ),
        node("r1", info("c", "slave", 10, 0, 0, 0.0), after),
    ];
    let sum = sum_evidence(&nodes).unwrap();
    assert_eq!(sum.calls("set"), 100);
    assert_eq!(sum.rejected_calls("get"), 40);
    assert_eq!(sum.answered("get"), 40);
}
