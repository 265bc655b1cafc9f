//! `kvbench merge` of two `--cluster-mode` shard runs against one real
//! 3-master cluster: each merged node's count is the sum of the two files'
//! counts for it and what that master itself counted (`INFO commandstats`),
//! its p99 is that of the union of the files' node histograms, and the
//! merged file validates against the schema.

use serde_json::Value;

use super::{assert_schema, merge};
use crate::common::cluster::Cluster;
use crate::common::cluster::kvbench::{
    assert_counts_match_masters, kvbench_cluster, node, node_count, nodes,
};
use crate::common::{TempDir, decode_histogram, read_json, total};

/// The histogram of a node entry (`latency_histogram`).
fn node_histogram(n: &Value) -> hdrhistogram::Histogram<u64> {
    let text = n["latency_histogram"]
        .as_str()
        .unwrap_or_else(|| panic!("no latency_histogram in {n}"));
    decode_histogram(text)
}

#[test]
fn two_cluster_shards_merge_into_each_masters_own_count_and_the_union_p99() {
    let cluster = Cluster::start(3);
    cluster.reset_stats();
    let dir = TempDir::new("e2e-merge-cluster");
    // Two shards of one workload, one after the other: 2 clients × 300
    // requests each, SET and GET alternating over a wide key range.
    let files: Vec<_> = (0..2)
        .map(|i| {
            let path = dir.path(&format!("shard{i}.json"));
            let args = format!(
                "-t 1 -c 2 -n 300 --ratio 1:1 --key-minimum 1 --key-maximum 10000 --shard-count 2 --shard-index {i}"
            );
            let r = kvbench_cluster(&cluster, &args, &[]);
            assert_schema(&r.doc);
            std::fs::write(&path, serde_json::to_vec_pretty(&r.doc).unwrap()).unwrap();
            path
        })
        .collect();
    let docs: Vec<Value> = files.iter().map(|p| read_json(p)).collect();
    let out_path = dir.path("merged.json");
    let out = merge(&[
        files[0].to_str().unwrap(),
        files[1].to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged = read_json(&out_path);
    assert_schema(&merged);
    assert_eq!(total(&merged, "SET", "count"), 600);
    assert_eq!(total(&merged, "GET", "count"), 600);
    assert_counts_match_masters(&cluster, &merged, "two merged shards");

    let masters = cluster.masters();
    assert_eq!(nodes(&merged).len(), masters.len(), "{:?}", nodes(&merged));
    let mut sum = 0;
    for &port in &masters {
        let mine = node(&merged, port);
        let count = node_count(mine, "count");
        let per_file: u64 = docs
            .iter()
            .map(|d| node_count(node(d, port), "count"))
            .sum();
        assert_eq!(count, per_file, "master {port}: merged vs the files' sum");
        let served = cluster.calls(port, "set") + cluster.calls(port, "get");
        assert_eq!(count, served, "master {port}: merged vs its own calls");
        for field in ["hits", "misses", "errors"] {
            let files_sum: u64 = docs.iter().map(|d| node_count(node(d, port), field)).sum();
            assert_eq!(node_count(mine, field), files_sum, "master {port} {field}");
        }
        // The percentiles of every request this master answered.
        let mut union = node_histogram(node(&docs[0], port));
        union.add(node_histogram(node(&docs[1], port))).unwrap();
        assert_eq!(node_histogram(mine), union, "master {port}");
        let p99 = (union.value_at_percentile(99.0) as f64).round() / 1000.0;
        assert_eq!(mine["latency"]["p99_ms"].as_f64(), Some(p99), "{mine}");
        assert_eq!(mine["role"], "master", "{mine}");
        // The server's own counts are not summed over a shared cluster.
        assert!(mine["server_calls"].is_null(), "{mine}");
        assert!(stdout.contains(&format!("127.0.0.1:{port}")), "{stdout}");
        sum += count;
    }
    assert_eq!(
        sum,
        cluster.sum_calls("set") + cluster.sum_calls("get"),
        "the nodes' counts vs the masters' calls"
    );
    let shares: f64 = nodes(&merged)
        .iter()
        .map(|n| n["share"].as_f64().unwrap())
        .sum();
    assert!((shares - 1.0).abs() < 1e-5, "shares sum to {shares}");
}
