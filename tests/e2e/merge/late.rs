//! `--allow-partial` skips a shard that missed the start. One shard of three
//! is stopped (SIGSTOP) while it waits for the planned start and continued
//! after it: beyond `--start-tolerance` it writes a report marked late and
//! exits 4, which `kvbench merge` refuses by name and `--allow-partial`
//! leaves out; within the tolerance but beyond `--max-skew` it runs late,
//! and `--allow-partial --max-skew` leaves it out too. The other two merge
//! into the server's own counts.

use std::path::PathBuf;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{assert_schema, merge, refused};
use crate::common::launch::{epoch_in, wait_ok};
use crate::common::{Redis, TempDir, info_u64, kvbench_at, read_json, total};

/// A set of three shards whose shard 2 was stopped from before the planned
/// start until the others ended; its files and shard 2's output.
struct Stalled {
    files: Vec<PathBuf>,
    late: Output,
}

fn signal(child: &Child, signal: libc::c_int) {
    // SAFETY: kill(2) on the pid of our own child, which has not been waited for.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
}

/// Runs the set against `redis` with `--start-tolerance tolerance`; shard 2
/// is continued once the others have ended, at least their 2 s run after
/// the planned start.
fn stalled_set(redis: &Redis, dir: &TempDir, tolerance: &str) -> Stalled {
    let start = epoch_in(Duration::from_secs(4));
    let start_arg = format!("{start:.3}");
    let files: Vec<PathBuf> = (0..3).map(|i| dir.path(&format!("s{i}.json"))).collect();
    let launch = |i: usize| {
        kvbench_at(redis.port)
            .args(["-t", "1", "-c", "1", "--test-time", "2", "--ratio", "1:1"])
            .args(["--key-maximum", "1000", "--start-at", &start_arg])
            .args(["--start-tolerance", tolerance])
            .args(["--shard-count", "3", "--shard-index", &i.to_string()])
            .arg("--json-out-file")
            .arg(&files[i])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let before = info_u64(redis.port, "clients", "connected_clients");
    let stalled = launch(2);
    // Once its worker is connected, it has passed every check made before
    // connecting and is on its way to the wait: stop it there.
    let deadline = Instant::now() + Duration::from_secs(60);
    while info_u64(redis.port, "clients", "connected_clients") < before + 2 {
        assert!(Instant::now() < deadline, "shard 2 never connected");
        std::thread::sleep(Duration::from_millis(10));
    }
    signal(&stalled, libc::SIGSTOP);
    let others: Vec<Child> = (0..2).map(launch).collect();
    for (i, c) in others.into_iter().enumerate() {
        wait_ok(c, &format!("shard {i}"));
    }
    signal(&stalled, libc::SIGCONT);
    let late = stalled.wait_with_output().unwrap();
    Stalled { files, late }
}

fn args(files: &[PathBuf]) -> Vec<&str> {
    files.iter().map(|p| p.to_str().unwrap()).collect()
}

fn warning<'a>(doc: &'a Value, kind: &str) -> Vec<&'a str> {
    doc["kvbench"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == kind)
        .map(|w| w["message"].as_str().unwrap())
        .collect()
}

/// Merges `files` with `--allow-partial` and `extra`: exit 3 (a partial
/// set's verdict is not valid), shard 2 skipped by name; the merged file.
fn merged_without_shard_2(dir: &TempDir, files: &[PathBuf], extra: &[&str]) -> Value {
    let out_path = dir.path("merged.json");
    let mut full = args(files);
    full.extend(["--allow-partial", "-o", out_path.to_str().unwrap()]);
    full.extend(extra);
    let out = merge(&full);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("s2.json (shard 2) skipped (--allow-partial)"),
        "{stderr}"
    );
    let doc = read_json(&out_path);
    assert_schema(&doc);
    let merged = &doc["kvbench"]["merged"];
    assert_eq!(merged["partial"], true, "{merged}");
    assert_eq!(merged["missing"], serde_json::json!([2]), "{merged}");
    let skipped = warning(&doc, "shard_skipped");
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(skipped[0].contains("s2.json"), "{skipped:?}");
    doc
}

/// The merged counts are shards 0 and 1's, and the server's own.
fn counts_are_the_two_shards(redis: &Redis, files: &[PathBuf], doc: &Value) {
    for op in ["SET", "GET"] {
        let merged = total(doc, op, "count");
        let shards: u64 = files[..2]
            .iter()
            .map(|f| total(&read_json(f), op, "count"))
            .sum();
        assert_eq!(merged, shards, "{op}");
        assert!(merged > 0, "{op}");
    }
    let server = redis.calls("set") + redis.calls("get");
    assert_eq!(
        total(doc, "SET", "count") + total(doc, "GET", "count"),
        server,
        "the server's calls"
    );
}

#[test]
fn a_shard_that_missed_the_start_is_refused_and_skipped_with_allow_partial() {
    let redis = Redis::start();
    let dir = TempDir::new("merge-late");
    // Continued after the others ended: seconds beyond the 0.3 s tolerance.
    let set = stalled_set(&redis, &dir, "0.3");
    let stderr = String::from_utf8_lossy(&set.late.stderr);
    assert_eq!(set.late.status.code(), Some(4), "{stderr}");
    let late = read_json(&set.files[2]);
    assert_eq!(late["kvbench"]["shard"]["late"]["phase"], "RUN #1");
    assert_eq!(late["kvbench"]["runs"].as_array().map(Vec::len), Some(0));

    let out = merge(&args(&set.files));
    refused(&out, "s2.json", "--allow-partial");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("RUN #1") && stderr.contains("late"),
        "{stderr}"
    );

    let doc = merged_without_shard_2(&dir, &set.files, &[]);
    counts_are_the_two_shards(&redis, &set.files, &doc);
}

#[test]
fn a_shard_outside_max_skew_is_skipped_with_allow_partial() {
    let redis = Redis::start();
    let dir = TempDir::new("merge-skewed");
    // Continued after the others' 2 s run: late, but within the 60 s
    // tolerance, so it runs its whole window after theirs.
    let set = stalled_set(&redis, &dir, "60");
    let stderr = String::from_utf8_lossy(&set.late.stderr);
    assert!(set.late.status.success(), "{stderr}");
    let lag = read_json(&set.files[2])["kvbench"]["shard"]["start_lag_ms"]
        .as_f64()
        .unwrap();
    assert!((1500.0..60_000.0).contains(&lag), "{lag}");

    let mut full = args(&set.files);
    full.extend(["--max-skew", "0.5"]);
    refused(&merge(&full), "--max-skew", "ms apart");

    let doc = merged_without_shard_2(&dir, &set.files, &["--max-skew", "0.5"]);
    let skipped = warning(&doc, "shard_skipped");
    assert!(skipped[0].contains("--max-skew 0.5"), "{skipped:?}");
    let spread = doc["kvbench"]["merged"]["start_skew_ms"].as_f64().unwrap();
    assert!((0.0..500.0).contains(&spread), "{spread}");
    // The server also counted shard 2's late window: only the two shards'
    // counts are in the merge.
    for op in ["SET", "GET"] {
        let merged = total(&doc, op, "count");
        let shards: u64 = set.files[..2]
            .iter()
            .map(|f| total(&read_json(f), op, "count"))
            .sum();
        assert_eq!(merged, shards, "{op}");
        assert!(merged > 0, "{op}");
    }
}
