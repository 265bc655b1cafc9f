//! Server-side latency in `--cluster-mode`, against real clusters on
//! loopback: each node's `LATENCY HISTOGRAM` is differenced around each
//! run and summed over the masters, so every op's `server_calls` is the
//! masters' own `INFO commandstats` calls and kvbench's count, and the
//! server's p99 is at most kvbench's. With replicas serving the reads
//! (`--read-from replica`) the replicas' reads are added and their
//! replicated writes are not.

use serde_json::Value;

use crate::common::cluster::Cluster;
use crate::common::cluster::kvbench::kvbench_cluster;
use crate::common::{total, u};
use crate::server_latency::assert_server_within_client;

/// `server_calls` of `op` summed over every measured run.
fn server_calls(doc: &Value, op: &str) -> u64 {
    doc["kvbench"]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| u(&r["server_latency"]["ops"][op]["server_calls"]))
        .sum()
}

#[test]
fn cluster_server_latency_sums_the_masters_histograms() {
    let cluster = Cluster::start(3);
    cluster.reset_stats();
    let report = kvbench_cluster(
        &cluster,
        "-t 2 -c 4 -n 1500 -x 2 --ratio 1:1 --key-minimum 1 --key-maximum 10000",
        &[],
    );
    let doc = &report.doc;
    // Each run: available, every op's calls kvbench's count for it, and
    // the server's p50 and p99 at most kvbench's.
    assert_server_within_client(doc);
    for (op, command) in [("SET", "set"), ("GET", "get")] {
        // Two runs of 8 clients × 1 500 requests, SET and GET alternating.
        assert_eq!(total(doc, op, "count"), 12_000, "{op}");
        // The independent witness: what the masters themselves counted,
        // every run together (nothing else sent them SET or GET).
        let masters = cluster.calls_by_master(command);
        let witness: u64 = masters.iter().map(|m| m.1).sum();
        assert_eq!(server_calls(doc, op), witness, "{op}: {masters:?}");
        // Every master served some of them: the sum is over all three.
        assert!(masters.iter().all(|m| m.1 > 0), "{op}: {masters:?}");
    }
    assert!(
        report
            .stdout
            .contains("Server-side latency, usec: the server's from LATENCY HISTOGRAM"),
        "{}",
        report.stdout
    );
    assert!(report.stdout.contains("RUN #2  GET"), "{}", report.stdout);
}

#[test]
fn cluster_server_latency_adds_replica_reads_but_not_replicated_writes() {
    let cluster = Cluster::start_with_replicas(3, 1);
    cluster.reset_stats();
    let report = kvbench_cluster(
        &cluster,
        "-t 2 -c 4 -n 1000 --ratio 1:1 --key-minimum 1 --key-maximum 5000 --read-from replica",
        &[],
    );
    let doc = &report.doc;
    assert_server_within_client(doc);
    let replicas = cluster.replicas();
    let replica_gets: u64 = replicas.iter().map(|&p| cluster.calls(p, "get")).sum();
    // Every GET was a replica's; every SET a master's, which each replica
    // ran once more by replication (the sum over all nodes counts it twice).
    assert_eq!(total(doc, "GET", "count"), 4_000);
    assert_eq!(replica_gets, 4_000);
    assert_eq!(server_calls(doc, "GET"), replica_gets);
    let master_sets = cluster.sum_calls("set");
    assert_eq!(master_sets, 4_000);
    assert_eq!(server_calls(doc, "SET"), master_sets);
    assert!(
        cluster.sum_calls_all("set") > master_sets,
        "the replicas ran the replicated SETs"
    );
}

#[test]
fn each_node_is_sampled_second_by_second_as_its_own_server() {
    let cluster = Cluster::start(3);
    cluster.reset_stats();
    let report = kvbench_cluster(
        &cluster,
        "-t 1 -c 4 --test-time 3 --ratio 1:1 --key-minimum 1 --key-maximum 10000",
        &[],
    );
    let run = &report.doc["kvbench"]["runs"][0];
    let servers = run["server_use"].as_array().unwrap();
    // One series per master, each against its own address.
    let mut targets: Vec<String> = servers
        .iter()
        .map(|s| s["target"].as_str().unwrap().to_string())
        .collect();
    targets.sort();
    let mut expected: Vec<String> = cluster
        .masters()
        .iter()
        .map(|p| format!("127.0.0.1:{p}"))
        .collect();
    expected.sort();
    assert_eq!(targets, expected, "{}", run["server_use"]);
    let mut gets = 0;
    for server in servers {
        let seconds = server["per_second"].as_array().unwrap();
        // A 3 s run has at least two whole seconds, at most three.
        assert!((2..=3).contains(&seconds.len()), "{server}");
        for second in seconds {
            assert!(second["cpu_percent"].as_f64().unwrap() >= 0.0, "{second}");
            assert!(second["ops_per_sec"].as_f64().unwrap() > 0.0, "{second}");
            gets += u(&second["latency"]["GET"]["calls"]);
        }
    }
    // The seconds' GETs are some of the run's, spread over every master.
    let run_gets = u(&run["totals"]["GET"]["count"]);
    assert!(gets > 0 && gets <= run_gets, "{gets} of {run_gets}");
}
