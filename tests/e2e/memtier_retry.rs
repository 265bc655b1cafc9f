//! memtier 2.4's `--retry-on-error`, `--max-retries`, `--retry-on` and
//! `--failed-keys-file` against a real redis-server that refuses writes on
//! demand (`maxmemory 1` with `noeviction` answers every SET `-OOM`). Every
//! send is checked against the server's own `cmdstat_set`: a refused SET is
//! one `rejected_calls`, so the server's rejected calls are kvbench's final
//! errors plus its retries, and the failed-keys file holds exactly one line
//! per final error.

use std::process::Stdio;
use std::time::Duration;

use crate::common::cluster::wait_for;
use crate::common::{
    Redis, TempDir, kvbench_at, kvbench_json, read_json, refused_before_connecting, total,
};
use kvbench::config::retry::FAILED_KEYS_HEADER;

/// `cmdstat_set`'s (calls, rejected_calls) at `redis`.
fn set_stats(redis: &Redis) -> (u64, u64) {
    let text = String::from_utf8(redis.command(&["INFO", "commandstats"])).unwrap();
    let Some(line) = text.lines().find_map(|l| l.strip_prefix("cmdstat_set:")) else {
        return (0, 0);
    };
    let field = |name: &str| -> u64 {
        line.split(',')
            .find_map(|f| f.strip_prefix(name))
            .map_or(0, |v| v.trim().parse().unwrap())
    };
    (field("calls="), field("rejected_calls="))
}

/// A server that answers every write `-OOM`.
fn full_server() -> Redis {
    Redis::start_with(&["--maxmemory", "1", "--maxmemory-policy", "noeviction"])
}

/// The failed-keys file's lines after its header, each split into its fields.
fn failed_lines(path: &std::path::Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(FAILED_KEYS_HEADER), "{text}");
    lines
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect()
}

#[test]
fn oom_replies_are_sent_again_up_to_max_retries_and_every_send_is_a_server_call() {
    let redis = full_server();
    let dir = TempDir::new("retry");
    let file = dir.path("failed.csv");
    let report = kvbench_json(
        redis.port,
        "-t 1 -c 2 -n 50 --ratio 1:0 --key-maximum 1000 --retry-on-error --max-retries 2 --allow-invalid",
        &["--failed-keys-file", file.to_str().unwrap()],
    );
    let doc = &report.doc;
    // Every SET failed after its 2 retries: 100 requests, 300 sends.
    assert_eq!(total(doc, "SET", "count"), 100);
    assert_eq!(total(doc, "SET", "errors"), 100);
    assert_eq!(total(doc, "SET", "retries"), 200);
    assert_eq!(set_stats(&redis), (0, 300));
    let lines = failed_lines(&file);
    assert_eq!(lines.len(), 100, "one line per final error");
    for fields in &lines {
        assert_eq!(fields.len(), 5, "{fields:?}");
        assert!(
            fields[0].ends_with('Z') && fields[0].len() == 27,
            "{fields:?}"
        );
        assert_eq!(fields[1], "SET");
        let key: u64 = fields[2]
            .trim_matches('"')
            .strip_prefix("memtier-")
            .unwrap()
            .parse()
            .unwrap();
        assert!((0..=1000).contains(&key), "{fields:?}");
        assert_eq!(fields[3], "\"OOM\"");
        assert_eq!(fields[4], "2");
    }
    // The server agrees: no mismatch between its calls and kvbench's sends.
    assert!(
        !report.stderr.contains("the server counted"),
        "{}",
        report.stderr
    );
}

#[test]
fn retry_on_leaves_other_kinds_alone() {
    let redis = full_server();
    let dir = TempDir::new("retry-on");
    let file = dir.path("failed.csv");
    let report = kvbench_json(
        redis.port,
        "-t 1 -c 1 -n 40 --ratio 1:0 --retry-on-error --retry-on BUSY,LOADING --allow-invalid",
        &["--failed-keys-file", file.to_str().unwrap()],
    );
    assert_eq!(total(&report.doc, "SET", "errors"), 40);
    assert_eq!(total(&report.doc, "SET", "retries"), 0);
    assert_eq!(set_stats(&redis), (0, 40));
    let lines = failed_lines(&file);
    assert_eq!(lines.len(), 40);
    assert!(lines.iter().all(|f| f[4] == "0"), "{lines:?}");
}

#[test]
fn a_retry_that_meets_a_recovered_server_succeeds_and_is_timed_from_the_first_send() {
    let redis = full_server();
    let dir = TempDir::new("retry-recover");
    let (json, file) = (dir.path("r.json"), dir.path("failed.csv"));
    let child = kvbench_at(redis.port)
        .args(["-t", "1", "-c", "2", "-n", "100", "--ratio", "1:0"])
        .args(["--retry-on-error", "--max-retries", "-1"])
        .args(["--failed-keys-file", file.to_str().unwrap()])
        .args(["--json-out-file", json.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first requests are refused and retried without limit until the
    // server has room again.
    wait_for(
        Duration::from_secs(60),
        || set_stats(&redis).1 >= 200,
        "200 refused SETs",
    );
    assert_eq!(redis.command(&["CONFIG", "SET", "maxmemory", "0"]), b"OK");
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = read_json(&json);
    let (calls, rejected) = set_stats(&redis);
    // Each request counts once, at its successful reply; each refused send
    // is one of kvbench's retries.
    assert_eq!(total(&doc, "SET", "count"), 200);
    assert_eq!(total(&doc, "SET", "errors"), 0);
    assert_eq!(calls, 200);
    assert_eq!(total(&doc, "SET", "retries"), rejected);
    assert!(rejected >= 200, "{rejected}");
    assert!(failed_lines(&file).is_empty());
    // One connection sent at least 100 of the refused SETs for its first
    // request, one round trip each: timed from its first send, that request
    // took at least 100 of the round trips its fastest reply took once.
    let row = &doc["ALL STATS"]["Sets"];
    let max_ms = row["Max Latency"].as_f64().unwrap();
    let min_ms = row["Min Latency"].as_f64().unwrap();
    assert!(max_ms >= 50.0 * min_ms, "max {max_ms} ms, min {min_ms} ms");
}

#[test]
fn a_file_kvbench_did_not_write_is_refused_before_connecting() {
    let redis = Redis::start();
    let dir = TempDir::new("retry-foreign");
    let file = dir.path("notes.csv");
    std::fs::write(&file, "my notes\n").unwrap();
    let stderr = refused_before_connecting(
        &redis,
        ["-n", "10", "--failed-keys-file", file.to_str().unwrap()],
    );
    assert!(stderr.contains("--failed-keys-file"), "{stderr}");
    assert!(stderr.contains("not written by kvbench"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "my notes\n");
    let stderr = refused_before_connecting(&redis, ["-n", "10", "--retry-on", "OOM"]);
    assert!(stderr.contains("--retry-on-error"), "{stderr}");
}

#[test]
fn paced_retries_wait_their_backoff_growing_by_the_factor() {
    let redis = full_server();
    let dir = TempDir::new("retry-paced");
    let file = dir.path("failed.csv");
    let report = kvbench_json(
        redis.port,
        "-t 1 -c 1 -n 5 --ratio 1:0 --retry-on-error --max-retries 2 --retry-backoff-ms 200 --retry-backoff-factor 3 --allow-invalid",
        &["--failed-keys-file", file.to_str().unwrap()],
    );
    let doc = &report.doc;
    assert_eq!(total(doc, "SET", "count"), 5);
    assert_eq!(total(doc, "SET", "errors"), 5);
    assert_eq!(total(doc, "SET", "retries"), 10);
    assert_eq!(set_stats(&redis), (0, 15));
    let lines = failed_lines(&file);
    assert_eq!(lines.len(), 5);
    assert!(lines.iter().all(|f| f[4] == "2"), "{lines:?}");
    // Each request waited 200 ms before its first retry and 600 ms before its
    // second: timed from its first send, none took less than 800 ms (an
    // unpaced retry of a local server takes well under a millisecond). The
    // minimum is read from the histogram, whose 3 significant digits put
    // 800.0 ms in a bucket that starts at 799.744 ms: 0.1 % is allowed.
    let row = &doc["ALL STATS"]["Sets"];
    let min_ms = row["Min Latency"].as_f64().unwrap();
    let max_ms = row["Max Latency"].as_f64().unwrap();
    assert!(min_ms >= 800.0 * 0.999, "min {min_ms} ms");
    assert!(max_ms < 60_000.0, "max {max_ms} ms");
}

#[test]
fn new_requests_go_on_while_a_retry_waits_and_a_full_retry_queue_makes_errors_final() {
    let redis = full_server();
    let dir = TempDir::new("retry-queue");
    let file = dir.path("failed.csv");
    // One connection, one request in flight: the first SET's retry waits 2 s
    // in a queue of one; the next three SETs go out meanwhile, find the
    // queue full, and fail at once. The waiting one is retried twice.
    let report = kvbench_json(
        redis.port,
        "-t 1 -c 1 -n 4 --pipeline 1 --ratio 1:0 --retry-on-error --max-retries 2 --retry-backoff-ms 2000 --max-retry-queue 1 --allow-invalid",
        &["--failed-keys-file", file.to_str().unwrap()],
    );
    let doc = &report.doc;
    assert_eq!(total(doc, "SET", "count"), 4);
    assert_eq!(total(doc, "SET", "errors"), 4);
    assert_eq!(total(doc, "SET", "retries"), 2);
    assert_eq!(set_stats(&redis), (0, 6));
    let mut retries: Vec<String> = failed_lines(&file)
        .into_iter()
        .map(|f| f[4].clone())
        .collect();
    retries.sort();
    assert_eq!(retries, ["0", "0", "0", "2"]);
}

#[test]
fn pacing_flags_are_checked_before_connecting() {
    let redis = Redis::start();
    for (args, flag) in [
        (
            &["-n", "10", "--retry-backoff-ms", "5"][..],
            "--retry-on-error",
        ),
        (
            &[
                "-n",
                "10",
                "--retry-on-error",
                "--retry-backoff-factor",
                "2",
            ][..],
            "--retry-backoff-ms",
        ),
        (
            &["-n", "10", "--retry-on-error", "--retry-backoff-ms", "-1"][..],
            "--retry-backoff-ms",
        ),
        (
            &[
                "-n",
                "10",
                "--retry-on-error",
                "--retry-backoff-ms",
                "5",
                "--retry-backoff-factor",
                "0.5",
            ][..],
            "--retry-backoff-factor",
        ),
        (
            &["-n", "10", "--retry-on-error", "--max-retry-queue", "0"][..],
            "--max-retry-queue",
        ),
    ] {
        let stderr = refused_before_connecting(&redis, args.iter().copied());
        assert!(stderr.contains(flag), "{args:?}: {stderr}");
    }
}
