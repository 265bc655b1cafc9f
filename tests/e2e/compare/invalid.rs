//! The verdict's share of tests/e2e/compare.rs: a run a full server mostly
//! refuses (`-OOM` at `--maxmemory 1mb`, `--allow-invalid`) compared with a
//! clean one. Text and Markdown name the invalid file and each reason its
//! JSON gives before the tables; the CSV keeps its header and fields and
//! says it on stderr; every judgement involving the invalid file says
//! `(not valid: bad.json)`, and none of the clean file's does. A suite
//! against the full server is named with its SET test's reasons, and only
//! its SET row is marked.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{CSV_HEADER, VERDICT, files};
use crate::common::compare::{compare, compare_ok, csv_fields};
use crate::common::{Redis, assert_success, kvbench, kvbench_ok, read_json};

/// The mark of a judgement that involves bad.json.
const MARK: &str = "(not valid: bad.json)";

/// bad.json: 2 runs of 1 KiB SETs over a million keys against a server
/// that refuses writes past 1 MiB, beside the shared files.
fn bad_json() -> PathBuf {
    let path = files().path("bad.json");
    let full = Redis::start_with(&["--maxmemory", "1mb", "--maxmemory-policy", "noeviction"]);
    let args = "-t 1 -c 2 -x 2 -n 300 --ratio 1:0 -d 1024 --key-maximum 1000000 --allow-invalid";
    let mut full_args: Vec<&str> = args.split_whitespace().collect();
    full_args.extend(["--json-out-file", path.to_str().unwrap()]);
    kvbench_ok(full.port, &full_args);
    path
}

/// The reasons of bad.json as compare shows them: `RUN #1: message`.
fn reason_lines(doc: &Value) -> Vec<String> {
    let verdict = &doc["kvbench"]["verdict"];
    assert_eq!(verdict["valid"], false, "{verdict}");
    let reasons = verdict["reasons"].as_array().unwrap();
    assert!(
        reasons.iter().any(|r| r["kind"] == "error_replies"),
        "{verdict}"
    );
    reasons
        .iter()
        .map(|r| {
            let message = r["message"].as_str().unwrap();
            match r["phase"].as_str() {
                Some(phase) => format!("{phase}: {message}"),
                None => message.to_string(),
            }
        })
        .collect()
}

#[test]
fn an_invalid_file_is_named_with_its_reasons_and_its_judgements_marked() {
    let f = files();
    let bad = bad_json();
    let (good, bad) = (f.arg("a.json"), bad.to_str().unwrap().to_string());
    let lines = reason_lines(&read_json(Path::new(&bad)));

    // Text: the notice first, a reason per line, then the tables.
    let out = compare(&[&good, &bad]);
    assert!(out.status.success(), "compare exits 0: it compared");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut expected =
        "INVALID RESULT: bad.json: these numbers do not measure the workload asked for\n"
            .to_string();
    for line in &lines {
        expected.push_str(&format!("  - {line}\n"));
    }
    assert!(text.starts_with(&expected), "{text}");
    assert_eq!(text.matches("INVALID RESULT").count(), 1, "{text}");
    let header = text.find("vs baseline").unwrap();
    assert!(text.find("INVALID RESULT").unwrap() < header);
    for row in text[header..].lines().skip(1) {
        let cells: Vec<&str> = row.split_whitespace().collect();
        match cells.get(1) {
            Some(&"bad.json") => assert!(row.ends_with(MARK), "{row}"),
            Some(&"a.json") => assert!(!row.contains("not valid"), "{row}"),
            _ => {}
        }
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    for line in &lines {
        assert!(
            stderr.contains(&format!("kvbench: invalid: bad.json: {line}")),
            "{stderr}"
        );
    }

    // Markdown: the same notice as a quote.
    let md = compare_ok(&[&good, &bad, "--format", "md"]);
    assert!(md.starts_with("> **INVALID RESULT: `bad.json`**"), "{md}");
    for line in &lines {
        assert!(md.contains(&format!("> - {line}\n")), "{md}");
    }

    // CSV: the table unchanged but for the marks; the notice on stderr.
    let out = compare(&[&good, &bad, "--format", "csv"]);
    let csv = String::from_utf8(out.stdout).unwrap();
    assert_eq!(csv.lines().next(), Some(CSV_HEADER));
    assert!(!csv.contains("INVALID"), "{csv}");
    let mut marked = 0;
    for line in csv.lines().skip(1) {
        let fields = csv_fields(line);
        assert_eq!(fields.len(), VERDICT + 1, "{line}");
        let bad_row = fields[1] == "bad.json";
        assert_eq!(fields[VERDICT].ends_with(MARK), bad_row, "{line}");
        marked += usize::from(bad_row);
    }
    assert!(marked >= 2, "Sets and Totals of bad.json:\n{csv}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("kvbench: invalid: bad.json: {}", lines[0])),
        "{stderr}"
    );

    // The columns layout's verdict table marks it too.
    let columns = compare_ok(&[&good, &bad, "--layout", "columns"]);
    assert!(columns.starts_with("INVALID RESULT: bad.json"), "{columns}");
    assert!(columns.contains(MARK), "{columns}");

    // Two valid files: no notice, no mark, nothing on stderr about it.
    let out = compare(&[&good, &f.arg("b.json")]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains("INVALID") && !text.contains("not valid"),
        "{text}"
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("invalid"));
}

/// `kvbench suite` of SET and GET (1 KiB values over a million keys) at
/// `port`, written to `name` beside the shared files.
fn suite_json(port: u16, name: &str) -> String {
    let path = files().arg(name);
    let port = port.to_string();
    let args = [
        "suite",
        "-p",
        &port,
        "-t",
        "set,get",
        "-c",
        "2",
        "-n",
        "500",
        "-d",
        "1024",
        "-r",
        "1000000",
        "-q",
        "--allow-invalid",
        "--json-out-file",
        &path,
    ];
    assert_success(&kvbench(&args), name);
    path
}

#[test]
fn a_suite_is_named_with_its_invalid_tests_and_only_their_rows_are_marked() {
    let clean = Redis::start();
    let full = Redis::start_with(&["--maxmemory", "1mb", "--maxmemory-policy", "noeviction"]);
    let good = suite_json(clean.port, "suite-good.json");
    let bad = suite_json(full.port, "suite-bad.json");
    let doc = read_json(Path::new(&bad));
    let reasons = reason_lines(&doc);
    assert!(reasons.iter().all(|r| r.starts_with("SET ")), "{reasons:?}");
    let text = compare_ok(&[&good, &bad]);
    assert!(
        text.starts_with("INVALID RESULT: suite-bad.json: these numbers"),
        "{text}"
    );
    for line in &reasons {
        assert!(text.contains(&format!("  - {line}\n")), "{text}");
    }
    let mark = "(not valid: suite-bad.json)";
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.split_whitespace().nth(1) == Some("suite-bad.json"))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    for row in rows {
        assert_eq!(row.ends_with(mark), row.starts_with("SET "), "{row}");
    }
    assert!(!text.contains("(not valid: suite-good.json)"));
}
