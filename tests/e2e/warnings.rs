//! Each trap warning fires in a run built to fall into it and stays silent in a
//! run that avoids it, and every warning reads the same in the JSON, the text
//! report and on stderr. The server's own counters (INFO, DBSIZE, commandstats)
//! confirm that each triggering run really fell into its trap.
//!
//! `same_machine` fires in every test here (the servers are on loopback), so it
//! has no silent counterpart; `rate_not_met` is covered by tests/e2e/rate.rs.

use std::process::{Child, Stdio};

use crate::common;
use crate::common::{
    Redis, TempDir, assert_success, f, info_u64, kvbench_at, read_json, u, wait_for_traffic,
    warning_kinds,
};
use serde_json::Value;

/// Starts kvbench in the background, so the test can act on the server during
/// the run; [`finish`] collects it.
fn spawn_json(redis: &Redis, args: &str, dir: &TempDir) -> Child {
    kvbench_at(redis.port)
        .args(args.split_whitespace())
        .args(["--json-out-file", dir.path("r.json").to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kvbench")
}

fn finish(child: Child, dir: &TempDir) -> Value {
    let out = child.wait_with_output().unwrap();
    assert_success(&out, "in the background");
    read_json(&dir.path("r.json"))
}

/// The message of the warning of this kind; panics when it is absent.
fn message<'a>(doc: &'a Value, kind: &str) -> &'a str {
    doc["kvbench"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} warning in {}", doc["kvbench"]["warnings"]))["message"]
        .as_str()
        .unwrap()
}

fn assert_fires(doc: &Value, kind: &str) {
    assert!(
        warning_kinds(doc).contains(&kind),
        "expected a {kind} warning: {}",
        doc["kvbench"]["warnings"]
    );
}

fn assert_silent(doc: &Value, kind: &str) {
    assert!(
        !warning_kinds(doc).contains(&kind),
        "unexpected {kind} warning: {}",
        doc["kvbench"]["warnings"]
    );
}

/// The first number in `text` after `after`.
fn number_after(text: &str, after: &str) -> f64 {
    let rest = &text[text
        .find(after)
        .unwrap_or_else(|| panic!("no {after:?} in {text:?}"))
        + after.len()..];
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {after:?} in {text:?}"))
}

#[test]
fn every_warning_reads_the_same_in_the_json_the_text_and_on_stderr() {
    let redis = Redis::start();
    let run = redis.kvbench_json("-t 1 -c 1 --key-minimum 1 --key-maximum 10 -n 100 --ratio 0:1");
    let warnings = run.doc["kvbench"]["warnings"].as_array().unwrap();
    // A tiny range, GETs that all miss, a short run, a loopback server.
    assert!(warnings.len() >= 4, "{warnings:?}");
    for w in warnings {
        let m = w["message"].as_str().unwrap();
        assert!(
            run.stdout.contains(&format!("Warning: {m}\n")),
            "text lacks {m:?}"
        );
        assert!(
            run.stderr.contains(&format!("kvbench: warning: {m}\n")),
            "stderr lacks {m:?}"
        );
    }
    assert_eq!(run.stdout.matches("\nWarning: ").count(), warnings.len());
    assert_eq!(
        run.stderr.matches("kvbench: warning: ").count(),
        warnings.len()
    );
}

#[test]
fn same_machine_fires_for_a_loopback_server() {
    // No silent counterpart: every server these tests can start is local.
    let redis = Redis::start();
    let run = redis.kvbench_json("-t 1 -c 1 --key-maximum 5000 -n 20");
    let m = message(&run.doc, "same_machine");
    assert!(
        m.contains(&format!("127.0.0.1:{}", redis.port)),
        "the warning names another target: {m}"
    );
}

#[test]
fn key_range_too_small_fires_for_ten_keys_and_not_for_a_hundred_thousand() {
    let redis = Redis::start();
    let tiny = redis.kvbench_json("-t 1 -c 2 --key-minimum 1 --key-maximum 10 -n 100 --ratio 1:0");
    assert!(
        redis.dbsize() <= 10,
        "the run wrote more keys than its range"
    );
    let m = message(&tiny.doc, "key_range_too_small");
    assert!(m.contains("only 10 keys for 200 requests"), "{m}");

    let redis = Redis::start();
    let wide =
        redis.kvbench_json("-t 1 -c 2 --key-minimum 1 --key-maximum 100000 -n 100 --ratio 1:0");
    assert!(redis.dbsize() > 10);
    assert_silent(&wide.doc, "key_range_too_small");
}

#[test]
fn gets_mostly_miss_fires_on_an_empty_server_and_not_after_prefill() {
    let args = "-t 1 -c 1 --key-minimum 1 --key-maximum 2000 -n 200 --ratio 0:1";
    let redis = Redis::start();
    let empty = redis.kvbench_json(args);
    assert_eq!(info_u64(redis.port, "stats", "keyspace_hits"), 0);
    assert_eq!(info_u64(redis.port, "stats", "keyspace_misses"), 200);
    let m = message(&empty.doc, "gets_mostly_miss");
    assert!(
        m.contains("the GET hit rate is 0.00 %: most GETs (100.00 %)"),
        "{m}"
    );
    assert!(m.contains("--prefill"), "the advice names the fix: {m}");

    let redis = Redis::start();
    let filled = redis.kvbench_json(&format!("{args} --prefill"));
    assert_eq!(info_u64(redis.port, "stats", "keyspace_misses"), 0);
    assert_eq!(f(&filled.doc["kvbench"]["hit_rate_percent"]), 100.0);
    assert_silent(&filled.doc, "gets_mostly_miss");
}

#[test]
fn gets_mostly_miss_fires_when_evictions_undo_the_prefill() {
    let redis = Redis::start_with(&["--maxmemory", "2mb", "--maxmemory-policy", "allkeys-lru"]);
    let run = redis.kvbench_json(
        "-t 1 -c 1 --key-minimum 1 --key-maximum 20000 -d 1024 --prefill --ratio 0:1 -n 300",
    );
    // The witness: the server threw keys away, so some GETs missed.
    assert!(info_u64(redis.port, "stats", "evicted_keys") > 0);
    assert!(redis.dbsize() < 20000);
    assert!(f(&run.doc["kvbench"]["hit_rate_percent"]) < 100.0);
    let m = message(&run.doc, "gets_mostly_miss");
    assert!(
        m.contains("although --prefill wrote the whole range"),
        "{m}"
    );
    assert_fires(&run.doc, "dataset_too_large");
}

#[test]
fn gets_mostly_miss_in_a_prefilled_sweep_knows_every_cell_was_prefilled() {
    // A sweep fills the range once, before the first cell, for every cell: when
    // evictions undo it, each cell's warning must say so rather than advise the
    // --prefill that was given.
    let redis = Redis::start_with(&["--maxmemory", "2mb", "--maxmemory-policy", "allkeys-lru"]);
    let run = redis.kvbench_json(
        "-t 1 -c 1 --key-minimum 1 --key-maximum 20000 -d 1024 --prefill --ratio 0:1 -n 300 \
         --pipeline 1,4",
    );
    assert!(info_u64(redis.port, "stats", "evicted_keys") > 0);
    for cell in run.doc["sweep"]["cells"].as_array().unwrap() {
        let label = cell["kvbench"]["cell"]["label"].as_str().unwrap();
        assert!(f(&cell["kvbench"]["hit_rate_percent"]) < 100.0, "{label}");
        let m = message(cell, "gets_mostly_miss");
        assert!(
            m.contains("although --prefill wrote the whole range"),
            "{label}: {m}"
        );
    }
}

#[test]
fn short_run_fires_for_a_one_second_run_and_not_for_a_ten_second_one() {
    let redis = Redis::start();
    let short = redis.kvbench_json("-t 1 -c 1 --key-maximum 5000 --test-time 1 --rate 200");
    let m = message(&short.doc, "short_run");
    let secs = number_after(m, "each run lasted ");
    let measured = f(&short.doc["kvbench"]["runs"][0]["duration_ms"]) / 1000.0;
    assert!(
        (secs - measured).abs() <= 0.051,
        "{m} vs a run of {measured} s"
    );
    assert!(secs < 10.0);

    // Ten seconds at a trickle: long enough, and no load to speak of.
    let long = redis.kvbench_json("-t 1 -c 1 --key-maximum 5000 --test-time 10 --rate 50");
    assert!(u(&long.doc["kvbench"]["runs"][0]["duration_ms"]) >= 10_000);
    assert_silent(&long.doc, "short_run");
}

#[test]
fn client_bound_agrees_with_the_measured_worker_cpu() {
    // Saturating a worker is not reliable on a shared machine, so the check is
    // the agreement: the warning is present exactly when the busiest thread's
    // CPU over the run's length is at or above 90 %.
    let redis = Redis::start();
    let run = redis.kvbench_json("-t 1 -c 5 --pipeline 64 --key-maximum 100000 --test-time 2");
    let r = &run.doc["kvbench"]["runs"][0];
    let busiest = r["thread_cpu_s"]
        .as_array()
        .unwrap()
        .iter()
        .map(f)
        .fold(0.0, f64::max);
    let share = busiest / (f(&r["duration_ms"]) / 1000.0);
    assert!(busiest > 0.0, "no worker CPU measured: {r}");
    let fired = warning_kinds(&run.doc).contains(&"client_bound");
    eprintln!(
        "busiest worker at {:.1} % of a CPU; client_bound: {fired}",
        100.0 * share
    );
    // The JSON rounds CPU to 0.1 ms and the duration to 1 ms: within that of
    // the threshold either answer is right.
    if share >= 0.902 {
        let m = message(&run.doc, "client_bound");
        let percent = number_after(m, "used ");
        assert!((percent - 100.0 * share).abs() <= 1.0, "{m} vs {share}");
    } else if share <= 0.898 {
        assert!(!fired, "client_bound at {share} of a CPU");
    }
}

#[test]
fn dataset_too_large_fires_beyond_maxmemory_and_not_for_a_small_dataset() {
    let redis = Redis::start_with(&["--maxmemory", "2mb", "--maxmemory-policy", "allkeys-lru"]);
    let big = redis.kvbench_json("-t 1 -c 2 --key-maximum 100000 -d 1024 -n 1500 --ratio 1:0");
    // The server had to evict to hold what was written.
    assert!(info_u64(redis.port, "stats", "evicted_keys") > 0);
    let m = message(&big.doc, "dataset_too_large");
    assert!(m.contains("the server's maxmemory (2 MiB)"), "{m}");
    assert!(number_after(m, "needs about ") >= 2.0, "{m}");

    let redis = Redis::start();
    let small =
        redis.kvbench_json("-t 1 -c 1 --key-minimum 1 --key-maximum 100 -d 32 -n 200 --ratio 1:0");
    assert_eq!(info_u64(redis.port, "stats", "evicted_keys"), 0);
    assert_silent(&small.doc, "dataset_too_large");
}

/// A 2 s SET run at a modest rate, in the background.
// Long enough that a test thread slowed by a busy machine still acts during the run.
const BRIEF_SETS: &str =
    "-t 1 -c 1 --key-maximum 5000 --ratio 1:0 --test-time 3 --rate 2000 --allow-invalid";

#[test]
fn count_mismatch_fires_when_another_client_sets_during_the_run() {
    let redis = Redis::start();
    let dir = TempDir::new("warnings");
    let mut child = spawn_json(&redis, BRIEF_SETS, &dir);
    let mut intruder_sets = 0u64;
    while child.try_wait().unwrap().is_none() {
        assert_eq!(redis.command(&["SET", "intruder", "x"]), b"OK");
        intruder_sets += 1;
    }
    let doc = finish(child, &dir);
    let kv = &doc["kvbench"];
    let client = u(&kv["totals"]["SET"]["count"]);
    let server = u(&kv["runs"][0]["server"]["delta"]["set_calls"]);
    assert!(
        server > client && server - client <= intruder_sets,
        "server {server}, kvbench {client}, intruder {intruder_sets}"
    );
    assert_eq!(redis.calls("set"), client + intruder_sets);
    let m = message(&doc, "count_mismatch");
    let expected = format!("RUN #1: the server counted {server} SET calls but kvbench {client}");
    assert!(m.starts_with(&expected), "{m}");
    // Nobody else sent GETs: one mismatch only.
    assert_eq!(
        warning_kinds(&doc)
            .iter()
            .filter(|k| **k == "count_mismatch")
            .count(),
        1
    );

    let redis = Redis::start();
    let clean = redis.kvbench_json("-t 1 -c 2 --key-maximum 5000 -n 500 --ratio 1:1");
    let delta = &clean.doc["kvbench"]["runs"][0]["server"]["delta"];
    assert_eq!(
        delta["set_calls"],
        clean.doc["kvbench"]["totals"]["SET"]["count"]
    );
    assert_silent(&clean.doc, "count_mismatch");
}

#[test]
fn fsync_always_fires_for_appendfsync_always_and_not_by_default() {
    let redis = Redis::start_with(&["--appendonly", "yes", "--appendfsync", "always"]);
    let args = "-t 1 -c 1 --key-maximum 5000 -n 100 --ratio 1:0";
    let always = redis.kvbench_json(args);
    assert_eq!(info_u64(redis.port, "persistence", "aof_enabled"), 1);
    assert_eq!(always.doc["kvbench"]["server"]["appendfsync"], "always");
    assert!(message(&always.doc, "fsync_always").contains("appendfsync always"));

    let redis = Redis::start();
    let default = redis.kvbench_json(args);
    assert_eq!(info_u64(redis.port, "persistence", "aof_enabled"), 0);
    assert_eq!(default.doc["kvbench"]["server"]["appendfsync"], "everysec");
    assert_silent(&default.doc, "fsync_always");
}

#[test]
fn background_save_fires_when_the_server_forks_during_the_run() {
    let redis = Redis::start();
    let dir = TempDir::new("warnings");
    let mut child = spawn_json(&redis, BRIEF_SETS, &dir);
    // No prefill, no warm-up: the first SET the server sees is the run's.
    wait_for_traffic(redis.port, &mut child);
    let reply = String::from_utf8(redis.command(&["BGSAVE"])).unwrap();
    assert!(reply.contains("Background saving started"), "{reply}");
    let doc = finish(child, &dir);
    assert_eq!(info_u64(redis.port, "stats", "total_forks"), 1);
    let forks = u(&doc["kvbench"]["runs"][0]["server"]["delta"]["total_forks"]);
    assert_eq!(forks, 1, "the fork happened during the run");
    let m = message(&doc, "background_save");
    assert!(m.contains("forked 1 time(s) during RUN #1"), "{m}");

    let redis = Redis::start();
    let quiet = redis.kvbench_json("-t 1 -c 1 --key-maximum 5000 -n 300 --ratio 1:0");
    assert_eq!(info_u64(redis.port, "stats", "total_forks"), 0);
    assert_silent(&quiet.doc, "background_save");
}

/// The Ops/sec of each `RUN #n RESULTS` section's Totals, in run order: the
/// per-run rates as the sections report them, apart from `kvbench.variance`.
fn section_rates(doc: &Value, runs: u32) -> Vec<f64> {
    (1..=runs)
        .map(|n| f(&doc[format!("RUN #{n} RESULTS")]["Totals"]["Ops/sec"]))
        .collect()
}

#[test]
fn runs_disagree_fires_when_a_server_pause_halves_one_run_and_not_for_one_run() {
    // Two 6 s runs; the server is paused for 3 s early in the first, which so
    // completes about half the requests of the second: max/min near 2. The
    // runs are long enough that a pause sent three seconds late on a loaded
    // machine still falls inside the first run (with 4 s runs and a 2 s
    // pause, one clean-clone `make test` measured max/min 1.17: the pause
    // fell mostly outside the first run's sending). The two runs' rates are
    // compared, so no other test's load may slow one of them.
    let _alone = common::machine::alone();
    let redis = Redis::start();
    let dir = TempDir::new("warnings");
    let mut child = spawn_json(
        &redis,
        // The pause is a load gap of half a run: not valid, and said so.
        "-t 1 -c 2 --key-maximum 5000 -x 2 --test-time 6 --allow-invalid",
        &dir,
    );
    wait_for_traffic(redis.port, &mut child);
    assert_eq!(
        common::ask(redis.port, &["CLIENT", "PAUSE", "3000", "ALL"]),
        "OK"
    );
    let doc = finish(child, &dir);
    let reasons = doc["kvbench"]["verdict"]["reasons"].to_string();
    assert!(reasons.contains("load_gap"), "{reasons}");
    let rates = section_rates(&doc, 2);
    let max_over_min = rates[1].max(rates[0]) / rates[1].min(rates[0]);
    eprintln!("run rates {rates:?}: max/min {max_over_min}");
    assert!(
        rates[0] < rates[1] && max_over_min > 1.4,
        "the paused run is not the slow one: {rates:?}"
    );
    let v = &doc["kvbench"]["variance"];
    assert_eq!(v["noisy"], true, "{v}");
    let m = message(&doc, "runs_disagree");
    let shown = number_after(m, "(max/min ");
    assert!((shown - max_over_min).abs() < 0.002, "{m} vs {rates:?}");

    // One run has no spread and so no such warning.
    let single = redis.kvbench_json("-t 1 -c 1 --key-maximum 5000 -n 200");
    assert!(single.doc["kvbench"]["variance"].is_null());
    assert_silent(&single.doc, "runs_disagree");
}
