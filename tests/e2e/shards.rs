//! Shards against a real redis-server: concurrent kvbench processes with
//! `--shard-count`/`--shard-index` and one `--start-at` run the same windows
//! and together send exactly what the server counted; a range split over
//! shards is written once; the identity is read from a launcher's
//! environment; `--rate` is shared out; a start in the past, or reached
//! too late, is refused.

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;
use crate::common::launch::{epoch_in, wait_ok};
use crate::common::{
    Redis, TempDir, f, kvbench_at, read_json, refused_before_connecting, total, u,
};

/// Starts shard `index` of `count` against `redis` with `args`.
fn spawn_shard(redis: &Redis, index: u32, count: u32, args: &[&str]) -> Child {
    kvbench_at(redis.port)
        .args(["--shard-count", &count.to_string()])
        .args(["--shard-index", &index.to_string()])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Asserts that `doc` matches docs/output.schema.json.
fn assert_schema_valid(doc: &Value, what: &str) {
    let schema: Value =
        serde_json::from_str(include_str!("../../docs/output.schema.json")).unwrap();
    assert_valid_against(&schema, doc, what);
}

/// Asserts that `shard` matches the schema's `shard` definition.
fn assert_shard_valid(shard: &Value, what: &str) {
    let mut schema: Value =
        serde_json::from_str(include_str!("../../docs/output.schema.json")).unwrap();
    schema["oneOf"] = serde_json::json!([{"$ref": "#/$defs/shard"}]);
    assert_valid_against(&schema, shard, what);
}

fn assert_valid_against(schema: &Value, doc: &Value, what: &str) {
    let validator = jsonschema::validator_for(schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{what}: {}", errors.join("\n"));
}

fn shard_object(doc: &Value) -> &Value {
    &doc["kvbench"]["shard"]
}

#[test]
fn three_aligned_shards_cover_the_same_window_and_sum_to_the_servers_count() {
    let redis = Redis::start();
    redis.reset_stats();
    let dir = TempDir::new("shards");
    let pattern = dir.path("shard-{shard}.json");
    let at = epoch_in(Duration::from_secs(3));
    let at_text = format!("{at:.3}");
    let args = [
        "-t",
        "1",
        "-c",
        "2",
        "--ratio",
        "1:1",
        "--key-maximum",
        "1000",
        "--seed",
        "11",
        "--test-time",
        "2",
        "--start-at",
        &at_text,
        "--json-out-file",
        pattern.to_str().unwrap(),
    ];
    let children: Vec<Child> = (0..3).map(|i| spawn_shard(&redis, i, 3, &args)).collect();
    for (i, child) in children.into_iter().enumerate() {
        wait_ok(child, &format!("shard {i}"));
    }
    let docs: Vec<Value> = (0..3)
        .map(|i| read_json(&dir.path(&format!("shard-{i}.json"))))
        .collect();
    let starts: Vec<u64> = docs
        .iter()
        .map(|d| u(&d["kvbench"]["runs"][0]["start_time_ms"]))
        .collect();
    let (first, last) = (starts.iter().min().unwrap(), starts.iter().max().unwrap());
    assert!(
        last - first <= 50,
        "run starts {starts:?} are more than 50 ms apart"
    );
    let planned_ms = (at * 1000.0).round() as u64;
    for (i, doc) in docs.iter().enumerate() {
        assert_schema_valid(doc, &format!("shard {i}"));
        let shard = shard_object(doc);
        assert_eq!(u(&shard["index"]), i as u64, "{shard}");
        assert_eq!(u(&shard["count"]), 3, "{shard}");
        assert_eq!(shard["source"], "flags", "{shard}");
        assert!(
            shard["host"].as_str().is_some_and(|h| !h.is_empty()),
            "{shard}"
        );
        assert!(
            u(&shard["start_at_ms"]).abs_diff(planned_ms) <= 1,
            "{shard}"
        );
        let lag = f(&shard["start_lag_ms"]);
        assert!(
            (0.0..1000.0).contains(&lag),
            "lag {lag} within the tolerance"
        );
        assert_eq!(lag, f(&doc["kvbench"]["runs"][0]["start_lag_ms"]));
        assert!(shard["late"].is_null(), "{shard}");
        // The server is on this machine: its clock is this clock.
        let clock = &shard["clock"];
        assert_eq!(u(&clock["samples"]), 8, "{clock}");
        for key in ["offset_start_ms", "offset_end_ms"] {
            assert!(f(&clock[key]).abs() < 50.0, "{key} in {clock}");
        }
        assert!((0.0..50.0).contains(&f(&clock["rtt_ms"])), "{clock}");
        assert!(
            starts[i] >= planned_ms && starts[i] < planned_ms + 1000,
            "shard {i} started at {} for {planned_ms}",
            starts[i]
        );
        assert!(total(doc, "SET", "count") > 0, "shard {i} sent SETs");
    }
    let sum = |op: &str| docs.iter().map(|d| total(d, op, "count")).sum::<u64>();
    assert_eq!(sum("SET"), redis.calls("set"));
    assert_eq!(sum("GET"), redis.calls("get"));
}

#[test]
fn an_allkeys_walk_split_over_three_shards_writes_every_key_once() {
    let redis = Redis::start();
    redis.reset_stats();
    let args = [
        "-t",
        "2",
        "-c",
        "3",
        "-n",
        "allkeys",
        "--key-pattern",
        "P:P",
        "--ratio",
        "1:0",
        "--key-minimum",
        "1",
        "--key-maximum",
        "3001",
    ];
    let children: Vec<Child> = (0..3).map(|i| spawn_shard(&redis, i, 3, &args)).collect();
    for (i, child) in children.into_iter().enumerate() {
        wait_ok(child, &format!("shard {i}"));
    }
    assert_eq!(redis.dbsize(), 3001);
    assert_eq!(redis.calls("set"), 3001);
    // --prefill splits the same way: each key once, however many shards.
    redis.command(&["FLUSHALL"]);
    redis.reset_stats();
    let prefill = [
        "-t",
        "1",
        "-c",
        "2",
        "--prefill",
        "--ratio",
        "0:1",
        "-n",
        "5",
        "--key-maximum",
        "999",
    ];
    let children: Vec<Child> = (0..3)
        .map(|i| spawn_shard(&redis, i, 3, &prefill))
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        wait_ok(child, &format!("prefill shard {i}"));
    }
    assert_eq!(redis.dbsize(), 1000);
    assert_eq!(redis.calls("set"), 1000);
    assert_eq!(redis.calls("get"), 3 * 2 * 5);
}

#[test]
fn a_kubernetes_index_from_the_environment_names_the_shard_and_its_file() {
    let redis = Redis::start();
    let dir = TempDir::new("k8s");
    let pattern = dir.path("r-{shard}.json");
    let out = kvbench_at(redis.port)
        .args(["-t", "1", "-c", "1", "-n", "50", "--json-out-file"])
        .arg(&pattern)
        .env("JOB_COMPLETION_INDEX", "1")
        .env("KVBENCH_SHARD_COUNT", "2")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !dir.path("r-{shard}.json").exists(),
        "the placeholder was filled"
    );
    let doc = read_json(&dir.path("r-1.json"));
    assert_schema_valid(&doc, "a Kubernetes shard");
    let shard = shard_object(&doc);
    assert_eq!(u(&shard["index"]), 1, "{shard}");
    assert_eq!(u(&shard["count"]), 2, "{shard}");
    assert_eq!(shard["source"], "kubernetes", "{shard}");
    assert!(
        shard["start_at_ms"].is_null() && shard["start_lag_ms"].is_null(),
        "{shard}"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Shard: 1 of 2 (kubernetes), host "), "{text}");
}

#[test]
fn a_start_in_the_past_is_refused_before_connecting() {
    let redis = Redis::start();
    let stderr = refused_before_connecting(
        &redis,
        ["--start-at", "2020-01-01T00:00:00Z", "--test-time", "1"],
    );
    assert!(
        stderr.contains("--start-at") && stderr.contains("in the past"),
        "{stderr}"
    );
}

#[test]
fn a_shard_that_reaches_its_start_too_late_writes_its_report_and_exits_4() {
    let redis = Redis::start();
    let dir = TempDir::new("late");
    let json = dir.path("r.json");
    // Every client's commands wait 2 s, the preflight's too: the shard
    // reaches its start (0.5 s from now) about 1.5 s late.
    let pause = redis.command(&["CLIENT", "PAUSE", "2000", "ALL"]);
    assert_eq!(pause, b"OK");
    let out = kvbench_at(redis.port)
        .args([
            "-t",
            "1",
            "-c",
            "1",
            "--test-time",
            "1",
            "--start-at",
            "+0.5s",
        ])
        .args(["--start-tolerance", "0.3", "--json-out-file"])
        .arg(&json)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("--start-tolerance"), "{stderr}");
    let doc = read_json(&json);
    // A report without a single phase has no totals; its shard object is whole.
    assert_shard_valid(shard_object(&doc), "a late shard");
    let late = &shard_object(&doc)["late"];
    assert_eq!(late["phase"], "RUN #1", "{late}");
    assert!(f(&late["lag_ms"]) > 300.0, "{late}");
    assert_eq!(doc["kvbench"]["runs"].as_array().map(Vec::len), Some(0));
    assert_eq!(doc["kvbench"]["complete"], false);
}

#[test]
fn an_interrupt_while_waiting_for_the_start_ends_at_once() {
    let redis = Redis::start();
    let began = Instant::now();
    let mut child = kvbench_at(redis.port)
        .args([
            "-t",
            "1",
            "-c",
            "1",
            "--test-time",
            "1",
            "--start-at",
            "+60s",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once its connection is up, it is waiting.
    while common::info_u64(redis.port, "clients", "connected_clients") < 3 {
        assert!(child.try_wait().unwrap().is_none(), "kvbench ended early");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill(2) on the pid of our own child, which has not been waited for.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        began.elapsed() < Duration::from_secs(30),
        "it waited for the start"
    );
    // It said what it waited for, and what the signal cut short.
    assert!(
        stderr.contains("for the planned start of RUN #1 (--start-at)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("interrupted by signal 2 while waiting for the planned start"),
        "{stderr}"
    );
    assert!(!stderr.contains("while connecting"), "{stderr}");
}

#[test]
fn the_rate_is_the_total_of_all_shards() {
    let redis = Redis::start();
    redis.reset_stats();
    let dir = TempDir::new("rate");
    let pattern = dir.path("r-{shard}.json");
    let at = format!("{:.3}", epoch_in(Duration::from_secs(2)));
    let args = [
        "-t",
        "1",
        "-c",
        "2",
        "--ratio",
        "1:1",
        "--rate",
        "400",
        "--test-time",
        "2",
        "--start-at",
        &at,
        "--json-out-file",
        pattern.to_str().unwrap(),
    ];
    let children: Vec<Child> = (0..2).map(|i| spawn_shard(&redis, i, 2, &args)).collect();
    for (i, child) in children.into_iter().enumerate() {
        wait_ok(child, &format!("shard {i}"));
    }
    let mut sent = 0;
    for i in 0..2 {
        let doc = read_json(&dir.path(&format!("r-{i}.json")));
        assert_eq!(
            f(&doc["kvbench"]["config"]["rate_ops_per_sec"]),
            200.0,
            "shard {i}'s share"
        );
        let count = total(&doc, "SET", "count") + total(&doc, "GET", "count");
        // 200 per second for 2 s: never more (give or take a request per
        // connection), and less only by what a busy machine left unsent.
        assert!((300..=404).contains(&count), "shard {i} sent {count}");
        sent += count;
    }
    assert_eq!(sent, redis.calls("set") + redis.calls("get"));
}
