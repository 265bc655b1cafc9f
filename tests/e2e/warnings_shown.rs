//! How warnings reach people: a sweep shows each kind once in the text report
//! and on stderr, naming the cells it applies to, while the JSON keeps every
//! cell's; `--no-warning KIND` keeps a kind from people but not from the JSON,
//! and an unknown KIND is refused before any connection opens.

use crate::common::{Redis, refused_before_connecting, warning_kinds};
use serde_json::Value;

/// The message of the warning of this kind; panics when it is absent.
fn message<'a>(doc: &'a Value, kind: &str) -> &'a str {
    doc["kvbench"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} warning in {}", doc["kvbench"]["warnings"]))["message"]
        .as_str()
        .unwrap()
}

fn assert_fires(doc: &Value, kind: &str) {
    assert!(
        warning_kinds(doc).contains(&kind),
        "expected a {kind} warning: {}",
        doc["kvbench"]["warnings"]
    );
}

#[test]
fn a_sweep_shows_each_warning_once_naming_its_cells_and_the_json_keeps_every_cell() {
    let redis = Redis::start();
    let run = redis.kvbench_json(
        "-t 1 -c 1 --key-minimum 1 --key-maximum 10 -n 50 --ratio 1:1 --pipeline 1,4,16,64",
    );
    let cells = run.doc["sweep"]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4);
    // Machines read every cell's warnings.
    for cell in cells {
        assert_fires(cell, "key_range_too_small");
    }
    let m = message(&cells[0], "key_range_too_small");
    assert!(m.contains("only 10 keys"), "{m}");
    let line = format!("(cells 1-4) {m}\n");
    assert_eq!(
        run.stderr.matches(m).count(),
        1,
        "not once on stderr:\n{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("kvbench: warning: {line}")),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout.matches(m).count(), 1, "{}", run.stdout);
    assert!(
        run.stdout.contains(&format!("Warning: {line}")),
        "{}",
        run.stdout
    );
    // After the summary table, not inside a cell's report.
    let table = run.stdout.find("SWEEP SUMMARY").unwrap();
    assert!(run.stdout.find(&line).unwrap() > table);
    // Every line on stderr names a different kind.
    let kinds = run.stderr.matches("kvbench: warning: ").count();
    assert!(
        (2..=warning_kinds(&cells[0]).len()).contains(&kinds),
        "{}",
        run.stderr
    );
}

#[test]
fn no_warning_silences_a_kind_for_people_and_marks_it_in_the_json() {
    let redis = Redis::start();
    // A one-second-or-less run raises short_run; ten keys raise key_range_too_small.
    let args = "-t 1 -c 1 --key-minimum 1 --key-maximum 10 -n 100 --ratio 1:1";
    let loud = redis.kvbench_json(args);
    let short = message(&loud.doc, "short_run").to_string();
    assert!(loud.stderr.contains(&short), "{}", loud.stderr);
    assert!(!loud.stdout.contains("silenced"), "{}", loud.stdout);

    let quiet = redis.kvbench_json(&format!("{args} --no-warning short_run"));
    let warnings = quiet.doc["kvbench"]["warnings"].as_array().unwrap();
    let silenced: Vec<&Value> = warnings.iter().filter(|w| w["silenced"] == true).collect();
    assert_eq!(silenced.len(), 1, "{warnings:?}");
    assert_eq!(silenced[0]["kind"], "short_run");
    // Only the silenced kind carries the field.
    let small = warnings
        .iter()
        .find(|w| w["kind"] == "key_range_too_small")
        .unwrap();
    assert!(small.get("silenced").is_none(), "{small}");
    let short = silenced[0]["message"].as_str().unwrap();
    assert!(!quiet.stderr.contains(short), "{}", quiet.stderr);
    assert!(!quiet.stdout.contains(short), "{}", quiet.stdout);
    assert!(
        quiet.stdout.contains("1 warning silenced (short_run)"),
        "{}",
        quiet.stdout
    );
    assert!(
        quiet
            .stderr
            .contains("kvbench: 1 warning silenced (short_run)"),
        "{}",
        quiet.stderr
    );
    // The other kinds still show.
    let m = message(&quiet.doc, "key_range_too_small");
    assert!(quiet.stderr.contains(&format!("kvbench: warning: {m}\n")));
    assert!(quiet.stdout.contains(&format!("Warning: {m}\n")));
}

#[test]
fn no_warning_in_a_sweep_counts_every_cells_silenced_warning() {
    let redis = Redis::start();
    let run = redis.kvbench_json(
        "-t 1 -c 1 --key-minimum 1 --key-maximum 10 -n 50 --pipeline 1,4 \
         --no-warning key_range_too_small --no-warning short_run",
    );
    for cell in run.doc["sweep"]["cells"].as_array().unwrap() {
        assert_fires(cell, "key_range_too_small");
        assert_fires(cell, "short_run");
    }
    assert!(
        !run.stderr.contains("key range holds only"),
        "{}",
        run.stderr
    );
    // Two kinds in each of two cells.
    assert!(
        run.stderr
            .contains("kvbench: 4 warnings silenced (key_range_too_small, short_run)"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("4 warnings silenced"), "{}", run.stdout);
}

#[test]
fn an_unknown_warning_kind_is_refused_naming_the_known_ones() {
    let redis = Redis::start();
    let stderr = refused_before_connecting(&redis, ["-n", "10", "--no-warning", "short-run"]);
    assert!(stderr.contains("--no-warning"), "{stderr}");
    assert!(stderr.contains("\"short-run\""), "{stderr}");
    assert!(stderr.contains("short_run, error_replies"), "{stderr}");
    assert!(stderr.contains("hot_shard"), "{stderr}");
}
