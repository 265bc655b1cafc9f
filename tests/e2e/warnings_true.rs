//! Each warning says only what is true of the run that raised it, against
//! real servers: `fsync_always` needs the append-only file on as well as
//! `appendfsync always`; `gets_mostly_miss` gives the share that missed and
//! says "most" only when most did; in `kvbench suite` it advises what the
//! suite accepts (no `--prefill`); after Ctrl-C the text report names the
//! exit code the process really ends with, and a run cut short although its
//! `--test-time` was long enough draws no `short_run` advice.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use crate::common::{Redis, TempDir, info_u64, kvbench_at, read_json, wait_for_traffic};
use serde_json::Value;

/// The warnings of this kind in a report.
fn of_kind<'a>(doc: &'a Value, kind: &str) -> Vec<&'a Value> {
    doc["kvbench"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == kind)
        .collect()
}

/// The message of the one warning of this kind.
fn message<'a>(doc: &'a Value, kind: &str) -> &'a str {
    let found = of_kind(doc, kind);
    assert_eq!(found.len(), 1, "{kind}: {}", doc["kvbench"]["warnings"]);
    found[0]["message"].as_str().unwrap()
}

#[test]
fn fsync_always_is_said_only_when_the_append_only_file_is_on() {
    let args = "-t 1 -c 1 --key-maximum 5000 -n 100 --ratio 1:0";
    // appendfsync does nothing while appendonly is no.
    let off = Redis::start_with(&["--appendonly", "no", "--appendfsync", "always"]);
    let run = off.kvbench_json(args);
    assert_eq!(info_u64(off.port, "persistence", "aof_enabled"), 0);
    assert_eq!(run.doc["kvbench"]["server"]["appendfsync"], "always");
    assert_eq!(run.doc["kvbench"]["server"]["appendonly"], false);
    assert!(
        of_kind(&run.doc, "fsync_always").is_empty(),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("every write waits for the disk"),
        "{}",
        run.stderr
    );

    let on = Redis::start_with(&["--appendonly", "yes", "--appendfsync", "always"]);
    let run = on.kvbench_json(args);
    assert_eq!(info_u64(on.port, "persistence", "aof_enabled"), 1);
    assert_eq!(run.doc["kvbench"]["server"]["appendonly"], true);
    assert!(message(&run.doc, "fsync_always").contains("appendfsync always"));
}

#[test]
fn a_hit_rate_of_84_percent_says_16_percent_missed_not_most() {
    let redis = Redis::start();
    // Keys 1..=840 written once each, then one GET of each of 1..=1000.
    redis.kvbench_json(
        "-t 1 -c 1 --ratio 1:0 --key-pattern S:S --key-minimum 1 --key-maximum 840 -n 840",
    );
    assert_eq!(redis.dbsize(), 840);
    let run = redis.kvbench_json(
        "-t 1 -c 1 --ratio 0:1 --key-pattern S:S --key-minimum 1 --key-maximum 1000 -n 1000",
    );
    assert_eq!(info_u64(redis.port, "stats", "keyspace_hits"), 840);
    assert_eq!(info_u64(redis.port, "stats", "keyspace_misses"), 160);
    let m = message(&run.doc, "gets_mostly_miss");
    assert!(!m.contains("most"), "16 % is not most: {m}");
    assert!(m.starts_with("the GET hit rate is 84.00 %"), "{m}");
    assert!(
        m.contains("16.00 % of GETs asked for keys nobody wrote"),
        "{m}"
    );
    assert!(m.contains("--prefill"), "{m}");
}

/// `kvbench suite -p port` with `args`.
fn suite(port: u16, args: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(["suite", "-p", &port.to_string()])
        .args(args.split_whitespace())
        .env_remove("KVBENCH_AUTH")
        .output()
        .unwrap()
}

#[test]
fn the_suites_miss_advice_names_what_the_suite_accepts() {
    let redis = Redis::start();
    let out = suite(redis.port, "-t get -r 1000 -n 200 -c 1 -q");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(info_u64(redis.port, "stats", "keyspace_misses"), 200);
    let line = stderr
        .lines()
        .find(|l| l.contains("[GET] the GET hit rate is"))
        .unwrap_or_else(|| panic!("no miss warning in {stderr}"));
    assert!(
        !line.contains("--prefill"),
        "suite takes no --prefill: {line}"
    );
    assert!(line.contains("-t set,get"), "{line}");
    assert!(line.contains("0.00 %: most GETs (100.00 %)"), "{line}");
    // The suite refuses --prefill, and the advice it gives works: SET with
    // -n 3 × -r writes about 95 % of the keys before GET reads them.
    let rejected = suite(redis.port, "--prefill -t get");
    assert_eq!(rejected.status.code(), Some(2));
    let fresh = Redis::start();
    let out = suite(fresh.port, "-t set,get -r 1000 -n 3000 -c 1 -q");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let hits = info_u64(fresh.port, "stats", "keyspace_hits");
    assert!((2700..3000).contains(&hits), "{hits} of 3000 GETs hit");
    assert!(!stderr.contains("hit rate"), "{stderr}");
}

fn spawn(port: u16, test_time: &str, json: &Path) -> Child {
    kvbench_at(port)
        .args([
            "-t",
            "1",
            "-c",
            "2",
            "--rate",
            "500",
            "--test-time",
            test_time,
        ])
        .arg("--json-out-file")
        .arg(json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// SIGINT once the run is under way; what kvbench left.
fn cut(redis: &Redis, mut child: Child) -> Output {
    wait_for_traffic(redis.port, &mut child);
    // SAFETY: kill(2) on the pid of our own child, which has not been waited for.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    child.wait_with_output().unwrap()
}

#[test]
fn after_ctrl_c_the_report_names_the_exit_code_130_it_ends_with() {
    let redis = Redis::start();
    let dir = TempDir::new("cut-code");
    let out = cut(&redis, spawn(redis.port, "10", &dir.path("r.json")));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{stdout}");
    assert!(
        stdout.contains(
            "INVALID RESULT: these numbers do not measure the workload asked for (exit code 130)"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("exit code 3"), "{stdout}");
}

#[test]
fn a_run_cut_short_draws_the_short_run_advice_only_when_its_plan_was_short() {
    let redis = Redis::start();
    let dir = TempDir::new("cut-short-run");
    let json = dir.path("long.json");
    let out = cut(&redis, spawn(redis.port, "10", &json));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{stdout}");
    let doc = read_json(&json);
    let secs = doc["kvbench"]["runs"][0]["duration_ms"].as_f64().unwrap() / 1000.0;
    assert!(secs > 0.0 && secs < 10.0, "cut at {secs} s");
    assert!(
        of_kind(&doc, "short_run").is_empty(),
        "{}",
        doc["kvbench"]["warnings"]
    );
    assert!(!stdout.contains("--test-time 10 or more"), "{stdout}");

    // A plan shorter than 10 s keeps the advice, cut or not (the counts
    // start again, so that the wait sees this run's traffic).
    redis.reset_stats();
    let json = dir.path("short.json");
    let out = cut(&redis, spawn(redis.port, "4", &json));
    assert_eq!(out.status.code(), Some(130));
    let doc = read_json(&json);
    assert!(message(&doc, "short_run").contains("--test-time 10 or more"));
}
