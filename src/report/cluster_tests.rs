//! The cluster reports on synthetic results (three masters, see
//! [`crate::report::cluster_fixture`]): memtier's MOVED/sec and ASK/sec in
//! the text and the JSON, the Shards table, `kvbench.runs[i].cluster`, and
//! single-server reports without any of it.

use serde_json::Value;

use crate::config::Config;
use crate::engine::master::results::Results;
use crate::report::ReportInput;
use crate::report::build;
use crate::report::cluster_fixture::{
    ASK, EVEN_SLOTS, MOVED, NODES, SECS, cluster_config, cluster_results, standalone_config,
};

const ARGS: [&str; 2] = ["--test-time", "10"];
/// 7002 answers 3000, 7000 2000, 7001 1000.
const COUNTS: [u64; 3] = [3000, 2000, 1000];

fn text(config: &Config, results: &Results) -> String {
    let input = ReportInput::new(config, results, true);
    let report = build::report(&input);
    String::from_utf8(crate::report::text::render(
        &input,
        &report,
        crate::report::text::Layout::Memtier,
    ))
    .unwrap()
}

fn json(config: &Config, results: &Results) -> Value {
    serde_json::to_value(build::report(&ReportInput::new(config, results, true))).unwrap()
}

fn lines_after<'a>(text: &'a str, title: &str) -> Vec<&'a str> {
    text.lines().skip_while(|l| *l != title).collect()
}

fn close(v: f64, expected: f64, tolerance: f64) -> bool {
    (v - expected).abs() <= tolerance
}

#[test]
fn the_all_stats_table_has_memtiers_redirect_columns_in_cluster_mode() {
    let out = text(&cluster_config(&ARGS), &cluster_results(COUNTS, EVEN_SLOTS));
    let table = lines_after(&out, "ALL STATS");
    // memtier_benchmark --cluster-mode, character for character.
    assert_eq!(table[1].len(), 150);
    assert_eq!(
        table[2],
        "Type         Ops/sec     Hits/sec   Misses/sec    MOVED/sec      ASK/sec    Avg. Latency     p50 Latency     p99 Latency   p99.9 Latency       KB/sec "
    );
    let cells = |row: &str| -> Vec<String> {
        let line = table.iter().find(|l| l.starts_with(row)).unwrap();
        line.split_whitespace().map(str::to_string).collect()
    };
    let moved = format!("{:.2}", MOVED as f64 / SECS as f64);
    let ask = format!("{:.2}", ASK as f64 / SECS as f64);
    assert_eq!(cells("Sets")[2..6], ["---", "---", &moved, "0.00"]);
    assert_eq!(cells("Gets")[4..6], ["0.00", &ask]);
    assert_eq!(cells("Waits")[1..6], ["0.00", "---", "---", "---", "---"]);
    assert_eq!(cells("Totals")[1], "600.00");
    assert_eq!(cells("Totals")[4..6], [moved, ask]);
}

#[test]
fn a_single_server_table_keeps_memtiers_standalone_layout() {
    let mut results = cluster_results(COUNTS, EVEN_SLOTS);
    results.cluster = None;
    let out = text(&standalone_config(&ARGS), &results);
    let table = lines_after(&out, "ALL STATS");
    assert_eq!(table[1].len(), 124);
    assert_eq!(
        table[2],
        "Type         Ops/sec     Hits/sec   Misses/sec    Avg. Latency     p50 Latency     p99 Latency   p99.9 Latency       KB/sec "
    );
    assert!(!out.contains("MOVED"), "{out}");
    assert!(!out.contains("Shards"), "{out}");
    assert!(!out.contains("Redirects:"), "{out}");
}

#[test]
fn the_shards_table_has_a_row_per_node_sorted_by_address() {
    let out = text(&cluster_config(&ARGS), &cluster_results(COUNTS, EVEN_SLOTS));
    let table = lines_after(&out, "Shards");
    assert!(table.len() > 6, "{out}");
    let titles: Vec<&str> = table[2].split_whitespace().collect();
    assert_eq!(
        titles[..6],
        ["Node", "Role", "Slots", "Ops/sec", "Share", "Hits/sec"]
    );
    assert!(table[2].ends_with("Server calls"), "{}", table[2]);
    let rows: Vec<Vec<&str>> = table[4..7]
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let addresses: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(
        addresses,
        ["127.0.0.1:7000", "127.0.0.1:7001", "127.0.0.1:7002"]
    );
    // 127.0.0.1:7000 answered 2000 of 6000 replies in 1 ms, 1000 of them GETs
    // (half hits), and followed the MOVEDs; its INFO counted 2000 calls.
    let r = &rows[0];
    assert_eq!(r[1..7], ["master", "5462", "200.00", "33.33", "%", "50.00"]);
    assert_eq!(r[7], "50.00");
    assert_eq!(r[8], format!("{:.2}", MOVED as f64 / SECS as f64));
    assert_eq!(r[9], "0.00");
    for latency in &r[10..14] {
        let ms: f64 = latency.parse().unwrap();
        assert!(close(ms, 1.0, 0.002), "{latency} in {r:?}");
    }
    assert_eq!(r[14], "2000");
    // 127.0.0.1:7001 has no INFO: its server calls are unknown.
    assert_eq!(rows[1][4], "16.67");
    assert_eq!(rows[1][14], "---");
    let p99: f64 = rows[2][12].parse().unwrap();
    assert!(close(p99, 3.0, 0.006), "{:?}", rows[2]);
    assert_eq!(rows[2][14], "3000");
    let redirects = table.iter().find(|l| l.starts_with("Redirects:")).unwrap();
    assert!(
        redirects.contains(&format!("{MOVED} MOVED and {ASK} ASK")),
        "{redirects}"
    );
    assert!(redirects.contains("5 retries"), "{redirects}");
    assert!(redirects.contains("2 topology refreshes"), "{redirects}");
}

#[test]
fn no_redirect_line_when_routing_cost_nothing() {
    let mut results = cluster_results(COUNTS, EVEN_SLOTS);
    let stats = &mut results.runs[0].stats;
    stats.ops[0].moved = 0;
    stats.ops[1].ask = 0;
    stats.errors.retries = 0;
    stats.errors.refreshes = 0;
    let out = text(&cluster_config(&ARGS), &results);
    assert!(out.contains("Shards"), "{out}");
    assert!(!out.contains("Redirects:"), "{out}");
}

/// memtier_benchmark --cluster-mode's keys of an op row, in its order.
const MEMTIER_CLUSTER_ROW: [&str; 19] = [
    "Count",
    "Ops/sec",
    "Hits/sec",
    "Misses/sec",
    "MOVED/sec",
    "ASK/sec",
    "Connection Errors/sec",
    "Connection Errors",
    "Latency",
    "Average Latency",
    "Accumulated Latency",
    "Min Latency",
    "Max Latency",
    "KB/sec",
    "KB/sec RX/TX",
    "KB/sec RX",
    "KB/sec TX",
    "Time-Serie",
    "Percentile Latencies",
];

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

#[test]
fn json_rows_have_memtiers_cluster_keys_in_its_order() {
    let doc = json(&cluster_config(&ARGS), &cluster_results(COUNTS, EVEN_SLOTS));
    for row in ["Sets", "Gets", "Waits", "Totals"] {
        assert_eq!(keys(&doc["ALL STATS"][row]), MEMTIER_CLUSTER_ROW, "{row}");
    }
    let totals = &doc["ALL STATS"]["Totals"];
    assert_eq!(totals["MOVED/sec"], MOVED as f64 / SECS as f64);
    assert_eq!(totals["ASK/sec"], ASK as f64 / SECS as f64);
    assert_eq!(doc["ALL STATS"]["Sets"]["ASK/sec"], 0.0);
    // memtier writes no cluster_mode into its configuration.
    assert!(doc["configuration"].get("cluster_mode").is_none());
    let config = &doc["kvbench"]["config"];
    assert_eq!(config["cluster_mode"], true);
    assert_eq!(config["max_redirects"], 16);
    assert_eq!(config["read_from"], "primary");
}

#[test]
fn json_phase_summaries_carry_each_node() {
    let doc = json(&cluster_config(&ARGS), &cluster_results(COUNTS, EVEN_SLOTS));
    let cluster = &doc["kvbench"]["runs"][0]["cluster"];
    assert_eq!(
        keys(cluster),
        [
            "max_redirects",
            "read_from",
            "nodes",
            "redirects",
            "per_second"
        ]
    );
    let nodes = cluster["nodes"].as_array().unwrap();
    let addresses: Vec<&str> = nodes
        .iter()
        .map(|n| n["address"].as_str().unwrap())
        .collect();
    assert_eq!(
        addresses,
        ["127.0.0.1:7000", "127.0.0.1:7001", "127.0.0.1:7002"]
    );
    let share: f64 = nodes.iter().map(|n| n["share"].as_f64().unwrap()).sum();
    assert!(close(share, 1.0, 1e-5), "{share}");
    let n = &nodes[2];
    assert_eq!(n["role"], "master");
    assert_eq!(n["slots"], 5461);
    assert_eq!(n["count"], 3000);
    assert_eq!(n["ops_per_sec"], 300.0);
    assert!(close(n["share"].as_f64().unwrap(), 0.5, 1e-6), "{n}");
    assert_eq!(
        (n["hits"].as_u64(), n["misses"].as_u64()),
        (Some(750), Some(750))
    );
    assert_eq!(n["ask"], 0);
    let latency = &n["latency"];
    for key in ["avg_ms", "p50_ms", "p99_ms", "p99_9_ms"] {
        let ms = latency[key].as_f64().unwrap();
        assert!(close(ms, 3.0, 0.006), "{key} {ms}");
    }
    assert_eq!(n["server_calls"]["set"], 1500);
    assert_eq!(n["server_calls"]["get"], 1500);
    assert_eq!(nodes[0]["moved"], MOVED);
    assert_eq!(nodes[1]["ask"], ASK);
    assert_eq!(nodes[1]["server_calls"], Value::Null);
    let r = &cluster["redirects"];
    assert_eq!(
        (r["moved"].as_u64(), r["ask"].as_u64()),
        (Some(MOVED), Some(ASK))
    );
    assert_eq!(
        (r["retries"].as_u64(), r["refreshes"].as_u64()),
        (Some(5), Some(2))
    );
    assert_eq!(r["node_down"], 0);
    assert_eq!(
        cluster["per_second"]["moved"],
        serde_json::json!([MOVED - 5, 5])
    );
    assert_eq!(cluster["per_second"]["retries"], serde_json::json!([0, 0]));
}

#[test]
fn single_server_json_has_no_cluster_keys() {
    let mut results = cluster_results(COUNTS, EVEN_SLOTS);
    results.cluster = None;
    let doc = json(&standalone_config(&ARGS), &results);
    assert!(doc["ALL STATS"]["Totals"].get("MOVED/sec").is_none());
    assert!(doc["ALL STATS"]["Gets"].get("ASK/sec").is_none());
    assert!(doc["kvbench"]["runs"][0].get("cluster").is_none());
    let config = &doc["kvbench"]["config"];
    assert_eq!(config["cluster_mode"], false);
    assert_eq!(config["max_redirects"], Value::Null);
}

#[test]
fn cluster_json_validates_against_the_schema_and_reads_back() {
    let schema: Value =
        serde_json::from_str(include_str!("../../docs/output.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let mut standalone = cluster_results(COUNTS, EVEN_SLOTS);
    standalone.cluster = None;
    for doc in [
        json(&cluster_config(&ARGS), &cluster_results(COUNTS, EVEN_SLOTS)),
        json(&standalone_config(&ARGS), &standalone),
    ] {
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{}: {e}", e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{}", errors.join("\n"));
        // The typed model reads every key and writes the same document back.
        let text = serde_json::to_string(&doc).unwrap();
        let model = crate::report::model::parse("cluster.json", &text).unwrap();
        assert_eq!(serde_json::to_value(&model).unwrap(), doc);
    }
}

#[test]
fn the_hot_shard_warning_reaches_both_reports() {
    let results = cluster_results([4000, 1000, 1000], EVEN_SLOTS);
    let config = cluster_config(&ARGS);
    let out = text(&config, &results);
    let line = out
        .lines()
        .find(|l| l.starts_with("Warning: the node"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains(NODES[0]), "{line}");
    let doc = json(&config, &results);
    let kinds: Vec<&str> = doc["kvbench"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"hot_shard"), "{kinds:?}");
}

#[test]
fn a_command_table_has_the_redirect_columns_after_ops_per_sec() {
    let args = ["--test-time", "10", "--command", "HSET __key__ f __data__"];
    let out = text(&cluster_config(&args), &cluster_results(COUNTS, EVEN_SLOTS));
    let table = lines_after(&out, "ALL STATS");
    let titles: Vec<&str> = table[2].split_whitespace().collect();
    assert_eq!(titles[..4], ["Type", "Ops/sec", "MOVED/sec", "ASK/sec"]);
    let hsets: Vec<&str> = table[4].split_whitespace().collect();
    assert_eq!(hsets[0], "Hsets");
    assert_eq!(hsets[2], format!("{:.2}", MOVED as f64 / SECS as f64));
    // Without --cluster-mode the command table keeps memtier's layout.
    let out = text(
        &standalone_config(&args),
        &cluster_results(COUNTS, EVEN_SLOTS),
    );
    let table = lines_after(&out, "ALL STATS");
    assert!(
        table[2].starts_with("Type         Ops/sec    Avg. Latency"),
        "{}",
        table[2]
    );
}
