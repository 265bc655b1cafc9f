//! `kvbench merge` trusts no input it cannot vouch for: real shard files,
//! edited as a careless hand or a broken copy would edit them (a count
//! inflated, two ops' histograms swapped, shard 0 copied as shard 1, one
//! path twice, a plain run twice, a `--rate` file's never-sent requests
//! miscounted), are each refused with exit 2, naming the file and the
//! problem; the honest set still merges into the server's counts.

use std::path::Path;

use serde_json::{Value, json};

use super::{assert_schema, merge, rate_shards, refused, set_shard, shard_set, write};
use crate::common::{Redis, TempDir, kvbench_ok, read_json};

/// A copy of `from` at `to`, edited by `edit`.
fn edited(from: &Path, to: &Path, edit: impl FnOnce(&mut Value)) {
    let mut doc = read_json(from);
    edit(&mut doc);
    write(to, &doc);
}

fn count(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

#[test]
fn a_count_inflated_in_one_shard_is_refused_naming_the_field_and_both_numbers() {
    let set = shard_set();
    let inflated = set.path("inflated.json");
    let sets = count(&read_json(&set.files[1])["ALL STATS"]["Sets"]["Count"]);
    // Every count of SET raised alike, as a hand editing the file would:
    // only the histograms and the seconds still hold the truth.
    edited(&set.files[1], &inflated, |doc| {
        for path in [
            "/ALL STATS/Sets/Count",
            "/ALL STATS/Totals/Count",
            "/kvbench/runs/0/totals/SET/count",
            "/kvbench/totals/SET/count",
        ] {
            let n = doc.pointer_mut(path).unwrap();
            *n = json!(count(n) + 1_000_000);
        }
    });
    let out = merge(&[set.arg(0), inflated.to_str().unwrap(), set.arg(2)]);
    refused(
        &out,
        "inflated.json",
        &format!(
            "RUN #1 Sets Count {} but its histogram holds {sets} samples: the file was edited or is damaged",
            sets + 1_000_000
        ),
    );

    // The honest set merges into what the server counted.
    let merged = set.path("merged.json");
    let out = merge(&[
        set.arg(0),
        set.arg(1),
        set.arg(2),
        "-o",
        merged.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = read_json(&merged);
    let totals = &doc["kvbench"]["totals"];
    assert_eq!(count(&totals["SET"]["count"]), set.redis.calls("set"));
    assert_eq!(count(&totals["GET"]["count"]), set.redis.calls("get"));
    // Each machine's measurement is recorded once, by its digest.
    let digests = doc["kvbench"]["merged"]["sha256"].as_array().unwrap();
    assert_eq!(digests.len(), 3, "{digests:?}");
    assert!(digests[0] != digests[1] && digests[1] != digests[2]);
    assert_schema(&doc);
}

#[test]
fn histograms_swapped_between_two_ops_are_refused() {
    let set = shard_set();
    // In kvbench.runs, which the merge adds: the percentiles would move.
    let swapped = set.path("swapped.json");
    edited(&set.files[2], &swapped, |doc| {
        let h = &mut doc["kvbench"]["runs"][0]["histograms"];
        let set_h = h["SET"].take();
        h["SET"] = h["GET"].take();
        h["GET"] = set_h;
    });
    let sets = count(&read_json(&set.files[2])["ALL STATS"]["Sets"]["Count"]);
    let gets = count(&read_json(&set.files[2])["ALL STATS"]["Gets"]["Count"]);
    let out = merge(&[set.arg(0), set.arg(1), swapped.to_str().unwrap()]);
    refused(
        &out,
        "swapped.json",
        &format!(
            "RUN #1 Sets Count {sets} but kvbench.runs[0].histograms.SET holds {gets} samples"
        ),
    );

    // In the section memtier's readers see.
    let rows = set.path("rows.json");
    edited(&set.files[2], &rows, |doc| {
        let section = &mut doc["ALL STATS"];
        let key = "Percentile Latencies";
        let set_h = section["Sets"][key]["Histogram log format"].take();
        section["Sets"][key]["Histogram log format"] =
            section["Gets"][key]["Histogram log format"].take();
        section["Gets"][key]["Histogram log format"] = set_h;
    });
    let out = merge(&[set.arg(0), set.arg(1), rows.to_str().unwrap()]);
    refused(
        &out,
        "rows.json",
        &format!("RUN #1 Sets Count {sets} but its histogram holds {gets} samples"),
    );
}

#[test]
fn a_copy_of_shard_0_relabelled_as_shard_1_is_refused_naming_both_files() {
    let set = shard_set();
    let copy = set.path("copy.json");
    edited(&set.files[0], &copy, |doc| set_shard(doc, 1, 3));
    let out = merge(&[set.arg(0), copy.to_str().unwrap(), set.arg(2)]);
    refused(&out, "copy.json", "the same measurement as");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(set.arg(0)), "names the original: {stderr}");

    // A merged file holds its machines' measurements: merged beside another
    // merge of one of them, that machine would count twice.
    let all = set.path("all.json");
    let out = merge(&[
        set.arg(0),
        set.arg(1),
        set.arg(2),
        "-o",
        all.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let part = set.path("part.json");
    let out = merge(&[set.arg(1), "--allow-partial", "-o", part.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "partial: merged, not valid");
    let out = merge(&[all.to_str().unwrap(), part.to_str().unwrap()]);
    refused(&out, "part.json", "the same measurement as");
    assert!(String::from_utf8_lossy(&out.stderr).contains("all.json"));
}

#[test]
fn one_path_twice_a_plain_run_twice_and_too_many_names_are_refused_before_reading() {
    let set = shard_set();
    let out = merge(&[set.arg(0), set.arg(1), set.arg(2), set.arg(1)]);
    refused(&out, "shard1.json", "given twice (files 2 and 4)");

    let redis = Redis::start();
    let dir = TempDir::new("e2e-merge-plain");
    let plain = dir.path("plain.json");
    let plain_arg = plain.to_str().unwrap();
    kvbench_ok(
        redis.port,
        &[
            "-t",
            "1",
            "-c",
            "2",
            "-n",
            "100",
            "--json-out-file",
            plain_arg,
        ],
    );
    let out = merge(&[plain_arg, plain_arg]);
    refused(&out, "plain.json", "given twice");
    // Under another name: a link is the same file; a copy the same measurement.
    let link = dir.path("link.json");
    std::fs::hard_link(&plain, &link).unwrap();
    let out = merge(&[plain_arg, link.to_str().unwrap()]);
    refused(&out, "link.json", "the same file as");
    let copy = dir.path("copy.json");
    std::fs::copy(&plain, &copy).unwrap();
    let out = merge(&[plain_arg, copy.to_str().unwrap()]);
    refused(&out, "copy.json", "the same measurement as");

    // Names past the cap are refused before any is opened (none exists).
    let names: Vec<String> = (0..1025)
        .map(|i| dir.path(&format!("none-{i}.json")).display().to_string())
        .collect();
    let args: Vec<&str> = names.iter().map(String::as_str).collect();
    let out = merge(&args);
    refused(
        &out,
        "kvbench merge",
        "1025 files given, more than the 1024",
    );
}

#[test]
fn a_rate_files_replies_and_never_sent_requests_are_checked_too() {
    let redis = Redis::start();
    let dir = TempDir::new("e2e-merge-trust-rate");
    let files = rate_shards(&redis, &dir);
    let arg = |i: usize| files[i].to_str().unwrap();
    // The honest pair merges.
    let out = merge(&[arg(0), arg(1)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Requests never sent, counted without their waits.
    let never = dir.path("never.json");
    edited(&files[1], &never, |doc| {
        let o = &mut doc["kvbench"]["runs"][0]["open_loop"];
        o["never_sent"] = json!(count(&o["never_sent"]) + 500);
    });
    let out = merge(&[arg(0), never.to_str().unwrap()]);
    refused(&out, "never.json", "open_loop.never_sent");

    // The response times of more replies than the rows count.
    let replies = dir.path("replies.json");
    let mut sets = 0;
    edited(&files[1], &replies, |doc| {
        let block = &mut doc["kvbench"]["runs"][0]["open_loop"]["response_time"]["Sets"];
        sets = count(&block["Count"]);
        block["Count"] = json!(sets + 1);
    });
    let out = merge(&[arg(0), replies.to_str().unwrap()]);
    refused(
        &out,
        "replies.json",
        &format!(
            "kvbench.runs[0].open_loop.response_time.Sets Count {} but its histogram holds {sets} samples",
            sets + 1
        ),
    );
}
