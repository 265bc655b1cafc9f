//! A sweep's two outputs for people: `kvbench compare sweep.json` alone
//! exports a row per cell (CSV, Markdown), and the text report's `SWEEP
//! SUMMARY` follows `--print-percentiles` and shows each cell's run-to-run
//! spread, with the JSON summary's matching fields — on a real 2-run sweep.

use std::sync::OnceLock;

use crate::common::compare::{VERDICT, compare_ok, csv_rows};
use crate::common::{Redis, TempDir, kvbench_ok, read_json};
use serde_json::Value;

const OPS: [&str; 3] = ["Sets", "Gets", "Totals"];
const NO_SPREAD: &str = "no spread measured: run with -x 3 to judge";

/// A two-cell sweep, two runs a cell, `--print-percentiles 50,95`: its
/// file and its text report.
struct Sweep {
    dir: TempDir,
    text: String,
}

impl Sweep {
    fn arg(&self) -> String {
        self.dir.path("sweep.json").to_str().unwrap().to_string()
    }

    fn json(&self) -> Value {
        read_json(&self.dir.path("sweep.json"))
    }
}

fn sweep() -> &'static Sweep {
    static SWEEP: OnceLock<Sweep> = OnceLock::new();
    SWEEP.get_or_init(|| {
        let dir = TempDir::new("compare-sweep");
        let redis = Redis::start();
        let json = dir.path("sweep.json");
        let mut args: Vec<&str> = "-t 1 -c 2 --key-maximum 5000 --ratio 1:1 --test-time 1 -x 2 --pipeline 1,4 --print-percentiles 50,95"
            .split_whitespace()
            .collect();
        args.extend(["--json-out-file", json.to_str().unwrap()]);
        let out = kvbench_ok(redis.port, &args);
        let text = String::from_utf8(out.stdout).unwrap();
        Sweep { dir, text }
    })
}

/// A cell's headline: the aggregate of its runs.
fn aggregate(doc: &Value) -> &Value {
    doc.as_object()
        .unwrap()
        .iter()
        .find(|(k, _)| k.starts_with("AGGREGATED"))
        .map(|(_, v)| v)
        .unwrap()
}

/// A number from a CSV field, within `(low, high]`.
fn bounded(field: &str, low: f64, high: f64) -> f64 {
    let v: f64 = field
        .parse()
        .unwrap_or_else(|_| panic!("{field:?} is no number"));
    assert!(v > low && v <= high, "{v} outside ({low}, {high}]");
    v
}

#[test]
fn a_sweep_alone_exports_a_row_per_cell() {
    let s = sweep();
    let doc = s.json();
    let csv = compare_ok(&[&s.arg(), "--format", "csv"]);
    let rows = csv_rows(&csv);
    assert_eq!(rows.len(), 2 * OPS.len(), "{csv}");
    let totals: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == "Totals").collect();
    let labels: Vec<&str> = totals.iter().map(|r| r[1].as_str()).collect();
    assert_eq!(labels, ["pipeline=1", "pipeline=4"]);
    for (i, r) in totals.iter().enumerate() {
        let cell = &doc["sweep"]["cells"][i];
        let ops = bounded(&r[2], 0.0, 1e8);
        let own = aggregate(cell)["Totals"]["Ops/sec"].as_f64().unwrap();
        assert!((ops - own).abs() <= 0.005, "{ops} vs {own}");
        bounded(&r[3], 0.0, 1e4);
        for latency in [4, 6, 8, 10] {
            bounded(&r[latency], 0.0, 60_000.0);
        }
        // p50 ≤ p99 ≤ p99.9 of one histogram.
        let p: Vec<f64> = [6, 8, 10].iter().map(|c| r[*c].parse().unwrap()).collect();
        assert!(p[0] <= p[1] && p[1] <= p[2], "{r:?}");
        let hit = bounded(&r[12], -1e-9, 100.0);
        let own_hit = cell["kvbench"]["hit_rate_percent"].as_f64().unwrap();
        assert!((hit - own_hit).abs() <= 0.005, "{hit} vs {own_hit}");
    }
    assert_eq!(totals[0][3], "1.000");
    assert_eq!(totals[0][VERDICT], "baseline");
    // Each cell ran twice: a spread was measured.
    assert!(
        !totals[1][VERDICT].starts_with(NO_SPREAD),
        "{:?}",
        totals[1]
    );
    let md = compare_ok(&[&s.arg(), "--format", "md"]);
    assert!(
        md.lines()
            .filter(|l| !l.is_empty())
            .all(|l| l.starts_with('|')),
        "{md}"
    );
}

#[test]
fn the_sweep_summary_follows_print_percentiles_and_shows_the_spread() {
    let s = sweep();
    let text = &s.text;
    let mut lines = text.lines().skip_while(|l| !l.starts_with("SWEEP SUMMARY"));
    assert_eq!(lines.next(), Some("SWEEP SUMMARY (2 of 2 cells)"), "{text}");
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "Cell", "Ops/sec", "Sets/sec", "Gets/sec", "Avg", "ms", "p50", "ms", "p95", "ms",
            "Hit", "%", "Spread", "Ratio"
        ]
    );
    let doc = s.json();
    let summary = doc["sweep"]["summary"].as_array().unwrap();
    for (i, row) in summary.iter().enumerate() {
        let line: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
        assert_eq!(line.len(), 10, "{line:?}");
        let percentiles = row["latency_percentiles_ms"].as_object().unwrap();
        let keys: Vec<&str> = percentiles.keys().map(String::as_str).collect();
        assert_eq!(keys, ["p50.00", "p95.00"]);
        let (p50, p95) = (
            percentiles["p50.00"].as_f64().unwrap(),
            percentiles["p95.00"].as_f64().unwrap(),
        );
        assert_eq!(line[5], format!("{p50:.3}"));
        assert_eq!(line[6], format!("{p95:.3}"));
        assert!(0.0 < p50 && p50 <= p95, "{row}");
        assert!(p95 <= row["p99_latency_ms"].as_f64().unwrap(), "{row}");
        // The spread is the cell's own runs', as its variance says.
        let variance = &doc["sweep"]["cells"][i]["kvbench"]["variance"];
        let spread = &row["ops_per_sec_spread"];
        let (min, max) = (
            spread["min"].as_f64().unwrap(),
            spread["max"].as_f64().unwrap(),
        );
        assert!(
            (min - variance["min"].as_f64().unwrap()).abs() <= 0.005,
            "{spread}"
        );
        assert!(
            (max - variance["max"].as_f64().unwrap()).abs() <= 0.005,
            "{spread}"
        );
        assert!(0.0 < min && min <= max, "{spread}");
        // The one spread of every output: max/min - 1, never negative.
        let shown = line[8]
            .strip_suffix('%')
            .unwrap_or_else(|| panic!("{line:?}"));
        let shown: f64 = shown.parse().unwrap();
        let expected = (max / min - 1.0) * 100.0;
        assert!((shown - expected).abs() <= 0.051, "{shown} vs {expected}");
        assert!(shown >= 0.0, "{line:?}");
    }
    assert_eq!(lines.next(), Some(""));
    let footnote = lines.next().unwrap();
    assert!(
        footnote.starts_with("ratio = total ops/sec ÷ the first cell's"),
        "{footnote}"
    );
}
