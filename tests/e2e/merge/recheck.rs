//! A stored verdict is judged again from the file's own counts: two shard
//! files of a run whose every SET was refused with `-OOM`, edited to say
//! `valid`, do not merge into a valid set, and `compare` and `report` read
//! them as not valid too.

use std::path::PathBuf;

use serde_json::json;

use super::{merge, set_shard, write};
use crate::common::{Redis, TempDir, kvbench, kvbench_ok, read_json};

/// Two shards of an all-`-OOM` run, their verdicts edited to valid.
fn edited_shards(redis: &Redis, dir: &TempDir) -> Vec<PathBuf> {
    (0..2)
        .map(|i| {
            let path = dir.path(&format!("oom{i}.json"));
            kvbench_ok(
                redis.port,
                &[
                    "-t",
                    "1",
                    "-c",
                    "2",
                    "-n",
                    "50",
                    "--ratio",
                    "1:0",
                    "--allow-invalid",
                    "--json-out-file",
                    path.to_str().unwrap(),
                ],
            );
            let mut doc = read_json(&path);
            let kinds = doc["kvbench"]["verdict"]["reasons"].to_string();
            assert!(
                kinds.contains("error_replies"),
                "the run is all -OOM: {kinds}"
            );
            doc["kvbench"]["verdict"] = json!({"valid": true, "reasons": []});
            set_shard(&mut doc, i, 2);
            write(&path, &doc);
            path
        })
        .collect()
}

#[test]
fn shard_files_edited_to_valid_are_judged_again_from_their_counts() {
    let redis = Redis::start_with(&["--maxmemory", "1", "--maxmemory-policy", "noeviction"]);
    let dir = TempDir::new("merge-recheck");
    let files = edited_shards(&redis, &dir);
    let (a, b) = (files[0].to_str().unwrap(), files[1].to_str().unwrap());
    let merged = dir.path("merged.json");
    let out = merge(&[a, b, "-o", merged.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let doc = read_json(&merged);
    let verdict = &doc["kvbench"]["verdict"];
    assert_eq!(verdict["valid"], false, "{verdict}");
    let reasons = verdict["reasons"].to_string();
    assert!(reasons.contains("error_replies"), "{reasons}");
    assert!(
        reasons.contains("100 of 100 replies were errors"),
        "{reasons}"
    );
    assert!(
        reasons.contains("stored verdict did not say so"),
        "{reasons}"
    );

    // compare marks the file, report's page says it.
    let out = kvbench(&["compare", a, b]);
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("not valid"), "{text}");
    let html = dir.path("r.html");
    let out = kvbench(&["report", a, "-o", html.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("stored verdict did not say so"),
        "the page says why"
    );
}
