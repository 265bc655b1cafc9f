//! The JSON report of real runs validates against `docs/output.schema.json`, and the schema rejects broken documents.

use std::collections::HashSet;
use std::process::Stdio;
use std::time::Duration;

use jsonschema::Validator;
use serde_json::Value;

use crate::common;
use crate::common::{Redis, TempDir, decode_histogram, kvbench_at, read_json, row_histogram};

const SCHEMA: &str = include_str!("../../docs/output.schema.json");

pub(crate) fn validator() -> Validator {
    let schema: Value = serde_json::from_str(SCHEMA).expect("docs/output.schema.json is JSON");
    if let Err(e) = jsonschema::meta::validate(&schema) {
        panic!(
            "docs/output.schema.json is not a valid JSON Schema: {e} at {}",
            e.instance_path
        );
    }
    jsonschema::validator_for(&schema).expect("docs/output.schema.json compiles")
}

/// Every validation error, one line each: where, and what.
fn errors(validator: &Validator, doc: &Value) -> Vec<String> {
    validator
        .iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path))
        .collect()
}

pub(crate) fn assert_valid(validator: &Validator, doc: &Value, what: &str) {
    let errs = errors(validator, doc);
    assert!(
        errs.is_empty(),
        "{what} does not match docs/output.schema.json ({} errors):\n{}",
        errs.len(),
        errs.join("\n")
    );
}

/// Runs kvbench against a fresh server with `args` (split at spaces) and
/// returns its JSON report, asserting that it validates; `what` names the run.
/// A `--rate` run here passes `--allow-invalid`: on a busy machine some of its
/// requests may never be sent, and the document must validate either way.
fn valid_report(args: &str, what: &str) -> Value {
    let redis = Redis::start();
    let doc = redis.kvbench_json(args).doc;
    assert_valid(&validator(), &doc, what);
    doc
}

#[test]
fn a_single_run_with_warmup_validates() {
    let doc = valid_report(
        "-t 2 -c 2 --warmup-time 1 --test-time 1 --ratio 1:4 --key-maximum 1000",
        "a single run with warm-up",
    );

    assert!(
        doc.get("ALL STATS").is_some(),
        "a single run is reported as ALL STATS"
    );
    let kv = &doc["kvbench"];
    assert_eq!(kv["complete"], true);
    assert_eq!(kv["runs_completed"], 1);
    assert!(
        kv["warmup"].is_object(),
        "the warm-up is reported: {}",
        kv["warmup"]
    );

    // The histogram holds every reply of the section, in microseconds.
    let totals = &doc["ALL STATS"]["Totals"];
    let h = row_histogram(totals);
    assert_eq!(Some(h.len()), totals["Count"].as_u64());
    let max_ms = totals["Max Latency"].as_f64().unwrap();
    assert!(
        (h.max() as f64 / 1000.0 - max_ms).abs() < 0.001,
        "histogram max {} µs vs Max Latency {max_ms} ms",
        h.max()
    );
}

#[test]
fn a_multi_run_report_validates() {
    let doc = valid_report(
        "-t 2 -c 2 -x 2 -n 300 --ratio 1:1 --key-maximum 1000",
        "a two-run report",
    );

    for key in [
        "RUN #1 RESULTS",
        "RUN #2 RESULTS",
        "BEST RUN RESULTS",
        "WORST RUN RESULTS",
        "AGGREGATED AVERAGE RESULTS (2 runs)",
    ] {
        assert!(doc.get(key).is_some(), "{key} is missing");
    }
    assert!(doc.get("ALL STATS").is_none());
    let kv = &doc["kvbench"];
    assert_eq!(kv["warmup"], Value::Null);
    assert_eq!(kv["runs"].as_array().map(Vec::len), Some(2));
    // 2 runs x 4 connections x 300 requests, half of them SET.
    let all: u64 = 2 * 4 * 300;
    assert_eq!(kv["totals"]["SET"]["count"], all / 2);
    assert_eq!(kv["totals"]["GET"]["count"], all / 2);
    let aggregate = &doc["AGGREGATED AVERAGE RESULTS (2 runs)"]["Totals"];
    assert_eq!(aggregate["Count"], all);
    assert_eq!(row_histogram(aggregate).len(), all);
}

/// Snapshots written after earlier phases (kvbench.complete false) validate too.
#[test]
fn snapshots_written_between_phases_validate() {
    let redis = Redis::start();
    let dir = TempDir::new("schema-snapshots");
    let path = dir.path("snap.json");
    let mut child = kvbench_at(redis.port)
        .args("-t 1 -c 2 --warmup-time 1 --test-time 1 -x 2 --key-maximum 1000".split_whitespace())
        .args(["--json-out-file", path.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start kvbench");
    // Every distinct version of the file seen while kvbench runs; the file is
    // replaced by a rename, so each read is one whole version.
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let mut known = HashSet::new();
    let status = loop {
        if let Ok(bytes) = std::fs::read(&path) {
            if known.insert(bytes.clone()) {
                seen.push(bytes);
            }
        }
        if let Some(status) = child.try_wait().expect("poll kvbench") {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(status.success(), "kvbench failed: {status}");
    let last = std::fs::read(&path).expect("the final report");
    if known.insert(last.clone()) {
        seen.push(last);
    }

    let validator = validator();
    let mut snapshots = 0;
    for bytes in &seen {
        let doc: Value = serde_json::from_slice(bytes).expect("every version is whole JSON");
        let complete = doc["kvbench"]["complete"] == true;
        snapshots += usize::from(!complete);
        assert_valid(
            &validator,
            &doc,
            &format!("a version with complete={complete}"),
        );
    }
    let final_doc = read_json(&path);
    assert_eq!(final_doc["kvbench"]["complete"], true);
    eprintln!(
        "validated {} versions of the report, {snapshots} of them snapshots",
        seen.len()
    );
}

/// The schema has teeth: each of these damaged documents must fail.
#[test]
fn the_schema_rejects_broken_documents() {
    let doc = valid_report("-t 1 -c 2 -n 100 --ratio 1:1", "the undamaged document");
    let validator = validator();

    type Damage = fn(&mut Value);
    let cases: [(&str, Damage); 8] = [
        ("kvbench.totals removed", |d| {
            d["kvbench"].as_object_mut().unwrap().remove("totals");
        }),
        ("Sets.Count as a string", |d| {
            d["ALL STATS"]["Sets"]["Count"] = Value::String("100".into());
        }),
        ("Ops/sec renamed", |d| {
            let sets = d["ALL STATS"]["Sets"].as_object_mut().unwrap();
            let v = sets.remove("Ops/sec").unwrap();
            sets.insert("Ops/s".into(), v);
        }),
        ("an unknown field in kvbench", |d| {
            d["kvbench"]["extra"] = Value::Bool(true);
        }),
        ("schema_version 2", |d| {
            d["kvbench"]["schema_version"] = 2.into()
        }),
        ("a percentile key with one decimal", |d| {
            d["ALL STATS"]["Totals"]["Percentile Latencies"]["p99.9"] = 1.0.into();
        }),
        ("a Time-Serie key that is not a second", |d| {
            let first = d["ALL STATS"]["Gets"]["Time-Serie"]["0"].clone();
            d["ALL STATS"]["Gets"]["Time-Serie"]["first"] = first;
        }),
        ("BEST RUN RESULTS beside ALL STATS", |d| {
            let all = d["ALL STATS"].clone();
            d["BEST RUN RESULTS"] = all.clone();
            d["WORST RUN RESULTS"] = all;
        }),
    ];
    for (what, damage) in cases {
        let mut broken = doc.clone();
        damage(&mut broken);
        assert!(
            !validator.is_valid(&broken),
            "the schema accepted a document with {what}"
        );
    }
}

#[test]
fn an_open_loop_run_validates_and_reports_its_schedule() {
    let doc = valid_report(
        "-t 1 -c 2 --rate 1000 --test-time 1 --ratio 1:1 --allow-invalid",
        "a --rate run",
    );

    let open_loop = &doc["kvbench"]["runs"][0]["open_loop"];
    assert!(
        open_loop.is_object(),
        "a --rate run has an open_loop object: {open_loop}"
    );
    assert_eq!(open_loop["target_ops_per_sec"], 1000.0);
    assert_eq!(open_loop["arrival"], "constant");
    // Service and response time are measured for the same replies.
    let totals = &doc["ALL STATS"]["Totals"];
    let service = &open_loop["service_time"]["Totals"];
    assert_eq!(service["Count"], totals["Count"]);
    let h = decode_histogram(service["Compressed Histogram"].as_str().unwrap());
    assert_eq!(Some(h.len()), totals["Count"].as_u64());
}

/// memtier's semantics change the configuration, not the layout; a timed run's
/// `run information` says `Seconds` and `--hide-histogram` drops the arrays.
#[test]
fn a_memtier_compat_timed_run_without_histograms_validates() {
    let doc = valid_report(
        "--memtier-compat -t 1 -c 2 --test-time 1 --key-pattern S:S --key-maximum 100 --hide-histogram",
        "a --memtier-compat timed run",
    );
    assert_eq!(doc["run information"]["Seconds"], 1);
    assert_eq!(doc["kvbench"]["config"]["memtier_compat"], true);
    assert_eq!(doc["kvbench"]["config"]["seeding"], "shared");
    assert_eq!(doc["configuration"]["connection_timeout"], 0);
    assert!(doc["ALL STATS"].get("SET").is_none());
}

/// memtier's percentile keys, p100.0 included, in every place they appear.
#[test]
fn memtiers_percentile_keys_validate_wherever_they_appear() {
    let doc = valid_report(
        "-t 1 -c 2 --test-time 1 --rate 1000 --key-maximum 100 --print-percentiles 50,99.99,99.999,100 --allow-invalid",
        "a run printing p100",
    );
    let totals = &doc["ALL STATS"]["Totals"];
    let keys: Vec<&String> = totals["Percentile Latencies"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| k.starts_with('p'))
        .collect();
    assert_eq!(keys, ["p50.00", "p99.99", "p99.999", "p100.0"]);
    // The maximum is p100, in ms like the max.
    assert_eq!(
        totals["Percentile Latencies"]["p100.0"],
        totals["Max Latency"]
    );
    let second = totals["Time-Serie"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    assert!(second["p100.0"].is_number(), "{second}");
    let response = &doc["kvbench"]["runs"][0]["open_loop"]["response_time"]["Totals"];
    assert!(response["p100.0"].is_number(), "{response}");
}

#[test]
fn a_command_run_with_a_line_breakdown_and_a_rate_validates() {
    let redis = Redis::start();
    let doc = common::kvbench_json(
        redis.port,
        "-t 1 -c 2 --test-time 1 --rate 2000 --key-maximum 100 --command-stats-breakdown line --allow-invalid",
        &[
            "--command",
            "HSET __key__ f __data__",
            "--command",
            "HGET __key__ f",
            "--command",
            "HGET other:__key__ f",
        ],
    )
    .doc;
    assert_valid(&validator(), &doc, "a --command run");
    let all = &doc["ALL STATS"];
    assert!(all["Hgets#2"]["Count"].as_u64().unwrap() > 0, "{all}");
    let service = &doc["kvbench"]["runs"][0]["open_loop"]["service_time"];
    assert_eq!(service["Hsets"]["Count"], all["Hsets"]["Count"]);
    // A misspelt row is still refused.
    let mut broken = doc.clone();
    broken["ALL STATS"]["hsets"] = broken["ALL STATS"]["Hsets"].clone();
    assert!(!errors(&validator(), &broken).is_empty());
}

#[test]
fn reports_of_every_protocol_validate() {
    let validator = validator();
    let redis = Redis::start();
    let doc = redis.kvbench_json("-P resp3 -t 1 -c 2 -n 100").doc;
    assert_valid(&validator, &doc, "a -P resp3 run");
    assert_eq!(doc["configuration"]["protocol"], "resp3");
    let memcached = common::memcached::Memcached::start();
    for protocol in ["memcache_text", "memcache_binary", "memcache_meta"] {
        let args = format!("-P {protocol} -t 1 -c 2 -n 100 --prefill --key-maximum 500");
        let doc = common::kvbench_json(memcached.port, &args, &[]).doc;
        assert_valid(&validator, &doc, protocol);
        assert_eq!(doc["configuration"]["protocol"], protocol);
    }
}

#[test]
fn a_report_with_a_silenced_warning_validates_and_silenced_is_only_true() {
    let doc = valid_report(
        "-t 1 -c 1 -n 100 --no-warning short_run",
        "a report with a silenced warning",
    );
    let warnings = doc["kvbench"]["warnings"].as_array().unwrap();
    let silenced = warnings.iter().filter(|w| w["silenced"] == true).count();
    assert_eq!(silenced, 1, "{warnings:?}");
    // `silenced` is written only when true: false is not a value it takes.
    let mut broken = doc.clone();
    let first = &mut broken["kvbench"]["warnings"][0];
    first["silenced"] = Value::Bool(false);
    assert!(!validator().is_valid(&broken));
}

/// A sweep document validates as a sweep, each cell as a report that says
/// which cell it is; a cell without `kvbench.cell` is refused.
#[test]
fn a_sweep_validates_and_each_cell_names_itself() {
    let doc = valid_report(
        "-t 1 -c 2 -n 100 --ratio 1:1 --key-maximum 100 --pipeline 1,4",
        "a two-cell sweep",
    );
    let cells = doc["sweep"]["cells"].as_array().expect("sweep.cells");
    assert_eq!(cells.len(), 2);
    assert_eq!(doc["kvbench"]["cells_completed"], 2);
    for (i, cell) in cells.iter().enumerate() {
        assert_eq!(cell["kvbench"]["cell"]["index"], i);
        // 2 connections x 100 requests in every cell.
        assert_eq!(cell["ALL STATS"]["Totals"]["Count"], 200);
    }
    let validator = validator();
    let mut broken = doc.clone();
    broken["sweep"]["cells"][1]["kvbench"]
        .as_object_mut()
        .unwrap()
        .remove("cell");
    assert!(!validator.is_valid(&broken), "a cell without kvbench.cell");
    let mut broken = doc.clone();
    broken["kvbench"]["schema_version"] = 0.into();
    assert!(!validator.is_valid(&broken), "a sweep's schema_version 0");
}

/// A `kvbench suite` file validates: each test's report as a report, and the
/// suite's own progress object.
#[test]
fn a_suite_file_validates() {
    let redis = Redis::start();
    let dir = TempDir::new("schema-suite");
    let path = dir.path("suite.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(["suite", "-p", &redis.port.to_string()])
        .args("-t set,get -n 200 -c 2 -r 100".split_whitespace())
        .args(["--json-out-file", path.to_str().unwrap()])
        .env_remove("KVBENCH_AUTH")
        .output()
        .expect("run kvbench suite");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = read_json(&path);
    let validator = validator();
    assert_valid(&validator, &doc, "a suite file");
    let tests = doc["suite"]["tests"].as_array().expect("suite.tests");
    assert_eq!(tests.len(), 2);
    assert_eq!(doc["kvbench"]["tests_completed"], 2);
    for test in tests {
        assert_eq!(test["report"]["ALL STATS"]["Totals"]["Count"], 200);
    }
    // A test's report is held to the report's schema.
    let mut broken = doc.clone();
    broken["suite"]["tests"][0]["report"]["kvbench"]["extra"] = true.into();
    assert!(
        !validator.is_valid(&broken),
        "an unknown key in a test's report"
    );
}
