//! The model against hand-made documents: every layout reads, unknown keys
//! are tolerated, and a broken file's error names the field's path.

use serde_json::{Value, json};

use crate::report::model::section::SectionTitle;
use crate::report::model::{Document, Report, parse};

/// A row as both tools write it, with `ops` ops/sec.
fn row(ops: f64) -> Value {
    json!({
        "Count": 10, "Ops/sec": ops, "Hits/sec": 0.0, "Misses/sec": 0.0,
        "Connection Errors/sec": 0.0, "Connection Errors": 0,
        "Latency": 0.1, "Average Latency": 0.1, "Accumulated Latency": 1,
        "Min Latency": 0.01, "Max Latency": 0.5,
        "KB/sec": 1.0, "KB/sec RX/TX": 1.0, "KB/sec RX": 0.5, "KB/sec TX": 0.5,
        "Time-Serie": {"0": {"Bytes RX": 1, "Bytes TX": 2, "Count": 10,
                             "Average Latency": 0.1, "p50.00": 0.1}},
        "Percentile Latencies": {"p50.00": 0.1, "p99.00": 0.4,
            "Histogram log format": {"Compressed Histogram": ""}}
    })
}

fn section(rows: &[(&str, f64)]) -> Value {
    let mut s = serde_json::Map::new();
    s.insert(
        "Runtime".into(),
        json!({"Start time": 1, "Finish time": 2, "Total duration": 1,
               "Time unit": "MILLISECONDS", "Interrupted": "false"}),
    );
    for (name, ops) in rows {
        s.insert((*name).into(), row(*ops));
    }
    s.insert("HSET".into(), json!([{"<=msec": 0.1, "percent": 100.0}]));
    Value::Object(s)
}

fn report(doc: &Value) -> Report {
    match parse("t.json", &serde_json::to_string_pretty(doc).unwrap()).unwrap() {
        Document::Report(r) => *r,
        Document::Sweep(_) | Document::Suite(_) => panic!("read as a sweep or a suite"),
    }
}

#[test]
fn section_titles_read_and_print_the_same() {
    for title in [
        "ALL STATS",
        "RUN #12 RESULTS",
        "BEST RUN RESULTS",
        "WORST RUN RESULTS",
        "AGGREGATED AVERAGE RESULTS (3 runs)",
    ] {
        assert_eq!(SectionTitle::parse(title).unwrap().to_string(), title);
    }
    assert_eq!(SectionTitle::parse("RUN #x RESULTS"), None);
    assert_eq!(SectionTitle::parse("kvbench"), None);
}

#[test]
fn a_memtier_file_with_command_rows_reads_by_row_name() {
    let doc = json!({
        "configuration": {"server": "127.0.0.1"},
        "run information": {"Threads": 1, "Connections per thread": 1, "Seconds": 2, "Format version": 2},
        "ALL STATS": section(&[("Hsets", 5.0), ("Hgets", 7.0), ("Totals", 12.0)]),
    });
    let r = report(&doc);
    assert!(r.kvbench.is_none());
    let all = r.headline().unwrap();
    assert_eq!(
        all.rows.keys().collect::<Vec<_>>(),
        ["Hsets", "Hgets", "Totals"]
    );
    assert_eq!(all.row("Hgets").unwrap().ops_per_sec, 7.0);
    assert_eq!(all.distributions.keys().collect::<Vec<_>>(), ["HSET"]);
    assert_eq!(
        all.row("Totals").unwrap().percentiles.at_ms(99.0),
        Some(0.4)
    );
    assert_eq!(all.row("Totals").unwrap().percentiles.at_ms(99.9), None);
    // Written back, it reads the same.
    let again = report(&serde_json::to_value(&r).unwrap());
    assert_eq!(again, r);
}

#[test]
fn scan_iteration_rows_and_distributions_read_apart() {
    // `SCAN <cursor>` holds lower-case letters, and is a distribution still.
    let mut all = section(&[("Scan 0s", 1.0), ("Scan <cursor>s", 3.0), ("Totals", 4.0)]);
    let point = json!([{"<=msec": 0.1, "percent": 100.0}]);
    all["SCAN 0"] = point.clone();
    all["SCAN <cursor>"] = point;
    let r = report(&json!({ "ALL STATS": all }));
    let all = r.headline().unwrap();
    assert_eq!(
        all.rows.keys().collect::<Vec<_>>(),
        ["Scan 0s", "Scan <cursor>s", "Totals"]
    );
    assert_eq!(
        all.distributions.keys().collect::<Vec<_>>(),
        ["HSET", "SCAN 0", "SCAN <cursor>"]
    );
    assert_eq!(report(&serde_json::to_value(&r).unwrap()), r);
}

#[test]
fn the_aggregate_is_the_headline_of_several_runs() {
    let doc = json!({
        "RUN #1 RESULTS": section(&[("Totals", 1.0)]),
        "AGGREGATED AVERAGE RESULTS (1 runs)": section(&[("Totals", 3.0)]),
        "a future key": {"anything": [1, 2]},
    });
    let r = report(&doc);
    assert_eq!(
        r.headline().unwrap().row("Totals").unwrap().ops_per_sec,
        3.0
    );
    assert_eq!(r.other.keys().collect::<Vec<_>>(), ["a future key"]);
    assert_eq!(report(&serde_json::to_value(&r).unwrap()), r);
}

/// The error of reading `text`.
fn error(text: &str) -> crate::error::ModelError {
    parse("bad.json", text).unwrap_err()
}

#[test]
fn a_missing_field_names_its_object() {
    let mut doc = json!({"ALL STATS": section(&[("Sets", 1.0)])});
    doc["ALL STATS"]["Sets"]
        .as_object_mut()
        .unwrap()
        .remove("Ops/sec");
    let e = error(&serde_json::to_string_pretty(&doc).unwrap());
    assert_eq!(e.file, "bad.json");
    assert_eq!(e.path, r#".["ALL STATS"].Sets"#, "{e}");
    assert!(e.message.starts_with("missing field `Ops/sec`"), "{e}");
}

#[test]
fn a_mistyped_field_is_named_by_its_path() {
    let mut doc = json!({"ALL STATS": section(&[("Sets", 1.0), ("Gets", 2.0)])});
    doc["ALL STATS"]["Gets"]["Ops/sec"] = json!("fast");
    let e = error(&serde_json::to_string_pretty(&doc).unwrap());
    assert_eq!(e.path, r#".["ALL STATS"].Gets["Ops/sec"]"#, "{e}");
    assert!(e.message.contains("invalid type: string \"fast\""), "{e}");
    // The same compact, in an array of the kvbench object.
    let text = r#"{"kvbench": {"schema_version": 1, "warnings": [{"kind": "a", "message": "b"}, {"kind": 3}]}}"#;
    let e = error(text);
    assert_eq!(e.path, ".kvbench.warnings[1].kind", "{e}");
}

#[test]
fn a_truncated_file_says_where_it_ends() {
    let doc = json!({"ALL STATS": section(&[("Sets", 1.0)])});
    let text = serde_json::to_string_pretty(&doc).unwrap();
    let cut = text.find("\"Min Latency\"").unwrap() + 5;
    let e = error(&text[..cut]);
    assert!(e.message.starts_with("EOF while parsing"), "{e}");
    assert_eq!(
        e.path, r#".["ALL STATS"].Sets["Accumulated Latency"]"#,
        "{e}"
    );
}

#[test]
fn a_file_that_is_no_report_says_so() {
    let e = error("{}");
    assert!(e.message.contains("not a kvbench or memtier report"), "{e}");
    let e = error("this is not JSON");
    assert!(e.message.starts_with("expected"), "{e}");
    // A TOML file starts like a JSON array; the path is still one jq reads.
    let e = error("[package]\nname = \"x\"\n");
    assert_eq!(e.path, ".[0]", "{e}");
}

#[test]
fn paths_survive_escaped_quotes_and_non_ascii_keys() {
    // A key with an escaped quote and one with a µ, before the broken field.
    let text = r#"{"kvbench": {"schema_version": 1, "config": {"a \"quoted\" key": "µs", "µ": [1, {"}": 2}]}, "tool_version": 7}}"#;
    let e = error(text);
    assert_eq!(e.path, ".kvbench.tool_version", "{e}");
    assert!(e.message.contains("invalid type: integer `7`"), "{e}");
    let text = r#"{"ALL STATS": {"Runtime": {"Start time": 1, "Finish time": 2, "Total duration": 1, "Time unit": "ms", "Interrupted": "maybe"}}}"#;
    let e = error(text);
    assert_eq!(e.path, r#".["ALL STATS"].Runtime.Interrupted"#, "{e}");
    assert!(e.message.contains(r#"expected "true" or "false""#), "{e}");
}

#[test]
fn a_histogram_that_does_not_decode_says_why() {
    use crate::report::model::histogram::{CompressedHistogram, HistogramError};
    let not_base64 = CompressedHistogram("not base64!".into()).decode();
    assert!(matches!(not_base64, Err(HistogramError::NotBase64(_))));
    let empty = CompressedHistogram(String::new()).decode();
    assert!(matches!(empty, Err(HistogramError::NotHistogram(_))));
    // A histogram kvbench wrote decodes to what was recorded.
    let mut h = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
    h.record_n(250, 7).unwrap();
    let text = crate::report::json::compressed(&h);
    let back = CompressedHistogram(text).decode().unwrap();
    assert_eq!((back.len(), back.max()), (7, h.max()));
}
