//! `--read-from`: against a real 3-master + 3-replica cluster, reads go where
//! the flag says — to replicas (after `READONLY`) with `replica`, spread over
//! master and replica with `any`, never to a replica with `primary` — while
//! writes stay on the masters; kvbench's counts per node equal each node's
//! own `INFO commandstats`.

use crate::common::cluster::Cluster;
use crate::common::cluster::kvbench::{kvbench_cluster, node, node_count};
use crate::common::total;

/// Runs a 1:1 SET/GET workload with `--read-from mode` and returns the
/// report with the cluster's stats reset just before.
fn run(cluster: &Cluster, mode: &str) -> serde_json::Value {
    cluster.reset_stats();
    let args = format!(
        "-t 2 -c 4 -n 1000 --ratio 1:1 --key-minimum 1 --key-maximum 5000 --read-from {mode}"
    );
    kvbench_cluster(cluster, &args, &[]).doc
}

#[test]
fn read_from_sends_reads_where_it_says_and_writes_to_the_masters() {
    let cluster = Cluster::start_with_replicas(3, 1);
    let (masters, replicas) = (cluster.masters(), cluster.replicas());

    // replica: every GET on a replica, every SET on a master.
    let doc = run(&cluster, "replica");
    assert_eq!(total(&doc, "GET", "count"), 4_000);
    let replica_gets: u64 = replicas.iter().map(|&p| cluster.calls(p, "get")).sum();
    let master_gets: u64 = masters.iter().map(|&p| cluster.calls(p, "get")).sum();
    assert_eq!((replica_gets, master_gets), (4_000, 0));
    assert_eq!(cluster.sum_calls("set"), 4_000);
    for &port in &replicas {
        let gets = cluster.calls(port, "get");
        // Uniform keys: about a third of the reads each.
        assert!((800..=2_200).contains(&gets), "replica {port}: {gets} GETs");
        let mine = node(&doc, port);
        assert_eq!(node_count(mine, "count"), gets, "{mine}");
        assert_eq!(node_count(mine, "replica_reads"), gets, "{mine}");
        assert_eq!(mine["role"], "replica", "{mine}");
        // One READONLY per connection: one per client (8) at most.
        let readonly = cluster.calls(port, "readonly");
        assert!(
            (1..=8).contains(&readonly),
            "replica {port}: {readonly} READONLY"
        );
    }

    // any: reads on both masters and replicas.
    let doc = run(&cluster, "any");
    let replica_gets: u64 = replicas.iter().map(|&p| cluster.calls(p, "get")).sum();
    let master_gets: u64 = masters.iter().map(|&p| cluster.calls(p, "get")).sum();
    assert_eq!(replica_gets + master_gets, total(&doc, "GET", "count"));
    assert!(
        (1_000..=3_000).contains(&replica_gets),
        "{replica_gets} of 4000 GETs on replicas with --read-from any"
    );

    // primary (the default): no read on a replica.
    let doc = run(&cluster, "primary");
    let replica_gets: u64 = replicas.iter().map(|&p| cluster.calls(p, "get")).sum();
    assert_eq!(replica_gets, 0);
    assert_eq!(cluster.sum_calls("get"), total(&doc, "GET", "count"));
}
