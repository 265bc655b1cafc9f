//! A warm-up that proves itself: `--warmup-time auto` against a steady
//! server ends once its last window is steady, well before `--warmup-max`,
//! and says how long it took; a fixed warm-up of GETs while another kvbench
//! fills the cache beside it (each hit returns 512 KiB where a miss returned
//! nothing) is still trending at its end, which is the verdict reason
//! `not_steady` (exit 3). The server's own counts witness both: its GET
//! calls are the warm-up's replies, and its keys grew during the fill.

use std::process::Stdio;

use crate::common::{
    Redis, TempDir, kvbench_at, machine, read_json, refused_before_connecting, u, wait_for_traffic,
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
fn a_warmup_beside_a_cache_being_filled_is_not_steady() {
    let _alone = machine::alone();
    let redis = Redis::start();
    // The filler: SETs of 512 KiB over keys 1..600 in order, 25 a second,
    // so the keys fill over 24 s, longer than the 20 s warm-up below; a GET
    // that hits then costs several times one that misses. The warm-up's
    // window is 16 s: on a loaded 2-core machine the seconds are noisy, and
    // a longer line narrows the slope's interval (as n^1.5).
    let mut filler = kvbench_at(redis.port)
        .args([
            "-t",
            "1",
            "-c",
            "1",
            "--ratio",
            "1:0",
            "--key-pattern",
            "P:P",
            "--key-minimum",
            "1",
            "--key-maximum",
            "600",
            "-d",
            "524288",
            "--rate",
            "25",
            "--test-time",
            "40",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_traffic(redis.port, &mut filler);
    let dir = TempDir::new("warmup");
    let json = dir.path("w.json");
    let out = kvbench_at(redis.port)
        .args([
            "-t",
            "1",
            "-c",
            "2",
            "--ratio",
            "0:1",
            "--key-pattern",
            "R:R",
            "--key-minimum",
            "1",
            "--key-maximum",
            "600",
            "--warmup-time",
            "20",
            "--warmup-window",
            "16",
            "--test-time",
            "1",
            "--json-out-file",
        ])
        .arg(&json)
        .output()
        .unwrap();
    let keys_at_end = redis.dbsize();
    let _ = filler.kill();
    let _ = filler.wait();
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
    // Hits grew, so each second was slower than the one before.
    let ops = &s["throughput"];
    assert!(ops["slope_per_s"].as_f64().unwrap() < 0.0, "{s}");
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
    // The server's account: every warm-up GET reached it, and the keys grew
    // while it ran (the cache was filling).
    let delta = &warmup["server"]["delta"];
    let gets = &warmup["totals"]["GET"];
    assert_eq!(u(&delta["get_calls"]), u(&gets["count"]), "{delta}");
    // The filler sends no GET: every hit the server counted was the warm-up's.
    assert_eq!(u(&delta["keyspace_hits"]), u(&gets["hits"]), "{delta}");
    let (before, after) = (u(&delta["keys_before"]), u(&delta["keys_after"]));
    assert!(
        after >= before + 250 && after <= 600,
        "keys {before} -> {after}"
    );
    assert!(keys_at_end >= after, "{keys_at_end} < {after}");
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
