//! kvbench against a [`Cluster`]: running `kvbench --cluster-mode` at its
//! seed node (to its end, or in the background while a test reshards or
//! fails over), and where the cluster's numbers live in the JSON report, one
//! place to fix if the report's key names change.

use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::Cluster;
use crate::common::{
    Report, TempDir, assert_success, f, kvbench_at, kvbench_json, read_json, total, u,
};

// ---------------------------------------------------------------------------
// Where the cluster's numbers live in the JSON report: one place to fix if
// the key names change.
// ---------------------------------------------------------------------------

/// A row of `ALL STATS` (`Sets`, `Gets`, `Totals`).
pub fn row<'a>(doc: &'a Value, name: &str) -> &'a Value {
    &doc["ALL STATS"][name]
}

/// memtier's `MOVED/sec` of a row.
pub fn moved_per_sec(row: &Value) -> f64 {
    f(&row["MOVED/sec"])
}

/// memtier's `ASK/sec` of a row.
pub fn ask_per_sec(row: &Value) -> f64 {
    f(&row["ASK/sec"])
}

/// The last run's `cluster` section (`kvbench.runs[-1].cluster`).
pub fn cluster_section(doc: &Value) -> &Value {
    let runs = doc["kvbench"]["runs"]
        .as_array()
        .unwrap_or_else(|| panic!("no kvbench.runs in {doc}"));
    &runs.last().expect("at least one run")["cluster"]
}

/// The last run's `cluster.nodes`.
pub fn nodes(doc: &Value) -> &Vec<Value> {
    cluster_section(doc)["nodes"]
        .as_array()
        .unwrap_or_else(|| panic!("no cluster.nodes in {}", cluster_section(doc)))
}

/// The entry of `kvbench.cluster.nodes` for 127.0.0.1:`port`.
pub fn node(doc: &Value, port: u16) -> &Value {
    let address = format!("127.0.0.1:{port}");
    nodes(doc)
        .iter()
        .find(|n| n["address"] == address.as_str())
        .unwrap_or_else(|| panic!("{address} is not in {:?}", nodes(doc)))
}

/// A counter of one node entry (`count`, `hits`, `misses`, `errors`, `moved`, `ask`).
pub fn node_count(node: &Value, field: &str) -> u64 {
    u(&node[field])
}

/// The last run's `cluster.redirects.<field>` (`moved`, `ask`, `retries`, `node_down`, `refreshes`).
pub fn redirects(doc: &Value, field: &str) -> u64 {
    u(&cluster_section(doc)["redirects"][field])
}

/// The measured run's length in ms (memtier's `Runtime`, drain included).
pub fn runtime_ms(doc: &Value) -> u64 {
    u(&doc["ALL STATS"]["Runtime"]["Total duration"])
}

/// A row's `Time-Serie`, in second order.
pub fn seconds(row: &Value) -> Vec<&Value> {
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

/// MOVED and ASK followed in each second of the last run
/// (`cluster.per_second`).
pub fn redirects_per_second(doc: &Value) -> Vec<u64> {
    let per_second = &cluster_section(doc)["per_second"];
    let series = |key: &str| -> Vec<u64> {
        per_second[key]
            .as_array()
            .unwrap_or_else(|| panic!("no cluster.per_second.{key} in {per_second}"))
            .iter()
            .map(u)
            .collect()
    };
    let (moved, ask) = (series("moved"), series("ask"));
    assert_eq!(moved.len(), ask.len());
    moved.iter().zip(&ask).map(|(m, a)| m + a).collect()
}

/// An op's error replies, and their sum over `errors_by_kind`.
pub fn errors_and_by_kind(doc: &Value, op: &str) -> (u64, u64) {
    let totals = &doc["kvbench"]["totals"][op];
    let by_kind = totals["errors_by_kind"]
        .as_object()
        .map_or(0, |kinds| kinds.values().map(u).sum());
    (u(&totals["errors"]), by_kind)
}

/// A count of `kvbench.errors` (`connection`, `refused`, `timeouts`,
/// `lost_requests`, `protocol`), over every measured run.
pub fn fault(doc: &Value, kind: &str) -> u64 {
    u(&doc["kvbench"]["errors"][kind])
}

/// `kvbench.errors.server`: the error replies by kind (only those past
/// `--max-redirects` for MOVED, ASK, TRYAGAIN and CLUSTERDOWN), the kinds
/// that are not zero.
pub fn server_errors(doc: &Value) -> Vec<(String, u64)> {
    let kinds = doc["kvbench"]["errors"]["server"]
        .as_object()
        .unwrap_or_else(|| panic!("no kvbench.errors.server in {}", doc["kvbench"]["errors"]));
    kinds
        .iter()
        .map(|(kind, n)| (kind.clone(), u(n)))
        .filter(|(_, n)| *n > 0)
        .collect()
}

// ---------------------------------------------------------------------------
// Running kvbench against a cluster.
// ---------------------------------------------------------------------------

/// Runs `kvbench --cluster-mode` at the cluster's seed node with `args`
/// (split at whitespace), then `extra` (kept whole); asserts it succeeded.
pub fn kvbench_cluster(cluster: &Cluster, args: &str, extra: &[&str]) -> Report {
    let full = format!("--cluster-mode {args}");
    kvbench_json(cluster.seed_port(), &full, extra)
}

/// A `kvbench --cluster-mode` run in the background, its output in files.
pub struct Running {
    pub child: Child,
    dir: TempDir,
}

impl Running {
    pub fn start(cluster: &Cluster, args: &str) -> Running {
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
    pub fn finish(self, limit: Duration) -> Report {
        self.finish_with(limit, 0)
    }

    /// Waits up to `limit` for kvbench to end; asserts it exited `code`
    /// (3: it ran, and its verdict says the result is not valid).
    pub fn finish_with(mut self, limit: Duration, code: i32) -> Report {
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
        if code == 0 {
            assert_success(&out, "in the background");
        } else {
            assert_eq!(
                out.status.code(),
                Some(code),
                "kvbench's exit code: {}",
                self.text("stderr")
            );
        }
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
pub fn assert_counts_match_masters(cluster: &Cluster, doc: &Value, what: &str) {
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
pub fn assert_no_error_replies(doc: &Value, what: &str) {
    for op in ["SET", "GET"] {
        assert_eq!(total(doc, op, "errors"), 0, "{what}: {op} errors");
    }
}
