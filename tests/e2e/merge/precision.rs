//! A merged run carries its 95 % intervals (docs/precision.md): two shards
//! started together against one redis-server, each writing its seconds to
//! `.hlog` interval logs, merge into one run whose seconds are the shards'
//! added second by second, and whose intervals are judged on them as one
//! machine's are. A set whose interval logs are gone has none.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use super::merge;
use crate::common::launch::{epoch_in, wait_ok};
use crate::common::{Redis, TempDir, f, kvbench_at, machine, read_json, u};

#[test]
fn two_shards_merge_into_one_run_with_its_intervals_from_their_added_seconds() {
    let _alone = machine::alone();
    let redis = Redis::start();
    let dir = TempDir::new("merge-precision");
    let start = format!("{:.3}", epoch_in(Duration::from_secs(3)));
    let files: Vec<PathBuf> = (0..2).map(|i| dir.path(&format!("s{i}.json"))).collect();
    let shards: Vec<_> = (0..2)
        .map(|i| {
            kvbench_at(redis.port)
                .args(["-t", "1", "-c", "2", "--test-time", "80", "--ratio", "1:1"])
                .args(["--key-maximum", "1000", "--start-at", &start])
                .args(["--shard-count", "2", "--shard-index", &i.to_string()])
                .arg("--hdr-file-prefix")
                .arg(dir.path(&format!("s{i}")))
                .arg("--json-out-file")
                .arg(&files[i])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, c) in shards.into_iter().enumerate() {
        wait_ok(c, &format!("shard {i}"));
    }
    let merged = dir.path("merged.json");
    let paths: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();
    let out = merge(&[paths[0], paths[1], "-o", merged.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = read_json(&merged);
    let run = &doc["kvbench"]["runs"][0];
    let p = &run["precision"];
    // 80 s runs: 77 to 80 whole seconds in the common window. A loaded
    // machine's throughput is autocorrelated over a few seconds: 24 s once
    // needed 4 s batches for it, six of them, under the ten an interval
    // takes, and fixed 40 s runs of other tests had no interval in CI
    // runs; 80 s leaves ten of 8 s.
    assert!((77..=80).contains(&u(&p["seconds"])), "{p}");
    // The interval is around the merged rate, the two shards' together.
    let ops = &p["ops_per_sec"];
    assert!(!ops.is_null(), "{p}");
    let merged_rate = f(&run["ops_per_sec"]);
    let shard_rates: f64 = files
        .iter()
        .map(|s| f(&read_json(s)["kvbench"]["runs"][0]["ops_per_sec"]))
        .sum();
    assert!(
        (f(&ops["value"]) - merged_rate).abs() <= 0.01 * merged_rate,
        "{ops} vs {merged_rate}"
    );
    assert!(
        merged_rate <= shard_rates * 1.01 && merged_rate >= shard_rates * 0.9,
        "{merged_rate} vs {shard_rates}"
    );
    assert!(
        f(&ops["half_width"]) > 0.0 && u(&ops["batches"]) >= 10,
        "{ops}"
    );
    // Every row's printed percentiles, Totals too.
    for row in ["Sets", "Gets", "Totals"] {
        assert!(p["latency_ms"][row].get("p99.00").is_some(), "{row}: {p}");
    }
    // The interval logs gone: the seconds are not known, nor the intervals.
    for entry in std::fs::read_dir(dir.path("")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "hlog") {
            std::fs::remove_file(path).unwrap();
        }
    }
    let again = dir.path("again.json");
    let out = merge(&[paths[0], paths[1], "-o", again.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = read_json(&again);
    assert!(
        doc["kvbench"]["runs"][0].get("precision").is_none(),
        "{}",
        doc["kvbench"]["runs"][0]
    );
}
