//! `kvbench compare` on real result files: ratios to the first file in text,
//! Markdown and CSV, one entry per cell of a sweep, differences judged against
//! the files' run-to-run spread, and usage errors that name what is wrong.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use common::{Redis, kvbench, kvbench_ok};
use serde_json::Value;

const CSV_HEADER: &str = "op,file,ops_per_sec,ops_ratio,avg_ms,avg_ratio,p50_ms,p50_ratio,p99_ms,p99_ratio,p999_ms,p999_ratio,verdict";
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
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e_compare");
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

fn compare(args: &[&str]) -> Output {
    let mut full = vec!["compare"];
    full.extend_from_slice(args);
    kvbench(&full)
}

fn compare_ok(args: &[&str]) -> String {
    let out = compare(args);
    assert!(
        out.status.success(),
        "compare {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Splits one CSV line, honouring double-quoted fields.
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(String::new()),
            c => fields.last_mut().unwrap().push(c),
        }
    }
    assert!(!quoted, "unbalanced quotes in {line:?}");
    fields
}

/// The CSV as rows of fields, checking the header and the field count.
fn csv_rows(csv: &str) -> Vec<Vec<String>> {
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(CSV_HEADER));
    lines
        .map(|l| {
            let fields = csv_fields(l);
            assert_eq!(fields.len(), 13, "{l:?}");
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

/// The verdict compare should give `other` against `first`, from the files' numbers.
fn expected_verdict(first: &Value, other: &Value, op: &str) -> String {
    let r = ops_per_sec(other, op) / ops_per_sec(first, op);
    let spread = |d: &Value| d.pointer("/kvbench/variance/max_over_min")?.as_f64();
    let change = format!("{:+.1} % ops/sec", (r - 1.0) * 100.0);
    match spread(first)
        .into_iter()
        .chain(spread(other))
        .reduce(f64::max)
    {
        Some(s) if r.max(1.0 / r) <= s => {
            format!("noise (runs vary {:.1} %)", (s - 1.0) * 100.0)
        }
        Some(_) => change,
        None => format!("{change} (spread unknown: use -x 3)"),
    }
}

#[test]
fn text_comparison_shows_the_baseline_and_ratios_to_it() {
    let f = files();
    let text = compare_ok(&[&f.arg("a.json"), &f.arg("b.json")]);
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
        let verdict = expected_verdict(&a, &b, op);
        assert!(other.trim_end().ends_with(&verdict), "{other} vs {verdict}");
    }
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
    let lines: Vec<&str> = md.lines().collect();
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
    assert!(separator.iter().all(|c| c == "---"), "{}", lines[1]);
    for l in &lines[2..] {
        assert_eq!(cells(l).len(), 13, "{l}");
    }
    let first = cells(lines[2]);
    assert_eq!((first[0].as_str(), first[1].as_str()), ("Sets", "a.json"));
    assert_eq!(first[3], "1.000");
    assert_eq!(first[12], "baseline");
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
        assert_eq!(base[12], "baseline");
        let other = &rows[2 * i + 1];
        assert_eq!((other[0].as_str(), other[1].as_str()), (*op, "b.json"));
        assert_eq!(other[2], format!("{:.2}", ops_per_sec(&b, op)));
        let avg = headline(&b)[op]["Average Latency"].as_f64().unwrap();
        assert_eq!(other[4], format!("{avg:.3}"));
        assert_eq!(other[12], expected_verdict(&a, &b, op));
    }
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
}

/// Writes a copy of `source` with `edit` applied, as `name`.
fn edited(source: &str, name: &str, edit: impl FnOnce(&mut Value)) -> String {
    let f = files();
    let mut doc = f.json(source);
    edit(&mut doc);
    std::fs::write(f.path(name), serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    f.arg(name)
}

/// Multiplies every op's Ops/sec in the headline section by `factor`.
fn scale_ops(doc: &mut Value, factor: f64) {
    let title = doc
        .as_object()
        .unwrap()
        .keys()
        .find(|k| k.starts_with("AGGREGATED AVERAGE RESULTS") || *k == "ALL STATS")
        .unwrap()
        .clone();
    for op in OPS {
        let v = &mut doc[&title][op]["Ops/sec"];
        *v = serde_json::json!(v.as_f64().unwrap() * factor);
    }
}

/// A complete `kvbench.variance` of two runs, `min` and `min × max_over_min`.
fn variance(min: f64, max_over_min: f64) -> Value {
    let max = min * max_over_min;
    let mean = (min + max) / 2.0;
    serde_json::json!({
        "ops_per_sec": [min, max], "mean": mean, "median": mean, "min": min, "max": max,
        "max_over_min": max_over_min, "cv": 0.0, "ci95_low": min, "ci95_high": max,
        "noisy": max_over_min > 1.1,
    })
}

#[test]
fn a_difference_inside_the_run_to_run_spread_is_marked_noise() {
    // single.json as the baseline, once with a 2× run-to-run spread written in,
    // against a copy 50 % faster: the spread covers the difference.
    let noisy = edited("single.json", "noisy.json", |d| {
        d["kvbench"]["variance"] = variance(100.0, 2.0);
    });
    let steady = edited("single.json", "steady.json", |d| {
        d["kvbench"]["variance"] = variance(100.0, 1.2);
    });
    let faster = edited("single.json", "faster.json", |d| scale_ops(d, 1.5));
    let plain = files().arg("single.json");

    let verdicts = |first: &str| -> Vec<String> {
        let rows = csv_rows(&compare_ok(&[first, &faster, "--format", "csv"]));
        assert_eq!(rows.len(), 6);
        rows.iter()
            .filter(|r| r[1] == "faster.json")
            .map(|r| r[12].clone())
            .collect()
    };
    for v in verdicts(&noisy) {
        assert_eq!(v, "noise (runs vary 100.0 %)");
    }
    // A smaller spread does not cover +50 %; no spread at all says so.
    for v in verdicts(&steady) {
        assert_eq!(v, "+50.0 % ops/sec");
    }
    for v in verdicts(&plain) {
        assert_eq!(v, "+50.0 % ops/sec (spread unknown: use -x 3)");
    }
    // A spread is a factor: 0.4× is 2.5× slower, beyond a 2× spread, though
    // its -60 % is smaller than the spread's +100 %.
    let slower = edited("single.json", "slower.json", |d| scale_ops(d, 0.4));
    let rows = csv_rows(&compare_ok(&[&noisy, &slower, "--format", "csv"]));
    for r in rows.iter().filter(|r| r[1] == "slower.json") {
        assert_eq!(r[12], "-60.0 % ops/sec", "{r:?}");
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
}
