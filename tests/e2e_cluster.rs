//! `--cluster-mode` against real Redis Clusters on loopback, each test with
//! its own: kvbench's SET and GET counts equal the masters' summed
//! `INFO commandstats`, a hash tag keeps every request on one master, a
//! reshard during a run is followed (MOVED/ASK counted, nothing lost) and a
//! failover during a run costs no second of traffic. The first test proves
//! the harness itself: roles flip, slots move, witnesses count.

mod common;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::cluster::{Cluster, Role};
use common::{Report, TempDir, assert_no_faults, assert_success, f, kvbench_at, read_json, total, u};
use kvbench::cluster::slot::key_slot;
use serde_json::Value;

// ---------------------------------------------------------------------------
// Where the cluster's numbers live in the JSON report: one place to fix if
// the key names change.
// ---------------------------------------------------------------------------

/// A row of `ALL STATS` (`Sets`, `Gets`, `Totals`).
fn row<'a>(doc: &'a Value, name: &str) -> &'a Value {
    &doc["ALL STATS"][name]
}

/// memtier's `MOVED/sec` of a row.
fn moved_per_sec(row: &Value) -> f64 {
    f(&row["MOVED/sec"])
}

/// memtier's `ASK/sec` of a row.
fn ask_per_sec(row: &Value) -> f64 {
    f(&row["ASK/sec"])
}

/// `kvbench.cluster.nodes`.
fn nodes(doc: &Value) -> &Vec<Value> {
    doc["kvbench"]["cluster"]["nodes"]
        .as_array()
        .unwrap_or_else(|| panic!("no kvbench.cluster.nodes in {}", doc["kvbench"]["cluster"]))
}

/// The entry of `kvbench.cluster.nodes` for 127.0.0.1:`port`.
fn node(doc: &Value, port: u16) -> &Value {
    let address = format!("127.0.0.1:{port}");
    nodes(doc)
        .iter()
        .find(|n| n["address"] == address.as_str())
        .unwrap_or_else(|| panic!("{address} is not in {:?}", nodes(doc)))
}

/// A counter of one node entry (`count`, `hits`, `misses`, `errors`, `moved`, `ask`).
fn node_count(node: &Value, field: &str) -> u64 {
    u(&node[field])
}

/// `kvbench.cluster.redirects.<field>` (`moved`, `ask`, `retries`, `node_down`, `refreshes`).
fn redirects(doc: &Value, field: &str) -> u64 {
    u(&doc["kvbench"]["cluster"]["redirects"][field])
}

/// The measured run's length in ms (memtier's `Runtime`, drain included).
fn runtime_ms(doc: &Value) -> u64 {
    u(&doc["ALL STATS"]["Runtime"]["Total duration"])
}

/// A row's `Time-Serie`, in second order.
fn seconds(row: &Value) -> Vec<&Value> {
    let series = row["Time-Serie"]
        .as_object()
        .unwrap_or_else(|| panic!("no Time-Serie in {row}"));
    let mut entries: Vec<(u64, &Value)> = series
        .iter()
        .map(|(second, v)| (second.parse().unwrap(), v))
        .collect();
    entries.sort_by_key(|e| e.0);
    entries.into_iter().map(|e| e.1).collect()
}

/// MOVED and ASK followed in one second of a `Time-Serie`.
fn second_redirects(second: &Value) -> u64 {
    u(&second["MOVED"]) + u(&second["ASK"])
}

/// An op's error replies, and their sum over `errors_by_kind`.
fn errors_and_by_kind(doc: &Value, op: &str) -> (u64, u64) {
    let totals = &doc["kvbench"]["totals"][op];
    let by_kind = totals["errors_by_kind"]
        .as_object()
        .map_or(0, |kinds| kinds.values().map(u).sum());
    (u(&totals["errors"]), by_kind)
}

// ---------------------------------------------------------------------------
// Running kvbench against a cluster.
// ---------------------------------------------------------------------------

/// Runs `kvbench --cluster-mode` at the cluster's seed node with `args`
/// (split at whitespace), then `extra` (kept whole); asserts it succeeded.
fn kvbench_cluster(cluster: &Cluster, args: &str, extra: &[&str]) -> Report {
    let full = format!("--cluster-mode {args}");
    common::kvbench_json(cluster.seed_port(), &full, extra)
}

/// A `kvbench --cluster-mode` run in the background, its output in files.
struct Running {
    child: Child,
    dir: TempDir,
}

impl Running {
    fn start(cluster: &Cluster, args: &str) -> Running {
        let dir = TempDir::new("cluster-run");
        let child = kvbench_at(cluster.seed_port())
            .arg("--cluster-mode")
            .args(args.split_whitespace())
            .args(["--json-out-file", dir.path("r.json").to_str().unwrap()])
            .stdout(std::fs::File::create(dir.path("stdout")).unwrap())
            .stderr(std::fs::File::create(dir.path("stderr")).unwrap())
            .stdin(Stdio::null())
            .spawn()
            .expect("start kvbench");
        Running { child, dir }
    }

    /// Waits up to `limit` for kvbench to end; asserts it exited 0.
    fn finish(mut self, limit: Duration) -> Report {
        let give_up = Instant::now() + limit;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() >= give_up {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("kvbench still ran after {limit:?}: {}", self.text("stderr"));
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let out = Output {
            status,
            stdout: self.text("stdout").into_bytes(),
            stderr: self.text("stderr").into_bytes(),
        };
        assert_success(&out, "in the background");
        Report {
            doc: read_json(&self.dir.path("r.json")),
            stdout: self.text("stdout"),
            stderr: self.text("stderr"),
        }
    }

    fn text(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path(name)).unwrap_or_default()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Asserts kvbench's SET and GET counts equal the current masters' calls.
fn assert_counts_match_masters(cluster: &Cluster, doc: &Value, what: &str) {
    for (op, cmd) in [("SET", "set"), ("GET", "get")] {
        assert_eq!(
            total(doc, op, "count"),
            cluster.sum_calls(cmd),
            "{what}: kvbench's {op} count vs the masters' {cmd} calls {:?}",
            cluster.calls_by_master(cmd)
        );
    }
}

/// Asserts no op row has an error reply.
fn assert_no_error_replies(doc: &Value, what: &str) {
    for op in ["SET", "GET"] {
        assert_eq!(total(doc, op, "errors"), 0, "{what}: {op} errors");
    }
}

// ---------------------------------------------------------------------------
// The harness, on its own.
// ---------------------------------------------------------------------------

#[test]
fn cluster_harness_reshards_and_fails_over() {
    let cluster = Cluster::start_with_replicas(3, 1);
    let (masters, replicas) = (cluster.masters(), cluster.replicas());
    assert_eq!(masters, cluster.ports()[..3]);
    assert_eq!(replicas, cluster.ports()[3..]);
    let before: Vec<usize> = masters.iter().map(|&p| cluster.slot_count(p)).collect();
    assert_eq!(before.iter().sum::<usize>(), 16_384);
    assert!(before.iter().all(|&n| (5_461..=5_462).contains(&n)), "{before:?}");
    for &r in &replicas {
        assert_eq!(cluster.slot_count(r), 0);
        assert!(masters.contains(&cluster.master_of(r)));
    }

    // The witnesses: 300 SETs to their owners, counted on masters once and
    // on replicas again (they execute what their master propagates).
    cluster.reset_stats();
    for n in 0..300 {
        let key = format!("key:{n}");
        let owner = cluster.owner(key_slot(key.as_bytes()));
        assert_eq!(common::ask(owner, &["SET", &key, "v"]), "OK");
    }
    assert_eq!(cluster.sum_calls("set"), 300);
    assert_eq!(cluster.dbsize_sum(), 300);
    let spread = cluster.calls_by_master("set");
    assert!(spread.iter().all(|&(_, c)| (60..=140).contains(&c)), "{spread:?}");
    common::cluster::wait(
        || cluster.sum_calls_all("set") == 600,
        "the replicas to execute the propagated SETs",
    );

    // A reshard moves exactly the slots asked for, keys with them.
    let reshard = cluster.reshard(masters[0], masters[1], 300);
    let log = reshard.finish(Duration::from_secs(120));
    assert!(log.contains("Moving slot"), "{log}");
    cluster.wait_settled(3, 3);
    assert_eq!(cluster.slot_count(masters[0]), before[0] - 300);
    assert_eq!(cluster.slot_count(masters[1]), before[1] + 300);
    assert_eq!(cluster.slot_count(masters[2]), before[2]);
    assert_eq!(cluster.dbsize_sum(), 300, "keys lost in the reshard");

    // A failover flips the roles of a replica and its master.
    let replica = *replicas
        .iter()
        .find(|&&r| cluster.master_of(r) == masters[2])
        .unwrap();
    cluster.failover(replica);
    assert_eq!(cluster.role(replica), Role::Master);
    assert_eq!(cluster.role(masters[2]), Role::Replica);
    assert_eq!(cluster.master_of(masters[2]), replica);
    let now: Vec<u16> = cluster.masters();
    assert_eq!(now, [masters[0], masters[1], replica]);
    assert_eq!(cluster.slot_count(replica), before[2]);
    assert_eq!(cluster.dbsize_sum(), 300, "keys lost in the failover");

    // GETs on the new master count there, over masters and over all nodes.
    cluster.reset_stats();
    let key = (0..)
        .map(|n| format!("key:{n}"))
        .find(|k| cluster.owner(key_slot(k.as_bytes())) == replica)
        .unwrap();
    assert_eq!(common::ask(replica, &["GET", &key]), "v");
    assert_eq!(cluster.calls(replica, "get"), 1);
    assert_eq!(cluster.sum_calls("get"), 1);
    assert_eq!(cluster.sum_calls_all("get"), 1);
}
