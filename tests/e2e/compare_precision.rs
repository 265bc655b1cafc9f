//! `kvbench compare` between single runs long enough to carry their 95 %
//! intervals (batch means, docs/precision.md): a figure moved only where the
//! two intervals do not overlap, as the files' own intervals say, and a
//! file against a copy of itself is noise. Real runs against redis-server.

use serde_json::Value;

use crate::common::compare::{VERDICT, compare_ok, csv_rows};
use crate::common::{Redis, TempDir, f, machine};

/// Judged figures: the verdict's name and the precision key.
const JUDGED: [(&str, &str); 4] = [
    ("ops/sec", "ops"),
    ("p50", "p50.00"),
    ("p99", "p99.00"),
    ("p99.9", "p99.90"),
];

/// `(value, half_width)` of a figure of the `Totals` row of `doc`'s only
/// run; `None` where the run had no interval for it.
fn interval(doc: &Value, key: &str) -> Option<(f64, f64)> {
    let p = &doc["kvbench"]["runs"][0]["precision"];
    let figure = if key == "ops" {
        &p["ops_per_sec"]
    } else {
        &p["latency_ms"]["Totals"][key]
    };
    (!figure.is_null()).then(|| (f(&figure["value"]), f(&figure["half_width"])))
}

/// The figures whose intervals do not overlap, by the files' own numbers.
fn apart(base: &Value, other: &Value) -> Vec<&'static str> {
    let mut names: Vec<&str> = JUDGED
        .iter()
        .filter(|(_, key)| {
            let (Some((b, hb)), Some((o, ho))) = (interval(base, key), interval(other, key)) else {
                return false;
            };
            (o - b).abs() > hb + ho
        })
        .map(|(name, _)| *name)
        .collect();
    names.sort_unstable();
    names
}

/// The figures a verdict names as moved beyond their intervals.
fn named(verdict: &str) -> Vec<&str> {
    if verdict.starts_with("noise") {
        return Vec::new();
    }
    let mut names: Vec<&str> = verdict
        .split("; ")
        .map(|m| {
            assert!(m.contains("95 % intervals apart: ±"), "{verdict}");
            m.split(' ').next().unwrap()
        })
        .collect();
    names.sort_unstable();
    names
}

#[test]
fn single_runs_differ_where_their_intervals_are_apart_and_a_copy_is_noise() {
    let _alone = machine::alone();
    let dir = TempDir::new("compare-precision");
    let redis = Redis::start();
    // Each run lasts until every judged figure has an interval (any width
    // up to ±50 %), at most 120 s: a run of a fixed length may have none
    // where a busy machine keeps its batches autocorrelated (fixed runs of
    // 24 s and then 40 s had none in clean-clone CI runs).
    let common = "-t 1 -c 2 --ratio 1:1 --key-maximum 1000 --test-time auto \
                  --max-test-time 120 --target-precision ops=50%,p50=50%,p99=50%,p99.9=50%";
    for (name, extra) in [("one.json", ""), ("piped.json", " --pipeline 16")] {
        let path = dir.path(name);
        let args = format!("{common}{extra} --json-out-file {}", path.display());
        let args: Vec<&str> = args.split_whitespace().collect();
        crate::common::kvbench_ok(redis.port, &args);
    }
    let read = |name: &str| crate::common::read_json(&dir.path(name));
    let (one, piped) = (read("one.json"), read("piped.json"));
    // Both runs carry every judged figure's interval (kvbench exits 3
    // where a target is unmet, and `kvbench_ok` wants 0).
    for doc in [&one, &piped] {
        for (_, key) in JUDGED {
            assert!(
                interval(doc, key).is_some(),
                "{key}: {}",
                doc["kvbench"]["runs"]
            );
        }
    }
    let arg = |name: &str| dir.path(name).to_str().unwrap().to_string();
    let csv = compare_ok(&[&arg("one.json"), &arg("piped.json"), "--format", "csv"]);
    let rows = csv_rows(&csv);
    let totals = rows
        .iter()
        .find(|r| r[0] == "Totals" && r[1] == "piped.json")
        .unwrap_or_else(|| panic!("{csv}"));
    let verdict = &totals[VERDICT];
    let expected = apart(&one, &piped);
    assert_eq!(named(verdict), expected, "{verdict}");
    // Sixteen requests a write against one: the throughput's intervals are
    // far apart.
    assert!(expected.contains(&"ops/sec"), "{verdict}");
    // A copy of a file: every interval overlaps its own.
    std::fs::copy(dir.path("one.json"), dir.path("again.json")).unwrap();
    let csv = compare_ok(&[&arg("one.json"), &arg("again.json"), "--format", "csv"]);
    for r in csv_rows(&csv).iter().filter(|r| r[1] == "again.json") {
        assert_eq!(
            r[VERDICT], "noise (every figure's 95 % interval overlaps the baseline's)",
            "{r:?}"
        );
    }
}
