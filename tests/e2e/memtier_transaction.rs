//! memtier 2.4's `--transaction` against a real redis-server and a real
//! Redis Cluster: each `--command` rotation is one `MULTI` … `EXEC` on one
//! connection, every `__key__` of it one key. kvbench counts per command, as
//! memtier does, and its counts equal the server's `cmdstat_watch`,
//! `cmdstat_multi`, `cmdstat_exec` and the inner commands' (which the server
//! counts when `EXEC` runs them), and the hits and misses of GETs read from
//! `EXEC`'s array.

use crate::common::cluster::Cluster;
use crate::common::cluster::kvbench::kvbench_cluster;
use crate::common::{Redis, refused_before_connecting, total};

/// The commands of a WATCH/MULTI/GET/SET×2/EXEC rotation, as `cmdstat_` names them.
const ROTATION: [&str; 5] = ["watch", "multi", "get", "set", "exec"];

#[test]
fn a_watch_rotation_is_one_transaction_on_one_key_and_counted_as_the_server_counts() {
    let redis = Redis::start();
    redis.reset_stats();
    // 2 connections × 90 requests = 30 rotations of 6: WATCH, MULTI (added
    // by kvbench), GET, SET, SET, EXEC.
    let doc = crate::common::kvbench_json(
        redis.port,
        "-t 1 -c 2 -n 90 --transaction --key-maximum 999",
        &[
            // The rotation's key is drawn from the first keyed command's
            // pattern: P, each connection its own slice.
            "--command",
            "WATCH __key__",
            "--command-key-pattern",
            "P",
            "--command",
            "GET __key__",
            "--command",
            "SET __key__ __data__",
            "--command-ratio",
            "2",
        ],
    )
    .doc;
    let expected = [
        ("WATCH", 30),
        ("MULTI", 30),
        ("GET", 30),
        ("SET", 60),
        ("EXEC", 30),
    ];
    for (op, n) in expected {
        assert_eq!(total(&doc, op, "count"), n, "{op}");
        assert_eq!(total(&doc, op, "errors"), 0, "{op}");
    }
    for (command, (_, n)) in ROTATION.iter().zip(expected) {
        assert_eq!(redis.calls(command), n, "cmdstat_{command}");
    }
    // One key per rotation: the 60 SETs wrote 30 keys (each connection walks
    // its own slice, so no two rotations share one).
    assert_eq!(redis.dbsize(), 30);
}

#[test]
fn a_bare_rotation_is_wrapped_in_multi_and_exec() {
    let redis = Redis::start();
    redis.reset_stats();
    let doc = crate::common::kvbench_json(
        redis.port,
        "-t 1 -c 1 -n 60 --transaction --key-maximum 10",
        &["--command", "INCR counter", "--command", "INCR __key__"],
    )
    .doc;
    for (op, n) in [("MULTI", 15), ("INCR", 30), ("EXEC", 15)] {
        assert_eq!(total(&doc, op, "count"), n, "{op}");
    }
    assert_eq!(redis.calls("multi"), 15);
    assert_eq!(redis.calls("exec"), 15);
    assert_eq!(redis.calls("incr"), 30);
    assert_eq!(redis.command(&["GET", "counter"]), b"15");
}

#[test]
fn a_transaction_that_cannot_be_whole_is_refused_before_connecting() {
    let redis = Redis::start();
    let stderr = refused_before_connecting(
        &redis,
        ["-n", "10", "--transaction", "--command", "INCR __key__"],
    );
    assert!(
        stderr.contains("--requests") && stderr.contains("multiple of 3"),
        "{stderr}"
    );
    let stderr = refused_before_connecting(&redis, ["-n", "9", "--transaction"]);
    assert!(stderr.contains("--transaction"), "{stderr}");
    let stderr = refused_before_connecting(
        &redis,
        [
            "-n",
            "9",
            "--transaction",
            "--retry-on-error",
            "--command",
            "INCR __key__",
        ],
    );
    assert!(stderr.contains("--retry-on-error"), "{stderr}");
}

#[test]
fn in_a_cluster_each_rotation_runs_on_the_shard_of_its_key() {
    let cluster = Cluster::start(3);
    cluster.reset_stats();
    // No hash tag: the keys spread over the masters, and so must MULTI and
    // EXEC, which carry no key of their own.
    let doc = kvbench_cluster(
        &cluster,
        "-t 1 -c 2 -n 120 --transaction --key-maximum 100000",
        &[
            "--command",
            "WATCH __key__",
            "--command",
            "SET __key__ __data__",
            "--command",
            "GET __key__",
        ],
    )
    .doc;
    // 2 × 120 / 5 = 48 rotations: WATCH, MULTI, SET, GET, EXEC.
    for op in ["WATCH", "MULTI", "SET", "GET", "EXEC"] {
        assert_eq!(total(&doc, op, "count"), 48, "{op}");
        assert_eq!(total(&doc, op, "errors"), 0, "{op}");
    }
    let mut with_transactions = 0;
    for port in cluster.masters() {
        let multi = cluster.calls(port, "multi");
        // On every shard, each MULTI has its EXEC and its own WATCH and SET.
        for command in ["exec", "watch", "set", "get"] {
            assert_eq!(cluster.calls(port, command), multi, "{command} on {port}");
        }
        with_transactions += usize::from(multi > 0);
    }
    assert_eq!(cluster.sum_calls("multi"), 48);
    assert!(
        with_transactions >= 2,
        "every transaction went to one shard"
    );
}

#[test]
fn a_get_inside_a_transaction_counts_its_hit_or_miss_from_execs_array() {
    let redis = Redis::start();
    // Keys 1 to 4 of 1 to 10 exist; the others do not.
    for k in 1..=4 {
        redis.command(&["SET", &format!("memtier-{k}"), "v"]);
    }
    redis.reset_stats();
    // One connection, 10 rotations of MULTI, GET, GET, EXEC: the sequential
    // walk gives the rotations keys 1 to 10, each once, and both GETs of a
    // rotation read its key.
    let report = crate::common::kvbench_json(
        redis.port,
        "-t 1 -c 1 -n 40 --transaction --key-minimum 1 --key-maximum 10",
        &[
            "--command",
            "GET __key__",
            "--command-ratio",
            "2",
            "--command-key-pattern",
            "S",
        ],
    );
    let doc = &report.doc;
    assert_eq!(redis.calls("get"), 20);
    assert_eq!(total(doc, "GET", "count"), 20);
    // Each GET's own reply was +QUEUED; EXEC's array said 8 values, 12 nils.
    assert_eq!(total(doc, "GET", "hits"), 8);
    assert_eq!(total(doc, "GET", "misses"), 12);
    assert_eq!(total(doc, "EXEC", "count"), 10);
    assert!(
        report
            .stdout
            .contains("GET hit rate: 40.00 % (8 hits, 12 misses)"),
        "{}",
        report.stdout
    );
}
