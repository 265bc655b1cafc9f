//! A file's identities and its digest, on a consistent file built in
//! memory and then edited field by field.

use hdrhistogram::Histogram;
use serde_json::{Map, Value, json};

use crate::engine::stats::latency_histogram;
use crate::report::json::{compressed, ms, percentile_key};
use crate::tools::merge::check::{self, ShardFile};
use crate::tools::merge::{digest, integrity};

const PERCENTILES: [f64; 3] = [50.0, 99.0, 100.0];

fn histogram(values: &[u64]) -> Histogram<u64> {
    let mut h = latency_histogram().unwrap();
    for v in values {
        h.record(*v).unwrap();
    }
    h
}

/// A row of memtier's layout over `seconds` (one histogram per second).
fn row(seconds: &[Histogram<u64>]) -> Value {
    let mut whole = latency_histogram().unwrap();
    let mut serie = Map::new();
    for (i, s) in seconds.iter().enumerate() {
        whole.add(s).unwrap();
        serie.insert(
            i.to_string(),
            json!({"Count": s.len(), "Bytes RX": s.len() * 5, "Bytes TX": s.len() * 40}),
        );
    }
    let mut pct: Map<String, Value> = PERCENTILES
        .iter()
        .map(|&p| {
            (
                percentile_key(p),
                json!(ms(whole.value_at_percentile(p) as f64)),
            )
        })
        .collect();
    pct.insert(
        "Histogram log format".into(),
        json!({"Compressed Histogram": compressed(&whole)}),
    );
    json!({
        "Count": whole.len(), "Ops/sec": 0.0, "Hits/sec": 0.0, "Misses/sec": 0.0,
        "Connection Errors/sec": 0.0, "Connection Errors": 0, "Latency": 0.1,
        "Average Latency": 0.1, "Accumulated Latency": 0, "Min Latency": 0.0, "Max Latency": 0.0,
        "KB/sec": 0.0, "KB/sec RX/TX": 0.0, "KB/sec RX": 0.0, "KB/sec TX": 0.0,
        "Time-Serie": serie, "Percentile Latencies": pct,
    })
}

fn totals(n: u64) -> Value {
    json!({"count": n, "hits": 0, "misses": 0, "errors": 0, "bytes_tx": n * 40, "bytes_rx": n * 5})
}

/// A consistent single-run file: SET over two seconds, and Totals.
fn consistent() -> Value {
    let seconds = [histogram(&[100, 120, 90_000]), histogram(&[80, 95])];
    let whole = {
        let mut h = latency_histogram().unwrap();
        seconds.iter().for_each(|s| h.add(s).unwrap());
        h
    };
    let errors = json!({"server": {}, "connection": 0, "refused": 0, "timeouts": 0,
                        "reconnects": 0, "protocol": 0, "lost_requests": 0});
    json!({
        "ALL STATS": {
            "Runtime": {"Start time": 1000, "Finish time": 3000, "Total duration": 2000,
                        "Time unit": "MILLISECONDS", "Interrupted": "false"},
            "Sets": row(&seconds), "Totals": row(&seconds),
        },
        "kvbench": {
            "schema_version": 1, "tool_version": "0", "complete": true, "runs_planned": 1,
            "runs_completed": 1, "seed": 1, "target": "t", "latency": "l",
            "latency_unit_of_histograms": "microseconds", "config": {"percentiles": PERCENTILES},
            "runs": [{"phase": "RUN #1", "start_time_ms": 1000, "duration_ms": 2000,
                      "ops_per_sec": 2.5, "thread_cpu_s": [0.25], "totals": {"SET": totals(5)},
                      "errors": errors, "open_loop": null, "server": null,
                      "histograms": {"SET": compressed(&whole)}}],
            "warmup": null, "prefill": null, "totals": {"SET": totals(5)},
            "hit_rate_percent": null, "errors": errors, "server": null, "variance": null,
            "interrupted": null, "warnings": [],
            "shard": {"index": 0, "count": 2, "source": "flags", "host": "m0"},
        }
    })
}

fn read(doc: &Value) -> ShardFile {
    check::from_text("f.json", &doc.to_string()).unwrap()
}

/// The refusal of `doc`, which must be refused.
fn refusal(doc: &Value) -> String {
    integrity::verify(&read(doc)).unwrap_err().to_string()
}

#[test]
fn a_consistent_file_passes() {
    integrity::verify(&read(&consistent())).unwrap();
}

#[test]
fn a_count_against_its_own_histogram_names_the_field_and_both_numbers() {
    let mut doc = consistent();
    doc["ALL STATS"]["Sets"]["Count"] = json!(1_000_005);
    assert_eq!(
        refusal(&doc),
        "f.json: RUN #1 Sets Count 1000005 but its histogram holds 5 samples: the file was edited or is damaged"
    );
}

#[test]
fn a_count_the_seconds_do_not_add_up_to_is_refused() {
    let mut doc = consistent();
    doc["ALL STATS"]["Totals"]["Time-Serie"]["1"]["Count"] = json!(7);
    let e = refusal(&doc);
    assert!(
        e.contains("RUN #1 Totals Count 5 but its Time-Serie seconds add up to 10"),
        "{e}"
    );
}

#[test]
fn a_percentile_off_by_more_than_its_rounding_is_refused() {
    let mut doc = consistent();
    let p99 = doc["ALL STATS"]["Sets"]["Percentile Latencies"]["p99.00"]
        .as_f64()
        .unwrap();
    // Within the printed rounding still passes.
    doc["ALL STATS"]["Sets"]["Percentile Latencies"]["p99.00"] = json!(p99 + 0.0004);
    integrity::verify(&read(&doc)).unwrap();
    doc["ALL STATS"]["Sets"]["Percentile Latencies"]["p99.00"] = json!(p99 / 2.0);
    let e = refusal(&doc);
    assert!(
        e.contains(&format!(
            "RUN #1 Sets p99.00 is {} ms but its histogram gives {p99} ms",
            p99 / 2.0
        )),
        "{e}"
    );
}

#[test]
fn the_runs_totals_and_histograms_are_checked_against_the_row() {
    let mut doc = consistent();
    doc["kvbench"]["runs"][0]["totals"]["SET"]["count"] = json!(6);
    assert!(
        refusal(&doc).contains("Sets Count 5 but kvbench.runs[0].totals.SET.count is 6"),
        "{}",
        refusal(&doc)
    );

    let mut doc = consistent();
    let other = histogram(&[1, 2, 3, 4, 5]);
    doc["kvbench"]["runs"][0]["histograms"]["SET"] = json!(compressed(&other));
    let e = refusal(&doc);
    assert!(
        e.contains("kvbench.runs[0].histograms.SET is not the histogram of RUN #1 Sets"),
        "{e}"
    );
}

#[test]
fn the_file_totals_are_the_sum_of_its_runs() {
    let mut doc = consistent();
    doc["kvbench"]["totals"]["SET"]["bytes_rx"] = json!(1);
    assert_eq!(
        refusal(&doc),
        "f.json: kvbench.totals.SET.bytes_rx 1 but its runs add up to 25: the file was edited or is damaged"
    );
}

#[test]
fn never_sent_requests_are_counted_apart_from_the_replies() {
    let mut doc = consistent();
    let replies = row(&[histogram(&[100, 120, 90_000]), histogram(&[80, 95])]);
    let block = |values: &[u64]| {
        let h = histogram(values);
        json!({"Count": h.len(), "Average Latency": 0.1, "Max Latency": 0.1,
               "Compressed Histogram": compressed(&h)})
    };
    let reply_block = json!({"Count": 5, "Average Latency": 0.1, "Max Latency": 0.1,
        "Compressed Histogram": replies["Percentile Latencies"]["Histogram log format"]["Compressed Histogram"]});
    let open_loop = json!({
        "target_ops_per_sec": 10.0, "arrival": "constant", "achieved_ops_per_sec": 2.5,
        "met": false, "never_sent": 2, "backlog_per_second": [0, 2],
        "busiest_thread_cpu_percent": 1.0, "schedule_lag": block(&[1, 1, 2, 3, 5]),
        "headline": "response_time",
        "service_time": {"Sets": reply_block, "Totals": reply_block},
        "response_time": {"Sets": reply_block, "Totals": reply_block},
        "never_sent_wait": {"Sets": block(&[500, 700]), "Totals": block(&[500, 700])},
    });
    doc["kvbench"]["runs"][0]["open_loop"] = open_loop;
    integrity::verify(&read(&doc)).unwrap();

    let mut counted = doc.clone();
    counted["kvbench"]["runs"][0]["open_loop"]["never_sent"] = json!(3);
    let e = refusal(&counted);
    assert!(
        e.contains("open_loop.never_sent 3 but never_sent_wait counts 2 (Totals) and 2 (its ops)"),
        "{e}"
    );
    let mut served = doc;
    served["kvbench"]["runs"][0]["open_loop"]["service_time"]["Sets"]["Count"] = json!(7);
    let e = refusal(&served);
    assert!(
        e.contains("open_loop.service_time.Sets Count 7 but its histogram holds 5 samples"),
        "{e}"
    );
}

#[test]
fn a_relabelled_copy_keeps_its_digest_and_other_samples_do_not() {
    let doc = consistent();
    let original = digest::of(&read(&doc));
    assert_eq!(original.0.len(), 64);
    let mut relabelled = doc.clone();
    relabelled["kvbench"]["shard"] =
        json!({"index": 1, "count": 2, "source": "flags", "host": "m1"});
    relabelled["kvbench"]["warnings"] = json!([{"kind": "k", "message": "m"}]);
    assert_eq!(digest::of(&read(&relabelled)), original);
    let mut other = doc;
    let seconds = [histogram(&[100, 121, 90_000]), histogram(&[80, 95])];
    other["ALL STATS"]["Sets"] = row(&seconds);
    assert_ne!(digest::of(&read(&other)), original);
    // A merged file stands for the measurements it lists.
    let mut merged = read(&relabelled);
    merged.kvbench.merged = Some(crate::report::model::shard::Merged {
        files: vec!["a.json".into(), "b.json".into()],
        partial: false,
        missing: Vec::new(),
        sha256: vec!["0".repeat(64), "1".repeat(64)],
        ..Default::default()
    });
    let held = digest::measurements(&merged);
    assert_eq!(held.len(), 2);
    assert_eq!(held[1].0, "1".repeat(64));
}

/// A fresh directory for one test's interval logs.
fn log_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kvbench-hlog-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `p_SET_command_run_1.hlog` in `dir`, second `i` holding `seconds[i]`.
fn write_log(dir: &std::path::Path, seconds: &[Histogram<u64>]) {
    use hdrhistogram::serialization::V2DeflateSerializer;
    use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
    let mut file = std::fs::File::create(dir.join("p_SET_command_run_1.hlog")).unwrap();
    let mut serializer = V2DeflateSerializer::new();
    let mut log = IntervalLogWriterBuilder::new()
        .with_base_time(std::time::SystemTime::now())
        .begin_log_with(&mut file, &mut serializer)
        .unwrap();
    for (i, h) in seconds.iter().enumerate() {
        let start = std::time::Duration::from_secs(i as u64);
        let second = std::time::Duration::from_secs(1);
        log.write_histogram(h, start, second, Tag::new("SET"))
            .unwrap();
    }
}

/// The consistent file, at `dir/f.json`, naming `prefix` as its
/// `--hdr-file-prefix`.
fn with_prefix(dir: &std::path::Path, prefix: &str) -> ShardFile {
    let mut doc = consistent();
    doc["kvbench"]["config"]["hdr_file_prefix"] = json!(prefix);
    let path = dir.join("f.json");
    check::from_text(path.to_str().unwrap(), &doc.to_string()).unwrap()
}

fn sets_row(f: &ShardFile) -> &crate::report::model::section::OpRow {
    crate::tools::merge::run::section_of(f, 0)
        .unwrap()
        .row("Sets")
        .unwrap()
}

#[test]
fn each_seconds_histogram_is_read_from_the_runs_interval_log_and_checked() {
    use crate::tools::merge::hlog;
    let dir = log_dir("read");
    let seconds = [histogram(&[100, 120, 90_000]), histogram(&[80, 95])];
    write_log(&dir, &seconds);
    // The prefix as written, and (moved elsewhere) its file name beside
    // the JSON file.
    for prefix in [dir.join("p").to_str().unwrap(), "/nowhere/p"] {
        let f = with_prefix(&dir, prefix);
        let read = hlog::seconds_of(&f, 1, "Sets", "SET", sets_row(&f))
            .unwrap()
            .expect("the log is found");
        assert_eq!(read.len(), 2);
        assert_eq!(read[&0], seconds[0]);
        assert_eq!(read[&1], seconds[1]);
    }
    // A run that wrote no log: nothing to add, and no refusal.
    let f = with_prefix(&dir, "/nowhere/q");
    assert!(
        hlog::seconds_of(&f, 1, "Sets", "SET", sets_row(&f))
            .unwrap()
            .is_none()
    );

    // A log whose seconds do not hold the file's counts is refused.
    write_log(&dir, &[seconds[1].clone(), seconds[0].clone()]);
    let f = with_prefix(&dir, dir.join("p").to_str().unwrap());
    let e = hlog::seconds_of(&f, 1, "Sets", "SET", sets_row(&f))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("holds 2 samples in second 0, but the file's Time-Serie Count is 3"),
        "{e}"
    );
    // And so is one that lacks a second with replies.
    write_log(&dir, &seconds[..1]);
    let e = hlog::seconds_of(&f, 1, "Sets", "SET", sets_row(&f))
        .unwrap_err()
        .to_string();
    assert!(e.contains("has no interval for second 1"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
