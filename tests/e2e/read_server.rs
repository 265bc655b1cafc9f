//! `--read-server HOST:PORT` (memtier 2.5): against a real master and a real
//! replica of it (`--replicaof`), writes go to `--server`/`--port` and reads
//! to the read endpoint, checked with each server's own `INFO commandstats`;
//! the report names the endpoint and counts its reads; the replica is sent
//! no `READONLY` (a standalone replica would refuse it); and a malformed
//! endpoint or a combination kvbench cannot honour exits 2 before any
//! connection opens.

use std::time::Duration;

use crate::common::cluster::kvbench::{node, node_count};
use crate::common::cluster::wait_for;
use crate::common::{Redis, info, info_u64, kvbench_json, refused_before_connecting, total, u};

/// A master and a replica of it whose link is up.
fn master_and_replica() -> (Redis, Redis) {
    let master = Redis::start();
    let port = master.port.to_string();
    let replica = Redis::start_with(&["--replicaof", "127.0.0.1", &port]);
    // A full sync of an empty master takes well under a second; the bound
    // is for a loaded machine.
    wait_for(
        Duration::from_secs(60),
        || info(replica.port, "replication", "master_link_status") == "up",
        "the replica's link to its master",
    );
    (master, replica)
}

#[test]
fn reads_go_to_the_read_server_and_writes_to_the_server() {
    let (master, replica) = master_and_replica();
    master.reset_stats();
    replica.reset_stats();
    let args = format!(
        "--read-server 127.0.0.1:{} --ratio 1:1 -n 2000 -t 1 -c 2 --key-maximum 1000",
        replica.port
    );
    let report = kvbench_json(master.port, &args, &[]);
    let doc = &report.doc;
    let (sets, gets) = (total(doc, "SET", "count"), total(doc, "GET", "count"));
    // 2 clients × 2000 requests, half of each SET and half GET.
    assert_eq!(sets + gets, 4_000, "{doc}");
    assert_eq!((sets, gets), (2_000, 2_000));

    // The servers' own counts: every GET on the replica, none on the master;
    // every SET on the master (the replica's SETs came by replication).
    assert_eq!(replica.calls("get"), gets);
    assert_eq!(master.calls("get"), 0);
    assert_eq!(master.calls("set"), sets);
    assert_eq!(
        replica.calls("readonly"),
        0,
        "a standalone replica needs no READONLY"
    );
    // The master's SETs reached the replica: its replication offset moved.
    assert!(info_u64(replica.port, "replication", "slave_repl_offset") > 0);

    // The report: the endpoint in the settings, each node's role and count.
    let config = &doc["kvbench"]["config"];
    assert_eq!(config["read_server"], format!("127.0.0.1:{}", replica.port));
    assert_eq!(config["read_from"], "replica");
    assert_eq!(config["cluster_mode"], false);
    let read = node(doc, replica.port);
    assert_eq!(read["role"], "replica", "{read}");
    assert_eq!(node_count(read, "count"), gets, "{read}");
    assert_eq!(node_count(read, "replica_reads"), gets, "{read}");
    assert_eq!(u(&read["server_calls"]["get"]), gets, "{read}");
    let write = node(doc, master.port);
    assert_eq!(write["role"], "master", "{write}");
    assert_eq!(node_count(write, "count"), sets, "{write}");
    assert_eq!(node_count(write, "replica_reads"), 0, "{write}");
    // The text names the endpoint above the per-node rows.
    let title = format!(
        "Nodes (writes to --server, reads to --read-server 127.0.0.1:{})",
        replica.port
    );
    assert!(report.stdout.contains(&title), "{}", report.stdout);
}

#[test]
fn secondary_means_the_same_any_spreads_reads_and_a_transaction_stays_on_the_server() {
    let (master, replica) = master_and_replica();
    master.reset_stats();
    replica.reset_stats();
    let read_server = format!("--read-server 127.0.0.1:{}", replica.port);
    let args = format!("{read_server} --read-preference secondary --ratio 0:1 -n 500 -t 1 -c 2");
    let doc = kvbench_json(master.port, &args, &[]).doc;
    assert_eq!(total(&doc, "GET", "count"), 1_000);
    assert_eq!((replica.calls("get"), master.calls("get")), (1_000, 0));

    // any: client 0 reads from the master, client 1 from the endpoint.
    master.reset_stats();
    replica.reset_stats();
    let args = format!("{read_server} --read-from any --ratio 0:1 -n 500 -t 1 -c 2");
    let doc = kvbench_json(master.port, &args, &[]).doc;
    assert_eq!(total(&doc, "GET", "count"), 1_000);
    assert_eq!((replica.calls("get"), master.calls("get")), (500, 500));

    // A --transaction rotation holds a write: all of it, its GET included,
    // goes to the write server.
    master.reset_stats();
    replica.reset_stats();
    let out = crate::common::kvbench_at(master.port)
        .args(["--read-server", &format!("127.0.0.1:{}", replica.port)])
        .args([
            "--command",
            "SET __key__ __data__",
            "--command",
            "GET __key__",
        ])
        .args(["--transaction", "-n", "40", "-t", "1", "-c", "2"])
        .output()
        .unwrap();
    crate::common::assert_success(&out, "--transaction with --read-server");
    // 2 clients × 40 requests of 4 (MULTI, SET, GET, EXEC): 10 rotations each.
    assert_eq!(master.calls("multi"), 20);
    assert_eq!(master.calls("exec"), 20);
    assert_eq!((master.calls("get"), replica.calls("get")), (20, 0));
}

#[test]
fn a_read_server_kvbench_cannot_use_exits_2_before_connecting() {
    let redis = Redis::start();
    for (args, flag, says) in [
        (
            "--read-server 127.0.0.1",
            "--read-server",
            "is not HOST:PORT",
        ),
        (
            "--read-server 127.0.0.1:0",
            "--read-server",
            "is not HOST:PORT",
        ),
        ("--read-server ::1:6380", "--read-server", "in brackets"),
        (
            "--read-server 127.0.0.1:6380 --cluster-mode",
            "--read-server",
            "drop --cluster-mode",
        ),
        (
            "--read-server 127.0.0.1:6380 -P memcache_text",
            "--read-server",
            "-P memcache_text",
        ),
        (
            "--read-server 127.0.0.1:6380 --read-preference primary",
            "--read-preference",
            "leaving --read-server unused",
        ),
        (
            "--read-server 127.0.0.1:6380 --read-from primary",
            "--read-from",
            "leaving --read-server unused",
        ),
        (
            "--read-server 127.0.0.1:6380 --read-server 127.0.0.1:6381",
            "--read-server",
            "give one read endpoint",
        ),
    ] {
        let stderr = refused_before_connecting(&redis, args.split_whitespace());
        assert!(stderr.contains(flag), "{args}: {stderr}");
        assert!(stderr.contains(says), "{args}: {stderr}");
    }
}

#[test]
fn an_unreachable_read_server_is_named_with_its_flag() {
    let redis = Redis::start();
    let closed = crate::common::ports::free_port();
    let out = crate::common::kvbench_at(redis.port)
        .args(["--read-server", &format!("127.0.0.1:{closed}"), "-n", "10"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot reach the read server 127.0.0.1:{closed}")),
        "{stderr}"
    );
    assert!(stderr.contains("--read-server"), "{stderr}");
    // Nothing was written: the run never started.
    assert_eq!(redis.calls("set"), 0);
}
