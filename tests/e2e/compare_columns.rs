//! `kvbench compare --layout columns` on the reference notes' AOF comparison:
//! three real redis-servers (no AOF, `appendfsync everysec`, `appendfsync
//! always`), a table each for ops/sec, average and p99 latency with a column
//! per file, and the ratio column `1 : 1.20 : 1.19` checked against the
//! figures in the files, in text, Markdown and CSV; then the files block,
//! which names the server settings that differ.

use std::process::Output;
use std::sync::OnceLock;

use crate::common::compare::{compare_ok, csv_fields};
use crate::common::{Redis, TempDir, kvbench, kvbench_ok, read_json};
use serde_json::Value;

const OPS: [&str; 3] = ["Sets", "Gets", "Totals"];
const METRICS: [&str; 3] = ["ops_per_sec", "avg_ms", "p99_ms"];
const NAMES: [&str; 3] = ["off.json", "everysec.json", "always.json"];

/// The three result files, written once: the first with two runs (so its
/// headline is the aggregate), the others with one.
struct Files {
    dir: TempDir,
    docs: Vec<Value>,
}

impl Files {
    fn arg(&self, name: &str) -> String {
        self.dir.path(name).to_str().unwrap().to_string()
    }
}

fn files() -> &'static Files {
    static FILES: OnceLock<Files> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = TempDir::new("compare-aof");
        let servers: [(&str, &[&str], &str); 3] = [
            (NAMES[0], &["--appendonly", "no"], "-x 2"),
            (
                NAMES[1],
                &["--appendonly", "yes", "--appendfsync", "everysec"],
                "-x 1",
            ),
            (
                NAMES[2],
                &["--appendonly", "yes", "--appendfsync", "always"],
                "-x 1",
            ),
        ];
        let mut docs = Vec::new();
        for (name, config, runs) in servers {
            let redis = Redis::start_with(config);
            redis.reset_stats();
            let path = dir.path(name);
            let mut args: Vec<&str> = "-t 1 -c 2 -n 300 --ratio 1:1 --key-maximum 1000"
                .split_whitespace()
                .collect();
            args.extend(runs.split_whitespace());
            args.extend(["--json-out-file", path.to_str().unwrap()]);
            kvbench_ok(redis.port, &args);
            let doc = read_json(&path);
            // Each file records the server it measured, and that server's own
            // count of SETs is the files' (both runs of the first).
            let server = &doc["kvbench"]["server"];
            assert_eq!(server["appendonly"], (config[1] == "yes"), "{name}");
            if let Some(fsync) = config.get(3) {
                assert_eq!(server["appendfsync"], *fsync, "{name}");
            }
            let sets: u64 = doc["kvbench"]["totals"]["SET"]["count"].as_u64().unwrap();
            assert_eq!(redis.calls("set"), sets, "{name}");
            docs.push(doc);
        }
        Files { dir, docs }
    })
}

/// The file arguments for `names`, then `extra`.
fn with_files(names: &[&str], extra: &[&'static str]) -> Vec<String> {
    let f = files();
    let mut args: Vec<String> = names.iter().map(|n| f.arg(n)).collect();
    args.extend(extra.iter().map(|e| e.to_string()));
    args
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// The headline section compare reads: the aggregate of several runs, or ALL STATS.
fn headline(doc: &Value) -> &Value {
    doc.as_object()
        .unwrap()
        .iter()
        .find(|(k, _)| k.starts_with("AGGREGATED AVERAGE RESULTS"))
        .map_or(&doc["ALL STATS"], |(_, v)| v)
}

/// The figure `--layout columns` shows for `metric` of `op` in one file.
fn column_figure(doc: &Value, metric: &str, op: &str) -> f64 {
    let row = &headline(doc)[op];
    let v = match metric {
        "ops_per_sec" => &row["Ops/sec"],
        "avg_ms" => &row["Average Latency"],
        "p99_ms" => &row["Percentile Latencies"]["p99.00"],
        _ => panic!("no metric {metric}"),
    };
    v.as_f64().unwrap()
}

/// The ratio column expected from the files: 1, then each figure over the first's.
fn expected_ratios(docs: &[&Value], metric: &str, op: &str) -> String {
    let values: Vec<f64> = docs.iter().map(|d| column_figure(d, metric, op)).collect();
    let mut parts = vec!["1".to_string()];
    parts.extend(values[1..].iter().map(|v| format!("{:.2}", v / values[0])));
    parts.join(" : ")
}

fn docs(names: &[&str]) -> Vec<&'static Value> {
    names
        .iter()
        .map(|n| &files().docs[NAMES.iter().position(|m| m == n).unwrap()])
        .collect()
}

#[test]
fn the_csv_has_a_column_per_file_and_the_ratio_column_from_the_files() {
    let csv = compare_ok(&strs(&with_files(
        &NAMES,
        &["--layout", "columns", "--format", "csv"],
    )));
    let docs = docs(&NAMES);
    let mut lines = csv.lines();
    let header = csv_fields(lines.next().unwrap());
    assert_eq!(
        header,
        ["metric", "op", NAMES[0], NAMES[1], NAMES[2], "ratio"]
    );
    let mut rows: Vec<Vec<String>> = lines.map(csv_fields).collect();
    let expected_keys = METRICS
        .iter()
        .flat_map(|m| OPS.iter().map(move |op| (*m, *op)));
    // The tables, each file's GET hit rate as one more row, then a verdict
    // row per op: the verdicts of `--layout rows` for the same files.
    assert_eq!(
        rows.len(),
        METRICS.len() * OPS.len() + 1 + OPS.len(),
        "{csv}"
    );
    let verdicts = rows.split_off(rows.len() - OPS.len());
    let by_rows = compare_ok(&strs(&with_files(&NAMES, &["--format", "csv"])));
    let by_rows: Vec<Vec<String>> = by_rows.lines().skip(1).map(csv_fields).collect();
    for (row, op) in verdicts.iter().zip(OPS) {
        assert_eq!(row.len(), 6, "{row:?}");
        assert_eq!((row[0].as_str(), row[1].as_str()), ("verdict", op));
        assert_eq!(row[2], "baseline");
        assert_eq!(row[5], "");
        for (cell, name) in row[2..5].iter().zip(NAMES) {
            let same = by_rows
                .iter()
                .find(|r| r[0] == op && r[1] == name)
                .unwrap_or_else(|| panic!("no {op} row of {name}"));
            assert_eq!(cell, same.last().unwrap(), "{op} {name}");
        }
    }
    let hit = rows.pop().unwrap();
    assert_eq!(hit[..2], ["hit_rate_percent", "Gets"]);
    for (cell, doc) in hit[2..5].iter().zip(&docs) {
        let h = doc["kvbench"]["hit_rate_percent"].as_f64().unwrap();
        assert_eq!(*cell, format!("{h:.2}"));
    }
    for (row, (metric, op)) in rows.iter().zip(expected_keys) {
        assert_eq!(row.len(), 6, "{row:?}");
        assert_eq!((row[0].as_str(), row[1].as_str()), (metric, op));
        let places = if metric == "ops_per_sec" { 2 } else { 3 };
        for (cell, doc) in row[2..5].iter().zip(&docs) {
            let v = column_figure(doc, metric, op);
            assert_eq!(*cell, format!("{v:.places$}"), "{metric} {op}");
        }
        assert_eq!(row[5], expected_ratios(&docs, metric, op), "{metric} {op}");
    }
}

#[test]
fn the_text_is_three_tables_with_the_ratio_column_last() {
    let text = compare_ok(&strs(&with_files(&NAMES, &["--layout", "columns"])));
    let docs = docs(&NAMES);
    let mut tables: Vec<&str> = text.split("\n\n").collect();
    assert_eq!(tables.len(), 3 + 2, "{text}");
    // Last, the files block: each file's hit rate and what differs, a
    // column per file, straight from each file's kvbench.server.
    let block: Vec<Vec<&str>> = tables
        .pop()
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(block[0][1..], NAMES, "{text}");
    assert_eq!(block[2], ["differs:"], "{text}");
    let server = |key: &str| -> Vec<String> {
        docs.iter()
            .map(|d| match &d["kvbench"]["server"][key] {
                Value::Bool(b) => if *b { "yes" } else { "no" }.to_string(),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect()
    };
    let fsync = server("appendfsync");
    let appendonly = server("appendonly");
    let differs: Vec<Vec<String>> = block[3..]
        .iter()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect();
    // Three servers: three targets.
    let targets = docs.iter().map(|d| {
        d["kvbench"]["config"]["target"]
            .as_str()
            .unwrap()
            .to_string()
    });
    let mut expected = vec![
        [vec!["target".to_string()], targets.collect()].concat(),
        [
            vec!["run_count".to_string()],
            vec!["2".into(), "1".into(), "1".into()],
        ]
        .concat(),
        [vec!["server.appendonly".to_string()], appendonly].concat(),
        [vec!["server.appendfsync".to_string()], fsync].concat(),
    ];
    // off.json's server keeps its default fsync, which may be everysec too.
    expected.retain(|r| r[1..].iter().any(|v| *v != r[1]));
    assert_eq!(differs, expected, "{text}");
    // Before it, the verdicts: a line per op, the first file the baseline.
    let verdicts: Vec<&str> = tables.pop().unwrap().lines().collect();
    assert!(verdicts[0].starts_with("vs baseline"), "{text}");
    assert_eq!(verdicts.len(), 1 + OPS.len(), "{text}");
    for (line, op) in verdicts[1..].iter().zip(OPS) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cells[..2], [op, "baseline"], "{line}");
    }
    let titles = ["ops/sec", "avg ms", "p99 ms"];
    for ((table, title), metric) in tables.iter().zip(titles).zip(METRICS) {
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 1 + OPS.len(), "{table}");
        let header: Vec<&str> = lines[0].split_whitespace().collect();
        assert_eq!(
            header[header.len() - 4..],
            [NAMES[0], NAMES[1], NAMES[2], "ratio"]
        );
        assert!(lines[0].starts_with(title), "{table}");
        for (line, op) in lines[1..].iter().zip(OPS) {
            assert!(line.starts_with(op), "{line}");
            let ratio = expected_ratios(&docs, metric, op);
            assert!(line.trim_end().ends_with(&ratio), "{line} vs {ratio}");
        }
    }
}

#[test]
fn the_markdown_is_three_well_formed_tables() {
    let names = [NAMES[0], NAMES[2]];
    let md = compare_ok(&strs(&with_files(
        &names,
        &["--layout", "columns", "--format", "md"],
    )));
    let docs = docs(&names);
    let mut tables: Vec<&str> = md.trim_end().split("\n\n").collect();
    assert_eq!(tables.len(), 3 + 2, "{md}");
    let block = tables.pop().unwrap();
    let verdicts: Vec<&str> = tables.pop().unwrap().lines().collect();
    assert_eq!(
        verdicts[0],
        format!("| vs baseline | {} | {} |", names[0], names[1])
    );
    assert_eq!(verdicts[1], "| --- | --- | --- |");
    assert_eq!(verdicts.len(), 2 + OPS.len(), "{md}");
    for (line, op) in verdicts[2..].iter().zip(OPS) {
        assert!(line.starts_with(&format!("| {op} | baseline | ")), "{line}");
    }
    assert!(
        block.starts_with(&format!("| files | {} | {} |", names[0], names[1])),
        "{md}"
    );
    assert!(block.contains("| differs: server.appendfsync |"), "{md}");
    for (table, metric) in tables.iter().zip(METRICS) {
        let rows: Vec<Vec<String>> = table
            .lines()
            .map(|l| {
                assert!(l.starts_with("| ") && l.ends_with(" |"), "{l:?}");
                l[2..l.len() - 2].split(" | ").map(str::to_string).collect()
            })
            .collect();
        assert_eq!(rows.len(), 2 + OPS.len(), "{table}");
        assert!(rows.iter().all(|r| r.len() == 4), "{table}");
        assert_eq!(rows[0][1..], [names[0], names[1], "ratio"]);
        assert_eq!(rows[1], ["---", "---:", "---:", "---"]);
        for (row, op) in rows[2..].iter().zip(OPS) {
            assert_eq!(row[0], op);
            assert_eq!(row[3], expected_ratios(&docs, metric, op));
        }
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
    assert!(out.stdout.is_empty());
}

#[test]
fn an_unknown_layout_exits_2_naming_the_flag() {
    let args = with_files(&NAMES[..2], &["--layout", "wide"]);
    let mut full = vec!["compare"];
    full.extend(strs(&args));
    assert_usage_error(&kvbench(&full), "--layout");
}
