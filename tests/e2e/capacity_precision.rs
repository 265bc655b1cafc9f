//! `kvbench capacity` deciding its steps on the 95 % interval of the SLO's
//! percentile by batch means over the step's seconds (docs/precision.md):
//! a step of 12 s at a rate far below what the server carries meets its
//! SLO on the interval, without a repeat, and the report gives the
//! interval around the estimate; a step of 2 s has none and is decided by
//! its estimate at once, since no repeat allowed could reach ten seconds.
//! The server's own count holds every reply the steps report.

use crate::capacity::capacity_at;
use crate::common::{Redis, TempDir, f, machine, parse_commandstats, read_json, u};
use crate::json_schema::{assert_valid, validator};

/// Runs a search of two steps at most of `step_time` s steps from 200 ops/s of SET
/// against a loopback redis-server, with a p99 SLO of 50 ms it meets by far;
/// the report's `kvbench.capacity` and the server's SET count.
fn search(step_time: &str) -> (serde_json::Value, u64) {
    let redis = Redis::start();
    let dir = TempDir::new("capacity-precision");
    let json = dir.path("cap.json");
    let out = capacity_at(
        redis.port,
        &[
            "--slo",
            "p99=50ms",
            "-t",
            "1",
            "-c",
            "4",
            "--ratio",
            "1:0",
            "--key-maximum",
            "1000",
            "--step-time",
            step_time,
            "--step-warmup",
            "0.5",
            "--start-rate",
            "200",
            "--max-steps",
            "2",
            "--max-repeats",
            "2",
            "--test-time",
            "2",
            "--json-out-file",
            json.to_str().unwrap(),
        ],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.code().is_some(), "{stderr}");
    let doc = read_json(&json);
    assert_valid(&validator(), &doc, "a capacity report");
    let sets = parse_commandstats(&String::from_utf8_lossy(
        &redis.command(&["INFO", "commandstats"]),
    ))["set"]
        .0;
    (doc["kvbench"]["capacity"].clone(), sets)
}

#[test]
fn a_long_step_is_decided_on_its_interval_and_a_short_one_on_its_estimate() {
    let _alone = machine::alone();
    let (cap, sets) = search("12");
    let step = &cap["steps"][0];
    assert_eq!(f(&step["rate"]), 200.0, "{cap}");
    assert_eq!(step["meets"], true, "{cap}");
    assert_eq!(step["decided_by"], "bound", "{cap}");
    assert_eq!(u(&step["runs"]), 1, "decided without a repeat: {cap}");
    let bound = &step["bounds"][0];
    let (low, estimate, high) = (
        f(&bound["low_ms"]),
        f(&bound["estimate_ms"]),
        f(&bound["high_ms"]),
    );
    assert!(
        low <= estimate && estimate <= high && high <= 50.0 && high > 0.0,
        "{bound}"
    );
    // About 12 s at 200 ops/s, every one a SET the server counted.
    let replies = u(&step["replies"]);
    assert!((2000..=2600).contains(&replies), "{step}");
    assert!(replies <= sets, "{replies} replies, {sets} SETs");
    let (cap, sets) = search("2");
    let step = &cap["steps"][0];
    assert_eq!(step["decided_by"], "estimate", "{cap}");
    assert_eq!(
        u(&step["runs"]),
        1,
        "no repeat can reach ten seconds: {cap}"
    );
    let bound = &step["bounds"][0];
    assert!(
        bound["low_ms"].is_null() && bound["high_ms"].is_null(),
        "{bound}"
    );
    assert!(f(&bound["estimate_ms"]) > 0.0, "{bound}");
    assert!(u(&step["replies"]) <= sets);
}
