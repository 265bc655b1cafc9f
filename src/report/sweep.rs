//! Reports of a sweep: each cell's own report, then one comparison table in the
//! whitepaper's style (a row per cell: total and per-op QPS, average latency and
//! the `--print-percentiles` percentiles, hit rate, the run-to-run spread with
//! `-x 2` or more, ratio to the first cell, and a footnote saying what ratio and
//! spread are), and one JSON file holding every cell as a memtier-compatible
//! document plus the summary.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::config::Config;
use crate::report::json::{SCHEMA_VERSION, document, percentile_key};
use crate::report::text::render_cell;
use crate::report::text_summary::warning_lines;
use crate::report::{ReportInput, hit_rate_percent, percentile_label};
use crate::results::rate;
use crate::results::verdict::Verdict;
use crate::stats::percentile_us;
use crate::sweep::CellResult;
use crate::warnings::{self, Shown};

/// The fixed percentiles the JSON summary always carries (its stable keys
/// `p50_latency_ms`, `p99_latency_ms`, `p99_9_latency_ms`), whatever
/// `--print-percentiles` asked.
const FIXED_PERCENTILES: [f64; 3] = [50.0, 99.0, 99.9];

/// Total ops/sec of a cell's slowest and fastest runs (`-x 2` or more).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSpread {
    /// The slowest run's ops/sec.
    pub min: f64,
    /// The fastest run's ops/sec.
    pub max: f64,
}

impl RunSpread {
    /// Half the range around its middle, %: 97 and 103 are ±3 %.
    pub fn plus_minus_percent(&self) -> f64 {
        let sum = self.max + self.min;
        if sum > 0.0 {
            (self.max - self.min) / sum * 100.0
        } else {
            0.0
        }
    }

    /// max / min (1 when the slowest did nothing).
    pub fn max_over_min(&self) -> f64 {
        if self.min > 0.0 {
            self.max / self.min
        } else {
            1.0
        }
    }
}

/// One row of the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    /// `pipeline=16`.
    pub label: String,
    /// All replies per second.
    pub ops_per_sec: f64,
    /// SET replies per second.
    pub set_ops_per_sec: f64,
    /// GET replies per second.
    pub get_ops_per_sec: f64,
    /// Mean latency of all requests, ms.
    pub avg_ms: f64,
    /// p50, p99, p99.9 latency of all requests, ms, whatever `--print-percentiles` says.
    pub fixed_ms: [f64; 3],
    /// `(percentile, ms)` for each of the cell's `--print-percentiles`.
    pub percentiles_ms: Vec<(f64, f64)>,
    /// GET hit rate, % (None without GETs).
    pub hit_rate: Option<f64>,
    /// Total ops/sec over the first cell's.
    pub ratio: f64,
    /// The slowest and fastest run, with two completed runs or more.
    pub spread: Option<RunSpread>,
    /// The cell was cut short: its numbers cover a partial run.
    pub interrupted: bool,
}

/// The comparison rows, from each cell's headline section.
pub fn summary(cells: &[CellResult]) -> Vec<SummaryRow> {
    let mut rows: Vec<SummaryRow> = Vec::new();
    for c in cells {
        let Some(section) = c.results.headline() else {
            continue;
        };
        let totals = section.stats.totals();
        let h = &totals.latency_us;
        let at = |p: f64| percentile_us(h, p) as f64 / 1000.0;
        let ops_per_sec = rate(totals.count, section.duration);
        // SET and GET replies wherever the table counts them: the default
        // pair's rows, or the SET and GET lines of a --command table.
        let witnesses = c.cell.config.ops.witnesses();
        let count = |command: &str| -> u64 {
            witnesses
                .iter()
                .filter(|w| w.command == command)
                .map(|w| crate::report::evidence::client_count(&section.stats, w))
                .sum()
        };
        let base = rows.first().map_or(ops_per_sec, |r| r.ops_per_sec);
        rows.push(SummaryRow {
            label: c.cell.label(),
            ops_per_sec,
            set_ops_per_sec: rate(count("set"), section.duration),
            get_ops_per_sec: rate(count("get"), section.duration),
            avg_ms: totals.mean_us() / 1000.0,
            fixed_ms: FIXED_PERCENTILES.map(at),
            percentiles_ms: c
                .cell
                .config
                .output
                .percentiles
                .iter()
                .map(|p| (*p, at(*p)))
                .collect(),
            hit_rate: crate::report::hit_stats(&c.cell.config, &section.stats)
                .as_ref()
                .and_then(hit_rate_percent),
            ratio: if base > 0.0 { ops_per_sec / base } else { 0.0 },
            spread: c.results.variance().map(|v| RunSpread {
                min: v.min,
                max: v.max,
            }),
            interrupted: section.interrupted,
        });
    }
    rows
}

/// Every cell's report input, each with its own configuration: its warnings
/// are computed here once, for the JSON, the text and stderr alike.
pub fn inputs(cells: &[CellResult]) -> Vec<ReportInput<'_>> {
    cells
        .iter()
        .map(|c| ReportInput::new(&c.cell.config, &c.results, c.results.is_complete()))
        .collect()
}

/// The sweep's verdict: every cell's findings, each named by its cell.
pub fn verdict(cells: &[CellResult], inputs: &[ReportInput<'_>]) -> Verdict {
    Verdict::of_parts(
        cells
            .iter()
            .zip(inputs)
            .map(|(c, input)| (format!("cell {}", c.cell.label()), &input.verdict)),
    )
}

/// The sweep's warnings for people: each kind once, naming its cells, less
/// the kinds `config` silences (the JSON keeps every cell's).
pub fn shown_warnings(config: &Config, inputs: &[ReportInput<'_>]) -> Shown {
    let per_cell: Vec<Vec<warnings::Warning>> = inputs.iter().map(|i| i.warnings.clone()).collect();
    Shown::of_sweep(&per_cell, &config.silenced_warnings)
}

/// Every cell's text report (without warnings), the comparison table, then
/// the warnings once for the whole sweep.
pub fn text(
    config: &Config,
    cells: &[CellResult],
    inputs: &[ReportInput<'_>],
    total_cells: usize,
) -> Vec<u8> {
    let mut out = verdict(cells, inputs).text(config.faults.allow_invalid);
    for (c, input) in cells.iter().zip(inputs) {
        let _ = writeln!(
            out,
            "CELL {}/{}: {}\n",
            c.cell.index + 1,
            total_cells,
            c.cell.label()
        );
        out.push_str(&String::from_utf8_lossy(&render_cell(input)));
    }
    table(
        &mut out,
        &config.output.percentiles,
        &summary(cells),
        total_cells,
    );
    let shown = shown_warnings(config, inputs);
    if !shown.lines.is_empty() || shown.silenced > 0 {
        out.push('\n');
        warning_lines(&mut out, &shown);
    }
    out.into_bytes()
}

/// The `SWEEP SUMMARY` table, with a column per percentile of `percentiles`
/// (`--print-percentiles`), then the footnote saying what ratio and spread are.
fn table(out: &mut String, percentiles: &[f64], rows: &[SummaryRow], total_cells: usize) {
    let width = rows
        .iter()
        .map(|r| r.label.len() + if r.interrupted { 6 } else { 0 })
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(out, "SWEEP SUMMARY ({} of {total_cells} cells)", rows.len());
    let _ = write!(
        out,
        "{:<width$} {:>12} {:>12} {:>12} {:>10}",
        "Cell", "Ops/sec", "Sets/sec", "Gets/sec", "Avg ms"
    );
    for p in percentiles {
        let _ = write!(out, " {:>10}", format!("p{} ms", percentile_label(*p)));
    }
    let _ = writeln!(out, " {:>9} {:>8} {:>7}", "Hit %", "Spread", "Ratio");
    for r in rows {
        let hit = r.hit_rate.map_or("---".to_string(), |h| format!("{h:.2}"));
        // A cut cell is shown, but marked: its rate covers a partial run.
        let label = if r.interrupted {
            format!("{} (cut)", r.label)
        } else {
            r.label.clone()
        };
        // One token without a space, so the table splits on whitespace.
        let spread = r.spread.map_or("---".to_string(), |s| {
            format!("±{:.1}%", s.plus_minus_percent())
        });
        let _ = write!(
            out,
            "{:<width$} {:>12.2} {:>12.2} {:>12.2} {:>10.3}",
            label, r.ops_per_sec, r.set_ops_per_sec, r.get_ops_per_sec, r.avg_ms
        );
        for (_, ms) in &r.percentiles_ms {
            let _ = write!(out, " {ms:>10.3}");
        }
        let _ = writeln!(out, " {hit:>9} {spread:>8} {:>7.3}", r.ratio);
    }
    // After a blank line: a reader of the table stops at the first one.
    let _ = writeln!(
        out,
        "\nratio = total ops/sec ÷ the first cell's; spread = ± half the range of the cell's runs' total ops/sec (-x 2 or more; --- with one run)"
    );
}

/// The sweep's JSON: every cell's memtier-compatible document and the summary.
pub fn json(
    config: &Config,
    cells: &[CellResult],
    inputs: &[ReportInput<'_>],
    total_cells: usize,
) -> Vec<u8> {
    let documents: Vec<Value> = cells
        .iter()
        .zip(inputs)
        .map(|(c, input)| {
            let mut doc = document(input);
            if let Some(kv) = doc.get_mut("kvbench").and_then(Value::as_object_mut) {
                let parameters: serde_json::Map<String, Value> =
                    c.cell.parameters.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
                kv.insert(
                    "cell".into(),
                    json!({"index": c.cell.index, "label": c.cell.label(), "parameters": parameters}),
                );
            }
            doc
        })
        .collect();
    let rows: Vec<Value> = summary(cells)
        .iter()
        .map(|r| {
            json!({
                "cell": r.label,
                "ops_per_sec": round2(r.ops_per_sec),
                "set_ops_per_sec": round2(r.set_ops_per_sec),
                "get_ops_per_sec": round2(r.get_ops_per_sec),
                "avg_latency_ms": round3(r.avg_ms),
                "p50_latency_ms": round3(r.fixed_ms[0]),
                "p99_latency_ms": round3(r.fixed_ms[1]),
                "p99_9_latency_ms": round3(r.fixed_ms[2]),
                "latency_percentiles_ms": r
                    .percentiles_ms
                    .iter()
                    .map(|(p, ms)| (percentile_key(*p), json!(round3(*ms))))
                    .collect::<serde_json::Map<String, Value>>(),
                "hit_rate_percent": r.hit_rate.map(round2),
                "ratio_to_first": (r.ratio * 10_000.0).round() / 10_000.0,
                "ops_per_sec_spread": r.spread.map(|s| json!({
                    "min": round2(s.min),
                    "max": round2(s.max),
                    "max_over_min": (s.max_over_min() * 10_000.0).round() / 10_000.0,
                })),
            })
        })
        .collect();
    let complete = cells.len() == total_cells && cells.iter().all(|c| c.results.is_complete());
    let doc = json!({
        "sweep": {
            "parameters": config.sweep.swept(),
            "cells": documents,
            "summary": rows,
        },
        "kvbench": {
            "schema_version": SCHEMA_VERSION,
            "tool_version": env!("CARGO_PKG_VERSION"),
            "complete": complete,
            "cells_planned": total_cells,
            "cells_completed": cells.iter().filter(|c| c.results.is_complete()).count(),
            "verdict": verdict(cells, inputs).to_json(),
        },
    });
    let mut bytes = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::{RunSpread, SummaryRow, table};

    fn row(label: &str, ops: f64, spread: Option<RunSpread>) -> SummaryRow {
        SummaryRow {
            label: label.into(),
            ops_per_sec: ops,
            set_ops_per_sec: ops / 2.0,
            get_ops_per_sec: ops / 2.0,
            avg_ms: 0.5,
            fixed_ms: [0.4, 0.9, 1.5],
            percentiles_ms: vec![(50.0, 0.4), (95.0, 0.8)],
            hit_rate: None,
            ratio: ops / 1000.0,
            spread,
            interrupted: false,
        }
    }

    #[test]
    fn the_summary_follows_the_printed_percentiles_and_shows_the_spread() {
        let spread = RunSpread {
            min: 970.0,
            max: 1030.0,
        };
        assert!((spread.plus_minus_percent() - 3.0).abs() < 1e-9);
        assert!((spread.max_over_min() - 1030.0 / 970.0).abs() < 1e-12);
        let rows = [
            row("pipeline=1", 1000.0, Some(spread)),
            row("pipeline=4", 2500.0, None),
        ];
        let mut out = String::new();
        table(&mut out, &[50.0, 95.0], &rows, 2);
        let lines: Vec<Vec<&str>> = out
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(lines[0], ["SWEEP", "SUMMARY", "(2", "of", "2", "cells)"]);
        assert!(out.lines().nth(1).unwrap().contains("p95 ms"), "{out}");
        assert!(!out.contains("p99 ms"), "{out}");
        assert_eq!(
            lines[2][5..],
            ["0.400", "0.800", "---", "±3.0%", "1.000"],
            "{out}"
        );
        assert_eq!(lines[3][7..], ["---", "---", "2.500"], "{out}");
        assert!(lines[4].is_empty());
        assert!(
            out.lines()
                .nth(5)
                .unwrap()
                .starts_with("ratio = total ops/sec ÷ the first cell's"),
            "{out}"
        );
    }
}
