//! `kvbench merge` on real runs: three runs against one redis-server, made
//! the three shards of a set by editing their `kvbench.shard`, merge into
//! counts the server confirms and a p99 equal to that of the union of their
//! histograms; the merged file validates against the schema and `kvbench
//! compare` reads it; sets that do not belong together are refused with
//! exit 2, naming the file and the problem ([`trust`]: files edited or
//! given twice); [`cluster`]: two `--cluster-mode` shards merge their
//! per-master table.

mod cluster;
mod late;
mod precision;
mod recheck;
mod sweep;
mod trust;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::common;
use crate::common::{Redis, TempDir, kvbench, kvbench_ok, read_json, row_histogram};

const SCHEMA: &str = include_str!("../../docs/output.schema.json");
const SHARDS: usize = 3;
/// Requests per connection, 2 threads × 2 clients.
const REQUESTS: u64 = 300;

/// Three shard files of one workload, and the server that served them.
struct Set {
    dir: TempDir,
    redis: Redis,
    files: Vec<PathBuf>,
}

impl Set {
    fn arg(&self, i: usize) -> &str {
        self.files[i].to_str().unwrap()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path(name)
    }
}

/// Writes `doc` to `path`.
fn write(path: &Path, doc: &Value) {
    std::fs::write(path, serde_json::to_vec_pretty(doc).unwrap()).unwrap();
}

/// Makes `doc` shard `index` of `count`, as the shard flags would.
fn set_shard(doc: &mut Value, index: usize, count: usize) {
    doc["kvbench"]["shard"] = json!({
        "index": index, "count": count, "source": "flags", "host": format!("client{index}"),
        "start_at_ms": 1_700_000_000_000u64, "start_lag_ms": 0.25 * index as f64,
        "clock": {"offset_start_ms": 0.5, "offset_end_ms": 0.6, "rtt_ms": 0.1, "samples": 8},
    });
    doc["kvbench"]["runs"][0]["start_lag_ms"] = json!(0.25 * index as f64);
}

fn shard_set() -> Set {
    let redis = Redis::start();
    redis.reset_stats();
    let dir = TempDir::new("e2e-merge");
    let mut files = Vec::new();
    for i in 0..SHARDS {
        let path = dir.path(&format!("shard{i}.json"));
        kvbench_ok(
            redis.port,
            &[
                "-t",
                "2",
                "-c",
                "2",
                "-n",
                &REQUESTS.to_string(),
                "--ratio",
                "1:4",
                "--key-maximum",
                "500",
                "--json-out-file",
                path.to_str().unwrap(),
                // Each second's histograms, which merge reads back.
                "--hdr-file-prefix",
                dir.path(&format!("shard{i}")).to_str().unwrap(),
            ],
        );
        let mut doc = read_json(&path);
        set_shard(&mut doc, i, SHARDS);
        write(&path, &doc);
        files.push(path);
    }
    Set { dir, redis, files }
}

/// Two shards of an open-loop run (`--rate 1000` for 1 s each) against
/// `redis`, as `rate0.json` and `rate1.json` in `dir`.
fn rate_shards(redis: &Redis, dir: &TempDir) -> Vec<PathBuf> {
    (0..2)
        .map(|i| {
            let path = dir.path(&format!("rate{i}.json"));
            kvbench_ok(
                redis.port,
                &[
                    "-t",
                    "1",
                    "-c",
                    "2",
                    "--rate",
                    "1000",
                    "--test-time",
                    "1",
                    "--key-maximum",
                    "100",
                    "--json-out-file",
                    path.to_str().unwrap(),
                ],
            );
            let mut doc = read_json(&path);
            set_shard(&mut doc, i, 2);
            write(&path, &doc);
            path
        })
        .collect()
}

/// Asserts that `doc` validates against docs/output.schema.json.
fn assert_schema(doc: &Value) {
    let schema: Value = serde_json::from_str(SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "merged file vs schema:\n{}",
        errors.join("\n")
    );
}

fn merge(args: &[&str]) -> Output {
    let mut full = vec!["merge"];
    full.extend_from_slice(args);
    kvbench(&full)
}

/// Asserts exit 2 and a message naming `file` and containing `problem`.
fn refused(out: &Output, file: &str, problem: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(file), "the message names {file}: {stderr}");
    assert!(
        stderr.contains(problem),
        "the message says {problem:?}: {stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing merged is printed");
}

#[test]
fn three_shards_merge_into_the_servers_counts_and_the_union_p99() {
    let set = shard_set();
    let out_path = set.path("merged.json");
    let out = merge(&[
        set.arg(0),
        set.arg(1),
        set.arg(2),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = read_json(&out_path);
    let kv = &doc["kvbench"];
    // Three valid machines make a valid set.
    assert_eq!(kv["verdict"]["valid"], true, "{}", kv["verdict"]);
    assert_eq!(kv["verdict"]["reasons"], json!([]));

    // Counts: what the server saw over the three runs.
    let (sets, gets) = (set.redis.calls("set"), set.redis.calls("get"));
    assert_eq!(kv["totals"]["SET"]["count"].as_u64(), Some(sets));
    assert_eq!(kv["totals"]["GET"]["count"].as_u64(), Some(gets));
    let planned = SHARDS as u64 * 4 * REQUESTS;
    assert_eq!(
        sets + gets,
        planned,
        "every planned request was answered once"
    );
    let totals = &doc["ALL STATS"]["Totals"];
    assert_eq!(totals["Count"].as_u64(), Some(planned));

    // p99: that of the union of the three files' histograms.
    let mut union = row_histogram(&read_json(&set.files[0])["ALL STATS"]["Totals"]);
    for f in &set.files[1..] {
        union
            .add(row_histogram(&read_json(f)["ALL STATS"]["Totals"]))
            .unwrap();
    }
    let p99 = (union.value_at_percentile(99.0) as f64 / 1000.0 * 1000.0).round() / 1000.0;
    assert_eq!(
        totals["Percentile Latencies"]["p99.00"].as_f64(),
        Some(p99),
        "merged p99 vs the union's"
    );
    assert_eq!(row_histogram(totals).len(), planned);
    // Each second's percentiles, from the shards' interval logs: a merged
    // percentile lies between the shards' own of that second.
    let shard_docs: Vec<Value> = set.files.iter().map(|f| read_json(f)).collect();
    let mut seconds_seen = 0;
    for (second, merged) in totals["Time-Serie"].as_object().unwrap() {
        if merged["Count"].as_u64() == Some(0) {
            continue;
        }
        seconds_seen += 1;
        let p99 = merged["p99.00"]
            .as_f64()
            .unwrap_or_else(|| panic!("second {second}: {merged}"));
        let own: Vec<f64> = shard_docs
            .iter()
            .filter_map(|d| d["ALL STATS"]["Totals"]["Time-Serie"][second]["p99.00"].as_f64())
            .collect();
        let (lo, hi) = own
            .iter()
            .fold((f64::MAX, 0.0_f64), |(l, h), v| (l.min(*v), h.max(*v)));
        assert!(
            !own.is_empty() && p99 >= lo - 0.002 && p99 <= hi + 0.002,
            "second {second}: merged p99 {p99} vs the shards' {own:?}"
        );
    }
    assert!(seconds_seen >= 1, "{}", totals["Time-Serie"]);

    // The set's own record.
    assert_eq!(kv["merged"]["partial"], false);
    assert_eq!(kv["merged"]["missing"], json!([]));
    let shards = kv["shards"].as_array().unwrap();
    assert_eq!(
        shards
            .iter()
            .map(|s| s["index"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
    assert_eq!(shards[2]["host"], "client2");
    assert_eq!(shards[1]["start_lag_ms"].as_f64(), Some(0.25));
    assert!(
        stdout.contains("3 × 2 × 2"),
        "the machines × t × c cell: {stdout}"
    );
    assert!(stdout.contains("client1"), "the shard table: {stdout}");
    assert!(stdout.contains("Start skew"), "the skew line: {stdout}");

    // The schema of a single run's file, and compare reads it.
    assert_schema(&doc);
    let compared = kvbench(&["compare", set.arg(0), out_path.to_str().unwrap()]);
    let table = String::from_utf8_lossy(&compared.stdout);
    assert!(
        compared.status.success(),
        "{}",
        String::from_utf8_lossy(&compared.stderr)
    );
    assert!(table.contains("merged.json"), "{table}");
}

#[test]
fn sets_that_do_not_belong_together_are_refused_naming_the_file() {
    let set = shard_set();

    // A different workload: the fields that differ are named.
    let other = set.path("other.json");
    let mut doc = read_json(&set.files[2]);
    doc["kvbench"]["config"]["pipeline"] = json!(8);
    write(&other, &doc);
    let out = merge(&[set.arg(0), set.arg(1), other.to_str().unwrap()]);
    refused(&out, "other.json", "pipeline (1 vs 8)");

    // A shard given twice.
    let twice = set.path("twice.json");
    let mut doc = read_json(&set.files[1]);
    doc["kvbench"]["shard"]["host"] = json!("elsewhere");
    write(&twice, &doc);
    let out = merge(&[set.arg(0), set.arg(1), twice.to_str().unwrap()]);
    refused(&out, "twice.json", "duplicate shard index 1");

    // A shard missing; --allow-partial merges and says which.
    let out = merge(&[set.arg(0), set.arg(2)]);
    refused(&out, "kvbench merge", "shard(s) 1 of 3 missing");
    let partial = set.path("partial.json");
    let out = merge(&[
        set.arg(0),
        set.arg(2),
        "--allow-partial",
        "-o",
        partial.to_str().unwrap(),
    ]);
    // Merged, but not the load of the whole set: the verdict says so (exit 3).
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = read_json(&partial);
    assert_eq!(doc["kvbench"]["merged"]["partial"], true);
    assert_eq!(doc["kvbench"]["merged"]["missing"], json!([1]));
    assert_eq!(doc["kvbench"]["complete"], false);
    let verdict = &doc["kvbench"]["verdict"];
    assert_eq!(verdict["valid"], false, "{verdict}");
    assert_eq!(verdict["reasons"][0]["kind"], "shards_missing", "{verdict}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("partial set"), "{stdout}");
    assert!(stdout.starts_with("INVALID RESULT:"), "{stdout}");
    assert_schema(&doc);

    // A machine whose own result is not valid makes the sum not valid,
    // its reasons named by its file; --allow-invalid exits 0 all the same.
    let refused_shard = set.path("refused.json");
    let mut doc = read_json(&set.files[1]);
    doc["kvbench"]["verdict"] = json!({
        "valid": false,
        "reasons": [{"kind": "error_replies", "message": "90 of 100 replies (90.0 %) were errors", "phase": "RUN #1"}],
    });
    write(&refused_shard, &doc);
    let out = merge(&[set.arg(0), refused_shard.to_str().unwrap(), set.arg(2)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let line = format!(
        "kvbench: invalid: {} RUN #1: 90 of 100 replies (90.0 %) were errors",
        refused_shard.display()
    );
    assert!(stderr.contains(&line), "{stderr}");
    let out = merge(&[
        set.arg(0),
        refused_shard.to_str().unwrap(),
        set.arg(2),
        "--allow-invalid",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A truncated file.
    let cut = set.path("cut.json");
    let bytes = std::fs::read(&set.files[1]).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = merge(&[set.arg(0), cut.to_str().unwrap(), set.arg(2)]);
    refused(&out, "cut.json", "not a complete kvbench JSON report");

    // A different shard count.
    let four = set.path("four.json");
    let mut doc = read_json(&set.files[2]);
    doc["kvbench"]["shard"]["count"] = json!(4);
    write(&four, &doc);
    let out = merge(&[set.arg(0), set.arg(1), four.to_str().unwrap()]);
    refused(&out, "four.json", "shard count 4");
}

#[test]
fn open_loop_runs_merge_their_rates_and_latency_blocks() {
    let redis = Redis::start();
    let dir = TempDir::new("e2e-merge-rate");
    let files: Vec<Value> = rate_shards(&redis, &dir)
        .iter()
        .map(|p| read_json(p))
        .collect();
    let out_path = dir.path("merged.json");
    let (a, b) = (dir.path("rate0.json"), dir.path("rate1.json"));
    let out = merge(&[
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = read_json(&out_path);
    let merged = &doc["kvbench"]["runs"][0]["open_loop"];
    assert_eq!(merged["target_ops_per_sec"].as_f64(), Some(2000.0));
    let each = |f: &Value, block: &str| {
        f["kvbench"]["runs"][0]["open_loop"][block]["Totals"]["Count"]
            .as_u64()
            .unwrap()
    };
    for block in ["service_time", "response_time", "never_sent_wait"] {
        assert_eq!(
            merged[block]["Totals"]["Count"].as_u64(),
            Some(each(&files[0], block) + each(&files[1], block)),
            "{block}"
        );
        let h = common::decode_histogram(
            merged[block]["Totals"]["Compressed Histogram"]
                .as_str()
                .unwrap(),
        );
        assert_eq!(Some(h.len()), merged[block]["Totals"]["Count"].as_u64());
    }
    // Each machine offered 1000/s for a second: the merged run about 2000/s.
    let achieved = merged["achieved_ops_per_sec"].as_f64().unwrap();
    assert!((1000.0..2400.0).contains(&achieved), "{achieved}");
    assert_schema(&doc);
}

#[test]
fn several_runs_merge_run_by_run_with_best_worst_and_the_aggregate() {
    let redis = Redis::start();
    redis.reset_stats();
    let dir = TempDir::new("e2e-merge-runs");
    let mut paths = Vec::new();
    for i in 0..2 {
        let path = dir.path(&format!("runs{i}.json"));
        kvbench_ok(
            redis.port,
            &[
                "-t",
                "1",
                "-c",
                "2",
                "-n",
                "200",
                "-x",
                "2",
                "--json-out-file",
                path.to_str().unwrap(),
            ],
        );
        let mut doc = read_json(&path);
        set_shard(&mut doc, i, 2);
        write(&path, &doc);
        paths.push(path);
    }
    let out_path = dir.path("merged.json");
    let out = merge(&[
        paths[0].to_str().unwrap(),
        paths[1].to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = read_json(&out_path);
    // Two machines × two runs × 2 connections × 200 requests.
    for title in [
        "RUN #1 RESULTS",
        "RUN #2 RESULTS",
        "BEST RUN RESULTS",
        "WORST RUN RESULTS",
    ] {
        assert_eq!(doc[title]["Totals"]["Count"].as_u64(), Some(800), "{title}");
    }
    let all = &doc["AGGREGATED AVERAGE RESULTS (2 runs)"]["Totals"];
    assert_eq!(all["Count"].as_u64(), Some(1600));
    assert_eq!(
        redis.calls("set") + redis.calls("get"),
        1600,
        "the server saw what was merged"
    );
    let rates = doc["kvbench"]["variance"]["ops_per_sec"]
        .as_array()
        .unwrap();
    assert_eq!(rates.len(), 2);
    let best = doc["BEST RUN RESULTS"]["Totals"]["Ops/sec"]
        .as_f64()
        .unwrap();
    let worst = doc["WORST RUN RESULTS"]["Totals"]["Ops/sec"]
        .as_f64()
        .unwrap();
    assert!(best >= worst && worst > 0.0, "{best} {worst}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("RUN #2") && stdout.contains("2 × 1 × 2"),
        "{stdout}"
    );
    assert_schema(&doc);
}
