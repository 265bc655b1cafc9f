//! `kvbench compare` on real result files: ratios to the first file in text,
//! Markdown and CSV, the files block (hit rates, differing settings), one
//! entry per cell of a sweep, and usage errors that name what is wrong. The
//! verdict against the measured spread is tests/e2e/compare_latency.rs's; a
//! file whose own verdict is not valid is [`invalid`]'s.

mod invalid;
mod settings;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use crate::common;
use crate::common::compare::{compare, compare_ok, csv_fields};
use crate::common::{Redis, kvbench_ok};
use serde_json::Value;

const CSV_HEADER: &str = "op,file,ops_per_sec,ops_ratio,avg_ms,avg_ratio,p50_ms,p50_ratio,p99_ms,p99_ratio,p999_ms,p999_ratio,hit_rate_percent,verdict";
/// The CSV's last field.
const VERDICT: usize = 13;
/// Without two runs in either file, every verdict starts so.
const NO_SPREAD: &str = "no spread measured: run with -x 3 to judge";
const OPS: [&str; 3] = ["Sets", "Gets", "Totals"];

/// Result files written once for every test: two 2-run files (`a.json`,
/// `b.json`), a single run (`single.json`) and a two-cell sweep (`sweep.json`).
struct Files {
    dir: PathBuf,
}

impl Files {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn arg(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_string()
    }

    fn json(&self, name: &str) -> Value {
        common::read_json(&self.path(name))
    }
}

fn files() -> &'static Files {
    static FILES: OnceLock<Files> = OnceLock::new();
    FILES.get_or_init(|| {
        // Under cargo's scratch folder for tests; earlier runs' files are removed.
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("compare");
        let _ = std::fs::remove_dir_all(&root);
        let dir = root.join(std::process::id().to_string());
        std::fs::create_dir_all(&dir).unwrap();
        let redis = Redis::start();
        let common = "-t 1 -c 2 --key-maximum 5000 --ratio 1:1";
        for (name, args) in [
            ("a.json", "-x 2 -n 300"),
            ("b.json", "-x 2 -n 300 --pipeline 8"),
            ("single.json", "-n 300"),
            ("sweep.json", "-n 300 --pipeline 1,4"),
        ] {
            let json = dir.join(name);
            let mut full: Vec<&str> = common.split_whitespace().collect();
            full.extend(args.split_whitespace());
            full.extend(["--json-out-file", json.to_str().unwrap()]);
            kvbench_ok(redis.port, &full);
        }
        Files { dir }
    })
}

/// The CSV as rows of fields, checking the header and the field count.
fn csv_rows(csv: &str) -> Vec<Vec<String>> {
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(CSV_HEADER));
    lines
        .map(|l| {
            let fields = csv_fields(l);
            assert_eq!(fields.len(), VERDICT + 1, "{l:?}");
            fields
        })
        .collect()
}

/// The headline section compare reads: the aggregate of several runs, or ALL STATS.
fn headline(doc: &Value) -> &Value {
    doc.as_object()
        .unwrap()
        .iter()
        .find(|(k, _)| k.starts_with("AGGREGATED AVERAGE RESULTS"))
        .map_or(&doc["ALL STATS"], |(_, v)| v)
}

fn ops_per_sec(doc: &Value, op: &str) -> f64 {
    headline(doc)[op]["Ops/sec"].as_f64().unwrap()
}

/// The tables before the files block.
fn tables(out: &str) -> &str {
    out.rsplit_once("\n\nfiles").map_or(out, |(t, _)| t)
}

#[test]
fn text_comparison_shows_the_baseline_and_ratios_to_it() {
    let f = files();
    let out = compare_ok(&[&f.arg("a.json"), &f.arg("b.json")]);
    let text = tables(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 3 * 2, "{text}");
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(header[..3], ["op", "file", "ops/sec"], "{text}");
    assert!(lines[0].trim_end().ends_with("vs baseline"), "{text}");
    let (a, b) = (f.json("a.json"), f.json("b.json"));
    for (i, op) in OPS.iter().enumerate() {
        let base = lines[1 + 2 * i];
        let other = lines[2 + 2 * i];
        assert!(base.starts_with(op) && base.contains("a.json"), "{base}");
        assert!(base.trim_end().ends_with("baseline"), "{base}");
        assert!(
            base.contains(&format!("{:.2}", ops_per_sec(&a, op))),
            "{base}"
        );
        assert!(other.starts_with(op) && other.contains("b.json"), "{other}");
        let fields: Vec<&str> = other.split_whitespace().collect();
        let ratio: f64 = fields[3].parse().unwrap();
        let expected = ops_per_sec(&b, op) / ops_per_sec(&a, op);
        assert!((ratio - expected).abs() < 0.0006, "{other}: {expected}");
        // Both files ran twice: a spread was measured.
        assert!(!other.contains(NO_SPREAD), "{other}");
    }
    // The files block: the hit rates and the one setting changed.
    let block = out.rsplit_once("\n\n").unwrap().1;
    let rows: Vec<Vec<&str>> = block
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0], ["files", "a.json", "b.json"], "{block}");
    let hit = |d: &Value| format!("{:.2}", d["kvbench"]["hit_rate_percent"].as_f64().unwrap());
    assert_eq!(rows[1][4..], [hit(&a), hit(&b)], "{block}");
    assert_eq!(rows[2], ["differs:"], "{block}");
    assert_eq!(rows[3..], [vec!["pipeline", "1", "8"]], "{block}");
}

#[test]
fn markdown_comparison_is_a_well_formed_table() {
    let f = files();
    let md = compare_ok(&[
        &f.arg("a.json"),
        &f.arg("b.json"),
        &f.arg("single.json"),
        "--format",
        "md",
    ]);
    let (main, block) = md.split_once("\n\n").unwrap();
    let lines: Vec<&str> = main.lines().collect();
    assert_eq!(lines.len(), 2 + 3 * 3, "{md}");
    let cells = |l: &str| -> Vec<String> {
        assert!(l.starts_with('|') && l.ends_with('|'), "{l:?}");
        l[1..l.len() - 1]
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let header = cells(lines[0]);
    assert_eq!(header.len(), 13, "{}", lines[0]);
    assert_eq!(header[0], "op");
    assert_eq!(header[12], "vs baseline");
    let separator = cells(lines[1]);
    assert_eq!(separator.len(), 13);
    // The op, the file and the verdict left-aligned; the figures right.
    for (i, c) in separator.iter().enumerate() {
        let want = if i < 2 || i == 12 { "---" } else { "---:" };
        assert_eq!(c, want, "{}", lines[1]);
    }
    for l in &lines[2..] {
        assert_eq!(cells(l).len(), 13, "{l}");
    }
    let first = cells(lines[2]);
    assert_eq!((first[0].as_str(), first[1].as_str()), ("Sets", "a.json"));
    assert_eq!(first[3], "1.000");
    assert_eq!(first[12], "baseline");
    // The files block is a second table, a column per file.
    let block: Vec<Vec<String>> = block.lines().map(cells).collect();
    assert_eq!(block[0], ["files", "a.json", "b.json", "single.json"]);
    assert_eq!(block[2][0], "GET hit rate %");
    let differing: Vec<&str> = block[3..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        differing,
        ["differs: pipeline", "differs: run_count"],
        "{md}"
    );
    assert_eq!(block[3][1..], ["1", "8", "1"]);
}

#[test]
fn csv_comparison_has_the_header_and_a_row_per_op_and_file() {
    let f = files();
    let csv = compare_ok(&[&f.arg("a.json"), &f.arg("b.json"), "--format", "csv"]);
    let rows = csv_rows(&csv);
    assert_eq!(rows.len(), 3 * 2, "{csv}");
    let (a, b) = (f.json("a.json"), f.json("b.json"));
    for (i, op) in OPS.iter().enumerate() {
        let base = &rows[2 * i];
        assert_eq!((base[0].as_str(), base[1].as_str()), (*op, "a.json"));
        assert_eq!(base[2], format!("{:.2}", ops_per_sec(&a, op)));
        // Every ratio of the baseline is to itself.
        for column in [3, 5, 7, 9, 11] {
            assert_eq!(base[column], "1.000", "{op} column {column}: {base:?}");
        }
        assert_eq!(base[VERDICT], "baseline");
        let other = &rows[2 * i + 1];
        assert_eq!((other[0].as_str(), other[1].as_str()), (*op, "b.json"));
        assert_eq!(other[2], format!("{:.2}", ops_per_sec(&b, op)));
        let avg = headline(&b)[op]["Average Latency"].as_f64().unwrap();
        assert_eq!(other[4], format!("{avg:.3}"));
        let hit = b["kvbench"]["hit_rate_percent"].as_f64().unwrap();
        assert_eq!(other[12], format!("{hit:.2}"));
        assert!(!other[VERDICT].is_empty() && !other[VERDICT].starts_with(NO_SPREAD));
    }
    // CSV is one table: no files block after it.
    assert!(!csv.contains("differs"), "{csv}");
}

#[test]
fn a_sweep_file_contributes_one_entry_per_cell() {
    let f = files();
    let csv = compare_ok(&[
        &f.arg("sweep.json"),
        &f.arg("single.json"),
        "--format",
        "csv",
    ]);
    let rows = csv_rows(&csv);
    let labels: Vec<&str> = rows
        .iter()
        .filter(|r| r[0] == "Totals")
        .map(|r| r[1].as_str())
        .collect();
    assert_eq!(
        labels,
        [
            "sweep.json [pipeline=1]",
            "sweep.json [pipeline=4]",
            "single.json"
        ]
    );
    assert_eq!(rows.len(), 3 * 3);
    // Each cell's figures are its own report's.
    let sweep = f.json("sweep.json");
    for (i, cell) in sweep["sweep"]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let row = rows.iter().filter(|r| r[0] == "Totals").nth(i).unwrap();
        assert_eq!(row[2], format!("{:.2}", ops_per_sec(cell, "Totals")));
    }
    // One run in every entry: nothing is called noise.
    for r in rows.iter().filter(|r| r[1] != "sweep.json [pipeline=1]") {
        assert!(r[VERDICT].starts_with(NO_SPREAD), "{r:?}");
    }
}

/// Asserts a usage error: exit status 2 and a stderr naming `what`.
fn assert_usage_error(out: &Output, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains(what),
        "stderr does not name {what:?}: {stderr}"
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_missing_file_exits_2_naming_it() {
    let f = files();
    let missing = f.arg("no-such-result.json");
    let out = compare(&[&f.arg("a.json"), &missing]);
    assert_usage_error(&out, &missing);
}

#[test]
fn a_file_that_is_not_a_report_exits_2_naming_it() {
    let f = files();
    let text = f.path("notes.json");
    std::fs::write(&text, "this is not JSON\n").unwrap();
    let out = compare(&[&f.arg("a.json"), text.to_str().unwrap()]);
    assert_usage_error(&out, text.to_str().unwrap());

    let empty = f.path("empty.json");
    std::fs::write(&empty, "{}\n").unwrap();
    let out = compare(&[empty.to_str().unwrap(), &f.arg("a.json")]);
    assert_usage_error(&out, empty.to_str().unwrap());
}

#[test]
fn an_unknown_format_exits_2_naming_the_flag() {
    let f = files();
    let out = compare(&[&f.arg("a.json"), &f.arg("b.json"), "--format", "xml"]);
    assert_usage_error(&out, "--format");
    // The message lists the choices.
    assert_usage_error(&out, "text, md, csv");
}

#[test]
fn one_file_that_is_not_a_sweep_exits_2() {
    let out = compare(&[&files().arg("a.json")]);
    assert_usage_error(&out, "give two files or more, or one sweep file");
}
