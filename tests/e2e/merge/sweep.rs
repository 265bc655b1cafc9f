//! `kvbench merge` of sweep files, cell by cell: two shards of a 2-cell
//! `--pipeline 1,4` sweep, meeting at `--start-at barrier` before each cell,
//! each write a sweep file; the merge is one sweep document whose every
//! cell is the two shards' cell merged (counts add, the server's evidence
//! judged once), and whose summary is recomputed from the merged cells.

use std::process::{Child, Stdio};

use serde_json::Value;

use super::{assert_schema, merge};
use crate::common::launch::{SMALL_SHARD, wait_ok};
use crate::common::{Redis, TempDir, kvbench_at, read_json, u};

fn cell_count(cell: &Value, op: &str) -> u64 {
    u(&cell["kvbench"]["totals"][op]["count"])
}

#[test]
fn two_shards_of_a_sweep_merge_cell_by_cell_into_the_servers_counts() {
    let redis = Redis::start();
    redis.reset_stats();
    let dir = TempDir::new("merge-sweep");
    let run_id = format!("sweep-{}", redis.port);
    let files: Vec<String> = (0..2)
        .map(|i| dir.path(&format!("s{i}.json")).display().to_string())
        .collect();
    let children: Vec<Child> = (0..2)
        .map(|i| {
            kvbench_at(redis.port)
                .args(SMALL_SHARD)
                .args(["--pipeline", "1,4", "--test-time", "1"])
                .args(["--shard-count", "2", "--shard-index", &i.to_string()])
                .args(["--start-at", "barrier", "--run-id", &run_id])
                .args(["--json-out-file", &files[i]])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, c) in children.into_iter().enumerate() {
        wait_ok(c, &format!("shard {i}"));
    }
    let shards: Vec<Value> = files.iter().map(|f| read_json(f.as_ref())).collect();
    for (i, s) in shards.iter().enumerate() {
        let cells = s["sweep"]["cells"].as_array().unwrap();
        assert_eq!(cells.len(), 2, "shard {i}");
        // Each cell met at its own barrier, under the run id and the cell.
        for (c, cell) in cells.iter().enumerate() {
            let barrier = &cell["kvbench"]["shard"]["barrier"];
            assert_eq!(barrier["run_id"], format!("{run_id}.cell-{c}").as_str());
        }
    }
    // Both shards of a cell started at its one published T.
    for c in 0..2 {
        let t = |s: &Value| s["sweep"]["cells"][c]["kvbench"]["shard"]["start_at_ms"].clone();
        assert_eq!(t(&shards[0]), t(&shards[1]), "cell {c}");
        assert!(t(&shards[0]).is_u64());
    }

    let out_path = dir.path("merged.json");
    let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
    args.extend(["-o", out_path.to_str().unwrap()]);
    let out = merge(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = read_json(&out_path);
    assert_schema(&doc);
    let cells = doc["sweep"]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    let (mut sets, mut gets) = (0, 0);
    for (c, cell) in cells.iter().enumerate() {
        assert_eq!(
            cell["kvbench"]["cell"]["label"],
            ["pipeline=1", "pipeline=4"][c]
        );
        let merged = &cell["kvbench"]["merged"];
        assert_eq!(
            merged["files"].as_array().map(Vec::len),
            Some(2),
            "{merged}"
        );
        assert_eq!(merged["partial"], false, "{merged}");
        for op in ["SET", "GET"] {
            let own: u64 = shards
                .iter()
                .map(|s| cell_count(&s["sweep"]["cells"][c], op))
                .sum();
            assert_eq!(cell_count(cell, op), own, "cell {c} {op}");
            assert!(own > 0, "cell {c} {op}");
        }
        // The server's calls during the cell, judged once for the set.
        let delta = &cell["kvbench"]["runs"][0]["server"]["delta"];
        assert_eq!(u(&delta["set_calls"]), cell_count(cell, "SET"), "{delta}");
        assert_eq!(u(&delta["get_calls"]), cell_count(cell, "GET"), "{delta}");
        let kinds: Vec<&str> = cell["kvbench"]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|w| w["kind"].as_str())
            .collect();
        assert!(!kinds.contains(&"count_mismatch"), "{kinds:?}");
        sets += cell_count(cell, "SET");
        gets += cell_count(cell, "GET");
    }
    assert_eq!((sets, gets), (redis.calls("set"), redis.calls("get")));

    // The summary is the merged cells': a row each, the first the reference.
    let summary = doc["sweep"]["summary"].as_array().unwrap();
    assert_eq!(summary.len(), 2);
    assert_eq!(summary[0]["ratio_to_first"], 1.0);
    for (c, row) in summary.iter().enumerate() {
        let ops = row["ops_per_sec"].as_f64().unwrap();
        let cell_ops = cells[c]["kvbench"]["runs"][0]["ops_per_sec"]
            .as_f64()
            .unwrap();
        assert!(
            ops > 0.0 && (ops - cell_ops).abs() <= 0.01 * cell_ops,
            "{ops} vs {cell_ops}"
        );
    }
    assert_eq!(
        doc["kvbench"]["verdict"]["valid"], true,
        "{}",
        doc["kvbench"]
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("CELL pipeline=1") && stdout.contains("CELL pipeline=4"),
        "{stdout}"
    );
}
