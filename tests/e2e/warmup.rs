//! A warm-up that proves itself: `--warmup-time auto` against a steady
//! server ends once its last window is steady, well before `--warmup-max`,
//! and says how long it took; a fixed warm-up against a server that holds
//! writes a little longer each second is still trending at its end, which
//! is the verdict reason `not_steady` (exit 3). The server's own counts
//! witness both: its calls are the warm-up's replies.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{
    Redis, TempDir, ask, kvbench_at, machine, read_json, refused_before_connecting, u,
    wait_for_traffic,
};

#[test]
fn auto_warmup_against_a_steady_server_ends_before_its_maximum() {
    let _alone = machine::alone();
    let redis = Redis::start();
    let report = redis.kvbench_json(
        "-t 1 -c 4 --ratio 1:4 --key-maximum 1000 --warmup-time auto --warmup-window 5 --warmup-max 60 --test-time 1",
    );
    let kv = &report.doc["kvbench"];
    let warmup = &kv["warmup"];
    let s = &warmup["steadiness"];
    assert_eq!(s["mode"], "auto", "{s}");
    assert_eq!(s["steady"], true, "{s}");
    let after = u(&s["steady_after_s"]);
    assert!((5..60).contains(&after), "steady after {after} s: {s}");
    // It ended when it was found steady, not at its maximum.
    let ran_ms = u(&warmup["duration_ms"]);
    assert!(
        ran_ms >= after * 1000 && ran_ms <= (after + 2) * 1000,
        "ran {ran_ms} ms, steady after {after} s"
    );
    assert_eq!(kv["verdict"]["valid"], true, "{}", kv["verdict"]);
    // The server answered every warm-up GET kvbench counted, no more.
    let delta = &warmup["server"]["delta"];
    assert_eq!(
        u(&delta["get_calls"]),
        u(&warmup["totals"]["GET"]["count"]),
        "{delta}"
    );
    let line = format!("Warm-up steady: after {after} s (--warmup-time auto");
    assert!(report.stdout.contains(&line), "{}", report.stdout);
}

#[test]
fn a_warmup_against_a_server_pausing_longer_each_second_is_not_steady() {
    let _alone = machine::alone();
    let redis = Redis::start();
    // The warm-up: SETs in a closed loop for 20 s, judged over its last 16
    // s (on a loaded 2-core machine the seconds are noisy, and a longer line
    // narrows the slope's interval as n^1.5).
    let dir = TempDir::new("warmup");
    let json = dir.path("w.json");
    let mut kvbench = kvbench_at(redis.port)
        .args([
            "-t",
            "1",
            "-c",
            "2",
            "--ratio",
            "1:0",
            "--key-maximum",
            "100000",
            "--warmup-time",
            "20",
            "--warmup-window",
            "16",
            "--test-time",
            "1",
            "--json-out-file",
        ])
        .arg(&json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_traffic(redis.port, &mut kvbench);
    // The trend, made by the server and not by the machine's noise: in its
    // k-th second the server holds every write for 45·k ms (CLIENT PAUSE
    // WRITE, which leaves kvbench's INFO readings alone), so the share of
    // each second it serves falls from 95 % to 10 % over the warm-up, a
    // change far beyond what a loaded machine's noise can hide.
    let paused_from = Instant::now();
    for k in 1..=20u64 {
        let ms = (45 * k).to_string();
        assert_eq!(ask(redis.port, &["CLIENT", "PAUSE", &ms, "WRITE"]), "OK");
        let next = paused_from + Duration::from_secs(k);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
        if kvbench.try_wait().unwrap().is_some() {
            break;
        }
    }
    let out = kvbench.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let doc = read_json(&json);
    let kv = &doc["kvbench"];
    let warmup = &kv["warmup"];
    let s = &warmup["steadiness"];
    assert_eq!(out.status.code(), Some(3), "{stderr}\n{stdout}");
    assert_eq!(
        (&s["mode"], &s["steady"], &s["judged"]),
        (&"fixed".into(), &false.into(), &true.into()),
        "{s}"
    );
    // The pauses grew, so each second served fewer writes than the one
    // before: the throughput's trend is what is judged not steady. The p99
    // is not expected to move: only the requests in flight when a pause
    // starts wait through it, two a second against thousands served, far
    // below the slowest hundredth (a run read its slope as −0.05 ± 0.57 µs/s).
    assert!(
        s["throughput"]["slope_per_s"].as_f64().unwrap() < 0.0,
        "{s}"
    );
    assert_eq!(s["throughput"]["steady"], false, "{s}");
    let reasons = kv["verdict"]["reasons"].as_array().unwrap();
    let reason = reasons
        .iter()
        .find(|r| r["kind"] == "not_steady")
        .unwrap_or_else(|| panic!("no not_steady in {reasons:?}"));
    assert_eq!(reason["phase"], "WARM-UP", "{reason}");
    assert!(
        stderr.contains("not steady: at the end of the 20 s warm-up"),
        "{stderr}"
    );
    // The server's account: every warm-up SET reached it, each a new key
    // or an old one written again.
    let delta = &warmup["server"]["delta"];
    let sets = u(&warmup["totals"]["SET"]["count"]);
    assert_eq!(u(&delta["set_calls"]), sets, "{delta}");
    let (before, after) = (u(&delta["keys_before"]), u(&delta["keys_after"]));
    assert!(
        after > before && after - before <= sets.min(100_000),
        "keys {before} -> {after} after {sets} SETs"
    );
}

#[test]
fn bad_warmup_flags_are_refused_before_connecting() {
    let redis = Redis::start();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--warmup-time", "5", "--warmup-max", "30"],
            "--warmup-max: bounds --warmup-time auto only",
        ),
        (
            &["--warmup-time", "auto", "--warmup-window", "2"],
            "--warmup-window: must be at least 4 seconds",
        ),
        (
            &["--warmup-time", "auto", "--warmup-max", "5"],
            "--warmup-max: must be at least --warmup-window (10 s)",
        ),
        (&["--warmup-time", "soon"], "--warmup-time"),
    ];
    for (args, message) in cases {
        let stderr = refused_before_connecting(&redis, args.iter().chain(&["--test-time", "1"]));
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}
