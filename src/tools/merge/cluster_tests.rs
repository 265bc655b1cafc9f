//! The merge of `kvbench.runs[i].cluster`, on files built in memory: nodes
//! matched by address, counts summed, percentiles read from the union of
//! the histograms, the redirect series added second by second, and `null`
//! when a file cannot vouch for its nodes' latency.

use hdrhistogram::Histogram;
use serde_json::{Value, json};

use crate::engine::stats::percentile_us;
use crate::report::build::rows::SectionShape;
use crate::report::json::{compressed, ms, round};
use crate::report::model::cluster::PhaseCluster;
use crate::report::model::rounded::AsWritten;
use crate::tools::merge::check::{self, ShardFile};
use crate::tools::merge::combine::empty_histogram;
use crate::tools::merge::run::{self, RunSum, add_machine};

/// A histogram of `values` (µs), each `(value, times)`.
fn histogram(values: &[(u64, u64)]) -> Histogram<u64> {
    let mut h = empty_histogram();
    for &(v, n) in values {
        h.record_n(v, n).unwrap();
    }
    h
}

/// One node's entry as the single-run writer computes it
/// (`report/build/evidence.rs`): `share` over `total` replies in
/// `duration_s`, latency from the histogram of `values`.
fn node(address: &str, values: &[(u64, u64)], total: u64, duration_s: f64) -> Value {
    let h = histogram(values);
    let count = h.len();
    let sum: u64 = values.iter().map(|(v, n)| v * n).sum();
    json!({
        "address": address, "role": "master", "slots": 5461, "count": count,
        "ops_per_sec": round(count as f64 / duration_s, 2),
        "share": round(count as f64 / total as f64, 6),
        "hits": count / 2, "misses": count / 4, "errors": 1, "moved": 2, "ask": 1,
        "replica_reads": 0,
        "latency": {
            "avg_ms": ms(sum as f64 / count as f64),
            "p50_ms": ms(percentile_us(&h, 50.0) as f64),
            "p99_ms": ms(percentile_us(&h, 99.0) as f64),
            "p99_9_ms": ms(percentile_us(&h, 99.9) as f64),
        },
        "latency_histogram": compressed(&h),
        "server_calls": null,
    })
}

/// A single-run cluster report of `duration_ms` whose run has `cluster`.
fn file(name: &str, duration_ms: u64, cluster: Value) -> ShardFile {
    let errors = json!({"server": {}, "connection": 0, "refused": 0, "timeouts": 0,
                        "reconnects": 0, "protocol": 0, "lost_requests": 0});
    let doc = json!({
        "ALL STATS": {"Runtime": {"Start time": 0, "Finish time": duration_ms,
            "Total duration": duration_ms, "Time unit": "MILLISECONDS", "Interrupted": "false"}},
        "kvbench": {
            "schema_version": 1, "tool_version": "0", "complete": true, "runs_planned": 1,
            "runs_completed": 1, "seed": 1, "target": "t", "latency": "l",
            "latency_unit_of_histograms": "microseconds", "config": {"cluster_mode": true},
            "runs": [{"phase": "RUN #1", "start_time_ms": 0, "duration_ms": duration_ms,
                      "ops_per_sec": 0.0, "thread_cpu_s": [], "totals": {}, "errors": errors,
                      "open_loop": null, "server": null, "histograms": {},
                      "cluster": cluster}],
            "warmup": null, "prefill": null, "totals": null, "hit_rate_percent": null,
            "errors": null, "server": null, "variance": null, "interrupted": null,
            "warnings": [], "shard": null,
        },
    });
    check::from_text(name, &doc.to_string()).unwrap()
}

fn cluster(nodes: Vec<Value>, moved: &[u64], ask: &[u64], retries: &[u64]) -> Value {
    json!({
        "max_redirects": 5, "read_from": "primary", "nodes": nodes,
        "redirects": {"moved": moved.iter().sum::<u64>(), "ask": ask.iter().sum::<u64>(),
                      "retries": retries.iter().sum::<u64>(), "node_down": 1, "refreshes": 2,
                      "asking_refused": 0},
        "per_second": {"moved": moved, "ask": ask, "retries": retries},
    })
}

/// A layout of no op rows: only the cluster object is under test.
fn layout() -> SectionShape {
    SectionShape {
        rows: Vec::new(),
        percentiles: vec![50.0, 99.0, 99.9],
        cluster: true,
        waits: false,
        distributions: false,
    }
}

/// The merged run's `cluster` of `files`, in order.
fn merged(files: &[ShardFile]) -> Option<PhaseCluster> {
    let layout = layout();
    let mut acc: Option<RunSum> = None;
    for f in files {
        let one = run::of_file(f, 0, &layout).unwrap();
        match &mut acc {
            Some(acc) => add_machine(acc, &one),
            None => acc = Some(one),
        }
    }
    acc.unwrap().summary(&layout, files.len()).cluster
}

/// Latencies (µs), each `(value, times)`.
type Samples = &'static [(u64, u64)];

// Machine A: two masters over 1 s; machine B: the same two in the other
// order and a third, over 2 s, with a longer redirect series.
const A_7000: Samples = &[(100, 90), (5_000, 10)];
const A_7001: Samples = &[(200, 50)];
const B_7001: Samples = &[(300, 99), (40_000, 1)];
const B_7002: Samples = &[(150, 20)];
const B_7000: Samples = &[(120, 10), (9_000, 30)];

fn machine_a() -> ShardFile {
    let nodes = vec![
        node("127.0.0.1:7000", A_7000, 150, 1.0),
        node("127.0.0.1:7001", A_7001, 150, 1.0),
    ];
    file("a.json", 1000, cluster(nodes, &[1, 2], &[0, 1], &[0, 0]))
}

fn machine_b() -> ShardFile {
    let nodes = vec![
        node("127.0.0.1:7001", B_7001, 160, 2.0),
        node("127.0.0.1:7002", B_7002, 160, 2.0),
        node("127.0.0.1:7000", B_7000, 160, 2.0),
    ];
    file(
        "b.json",
        2000,
        cluster(nodes, &[3, 4, 5], &[1, 0, 0], &[0, 2, 0]),
    )
}

#[test]
fn two_machines_nodes_add_by_address_and_read_their_percentiles_from_the_union() {
    let c = merged(&[machine_a(), machine_b()]).unwrap();
    let addresses: Vec<&str> = c.nodes.iter().map(|n| n.address.as_str()).collect();
    // The first file's order, then the node only the second has.
    assert_eq!(
        addresses,
        ["127.0.0.1:7000", "127.0.0.1:7001", "127.0.0.1:7002"]
    );
    let parts: [(Samples, Samples); 3] = [(A_7000, B_7000), (A_7001, B_7001), (&[], B_7002)];
    for (n, (a, b)) in c.nodes.iter().zip(parts) {
        // The union recorded on its own, sample by sample.
        let mut union = empty_histogram();
        for &(v, times) in a.iter().chain(b) {
            for _ in 0..times {
                union.record(v).unwrap();
            }
        }
        let count = union.len();
        let machines = u64::from(!a.is_empty()) + 1;
        assert_eq!(n.count, count, "{}", n.address);
        let half = |v: &[(u64, u64)]| v.iter().map(|(_, t)| t).sum::<u64>();
        assert_eq!(n.hits, half(a) / 2 + half(b) / 2, "{}", n.address);
        assert_eq!(n.misses, half(a) / 4 + half(b) / 4, "{}", n.address);
        assert_eq!(
            (n.errors, n.moved, n.ask),
            (machines, 2 * machines, machines)
        );
        assert_eq!(n.latency.p99_ms, ms(percentile_us(&union, 99.0) as f64));
        assert_eq!(n.latency.p50_ms, ms(percentile_us(&union, 50.0) as f64));
        assert_eq!(n.latency.p99_9_ms, ms(percentile_us(&union, 99.9) as f64));
        let sum: u64 = a.iter().chain(b).map(|(v, t)| v * t).sum();
        // The model holds them exact; the JSON rounds them as one file's.
        assert_eq!(n.latency.avg_ms, sum as f64 / count as f64 / 1000.0);
        // Over the merged run's time: the longer machine's 2 s.
        assert_eq!(n.ops_per_sec, count as f64 / 2.0);
        let h = n.latency_histogram.as_ref().unwrap().decode().unwrap();
        assert_eq!(h, union, "{}", n.address);
        assert_eq!(n.server_calls, None);
    }
    // 7000: 100 + 40 of 310 replies; its p99 is B's 9 ms tail, which
    // neither machine's own p99 averaged with the other's would give.
    assert_eq!(c.nodes[0].count, 140);
    assert!(
        (9.0..9.1).contains(&c.nodes[0].latency.p99_ms),
        "{:?}",
        c.nodes[0]
    );
    let shares: f64 = c.nodes.iter().map(|n| n.share).sum();
    assert!((shares - 1.0).abs() < 1e-5, "shares sum to {shares}");
    assert_eq!(c.nodes[0].share, 140.0 / 310.0);
    assert_eq!(c.per_second.moved, [4, 6, 5]);
    assert_eq!(c.per_second.ask, [1, 1, 0]);
    assert_eq!(c.per_second.retries, [0, 2, 0]);
    let r = &c.redirects;
    assert_eq!((r.moved, r.ask, r.retries), (15, 2, 2));
    assert_eq!((r.node_down, r.refreshes, r.asking_refused), (2, 4, 0));
    assert_eq!((c.max_redirects, c.read_from.as_str()), (5, "primary"));
}

#[test]
fn one_file_merged_alone_reproduces_its_node_rows() {
    let a = machine_a();
    let written = a.kvbench.runs[0].cluster.clone().unwrap();
    let mut merged = merged(&[a]).unwrap();
    merged.round_as_written();
    assert_eq!(merged, written);
}

#[test]
fn a_node_without_its_histogram_or_a_run_without_cluster_leaves_the_merge_null() {
    // A file written before the histogram was kept still reads.
    let mut old = cluster(
        vec![node("127.0.0.1:7000", B_7000, 40, 2.0)],
        &[0],
        &[0],
        &[0],
    );
    old["nodes"][0]
        .as_object_mut()
        .unwrap()
        .remove("latency_histogram");
    let old = file("old.json", 2000, old);
    assert!(
        old.kvbench.runs[0].cluster.as_ref().unwrap().nodes[0]
            .latency_histogram
            .is_none()
    );
    assert_eq!(merged(&[machine_a(), old]), None);
    let old = file("old.json", 2000, cluster(vec![], &[0], &[0], &[0]));
    assert!(
        merged(&[machine_a(), old]).is_some(),
        "no node, no histogram missing"
    );
    let plain = file("plain.json", 2000, Value::Null);
    assert_eq!(merged(&[machine_a(), plain]), None);
    let plain = file("plain.json", 2000, Value::Null);
    assert_eq!(merged(&[plain, machine_a()]), None);
}

#[test]
fn a_node_count_its_histogram_does_not_hold_is_refused() {
    let mut edited = cluster(
        vec![node("127.0.0.1:7000", A_7000, 100, 1.0)],
        &[0],
        &[0],
        &[0],
    );
    edited["nodes"][0]["count"] = json!(101);
    let f = file("edited.json", 1000, edited);
    let e = run::of_file(&f, 0, &layout()).unwrap_err().to_string();
    assert!(
        e.starts_with("edited.json: RUN #1 cluster node 127.0.0.1:7000 count 101")
            && e.contains("holds 100 samples"),
        "{e}"
    );
}
