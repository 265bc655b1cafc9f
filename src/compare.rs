//! `kvbench compare A.json B.json …`: reports side by side, per op, with ratios
//! to the first file — the host-vs-container or persistence-on/off tables of
//! the blog posts in one command.
//!
//! Each file contributes its headline section (the aggregate of several runs, or
//! `ALL STATS`); a sweep file contributes one entry per cell. Whether a
//! difference is real is judged against the run-to-run spread the files carry
//! (`kvbench.variance`, from `-x 2` or more): a throughput difference smaller than
//! the larger of the two spreads is marked as noise.

use std::fmt::Write;
use std::path::Path;

use serde_json::Value;

use crate::cli::CompareArgs;
use crate::config::UsageError;

/// The ops compared, as named in the reports.
const OPS: [&str; 3] = ["Sets", "Gets", "Totals"];

/// One op's numbers from one entry.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct OpRow {
    /// Ops/sec.
    pub ops_per_sec: f64,
    /// Average latency, ms.
    pub avg_ms: f64,
    /// p50, p99, p99.9 latency, ms, when the report printed them.
    pub percentiles_ms: [Option<f64>; 3],
}

/// One compared result.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// File name (and cell, for sweeps).
    pub label: String,
    /// Sets, Gets, Totals.
    pub ops: [OpRow; 3],
    /// Run-to-run max/min of ops/sec, when the file had two or more runs.
    pub spread: Option<f64>,
}

/// Output layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned columns.
    Text,
    /// A Markdown table per op.
    Markdown,
    /// One CSV table.
    Csv,
}

/// Reads the files and renders the comparison.
pub fn run(args: &CompareArgs) -> Result<String, UsageError> {
    let format = match args.format.as_str() {
        "text" => Format::Text,
        "md" | "markdown" => Format::Markdown,
        "csv" => Format::Csv,
        other => {
            return Err(UsageError::new(
                "--format",
                format!("'{other}' is not a format; use text, md or csv"),
            ));
        }
    };
    let mut entries = Vec::new();
    for path in &args.files {
        entries.extend(read_entries(path)?);
    }
    Ok(render(&entries, format))
}

fn read_entries(path: &Path) -> Result<Vec<Entry>, UsageError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError::new(&shown, format!("cannot read it: {e}")))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| {
        UsageError::new(
            &shown,
            format!("is not JSON ({e}); give files written by --json-out-file"),
        )
    })?;
    let label = path
        .file_name()
        .map_or(shown.clone(), |n| n.to_string_lossy().into_owned());
    if let Some(cells) = doc.pointer("/sweep/cells").and_then(Value::as_array) {
        return cells
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                let name = cell
                    .pointer("/kvbench/cell/label")
                    .and_then(Value::as_str)
                    .map_or(format!("cell {}", i + 1), str::to_string);
                entry(cell, format!("{label} [{name}]"), &shown)
            })
            .collect();
    }
    Ok(vec![entry(&doc, label, &shown)?])
}

/// The headline section of one memtier-compatible document.
fn entry(doc: &Value, label: String, shown: &str) -> Result<Entry, UsageError> {
    let object = doc
        .as_object()
        .ok_or_else(|| UsageError::new(shown, "is not a report object"))?;
    let section = object
        .iter()
        .find(|(k, _)| k.starts_with("AGGREGATED AVERAGE RESULTS"))
        .or_else(|| object.iter().find(|(k, _)| k.as_str() == "ALL STATS"))
        .map(|(_, v)| v)
        .ok_or_else(|| UsageError::new(shown, "has no ALL STATS or AGGREGATED AVERAGE RESULTS section; is it a finished kvbench or memtier report?"))?;
    let op_row = |name: &str| {
        let op = &section[name];
        let pct = |key: &str| op["Percentile Latencies"][key].as_f64();
        OpRow {
            ops_per_sec: op["Ops/sec"].as_f64().unwrap_or(0.0),
            avg_ms: op["Average Latency"].as_f64().unwrap_or(0.0),
            percentiles_ms: [pct("p50.00"), pct("p99.00"), pct("p99.90")],
        }
    };
    Ok(Entry {
        label,
        ops: OPS.map(op_row),
        spread: doc
            .pointer("/kvbench/variance/max_over_min")
            .and_then(Value::as_f64),
    })
}

fn ratio(value: f64, base: f64) -> Option<f64> {
    (base > 0.0).then(|| value / base)
}

/// What a throughput ratio means given the spreads of the two entries.
fn verdict(first: &Entry, other: &Entry, op: usize, is_first: bool) -> String {
    if is_first {
        return "baseline".into();
    }
    let Some(r) = ratio(other.ops[op].ops_per_sec, first.ops[op].ops_per_sec) else {
        return "n/a".into();
    };
    let change = format!("{:+.1} % ops/sec", (r - 1.0) * 100.0);
    match first
        .spread
        .into_iter()
        .chain(other.spread)
        .reduce(f64::max)
    {
        Some(spread) if (r - 1.0).abs() <= spread - 1.0 => {
            format!("noise (runs vary {:.1} %)", (spread - 1.0) * 100.0)
        }
        Some(_) => change,
        None => format!("{change} (spread unknown: use -x 3)"),
    }
}

/// Every row of the comparison: op, label, values, ratios and verdict, as text cells.
fn rows(entries: &[Entry]) -> Vec<Vec<String>> {
    let Some(first) = entries.first() else {
        return Vec::new();
    };
    let num =
        |v: Option<f64>, places: usize| v.map_or("-".to_string(), |v| format!("{v:.places$}"));
    let mut out = Vec::new();
    for (op_index, op) in OPS.iter().enumerate() {
        for (i, e) in entries.iter().enumerate() {
            let row = &e.ops[op_index];
            let base = &first.ops[op_index];
            let mut cells = vec![op.to_string(), e.label.clone()];
            cells.push(num(Some(row.ops_per_sec), 2));
            cells.push(num(ratio(row.ops_per_sec, base.ops_per_sec), 3));
            cells.push(num(Some(row.avg_ms), 3));
            cells.push(num(ratio(row.avg_ms, base.avg_ms), 3));
            for (p, b) in row.percentiles_ms.iter().zip(base.percentiles_ms) {
                cells.push(num(*p, 3));
                cells.push(num(p.zip(b).and_then(|(p, b)| ratio(p, b)), 3));
            }
            cells.push(verdict(first, e, op_index, i == 0));
            out.push(cells);
        }
    }
    out
}

const HEADER: [&str; 13] = [
    "op",
    "file",
    "ops/sec",
    "ratio",
    "avg ms",
    "ratio",
    "p50 ms",
    "ratio",
    "p99 ms",
    "ratio",
    "p99.9 ms",
    "ratio",
    "vs baseline",
];

/// Renders the comparison in the chosen format.
pub fn render(entries: &[Entry], format: Format) -> String {
    let rows = rows(entries);
    let mut out = String::new();
    match format {
        Format::Csv => {
            let _ = writeln!(
                out,
                "op,file,ops_per_sec,ops_ratio,avg_ms,avg_ratio,p50_ms,p50_ratio,p99_ms,p99_ratio,p999_ms,p999_ratio,verdict"
            );
            for r in &rows {
                let cells: Vec<String> = r.iter().map(|c| csv_cell(c)).collect();
                let _ = writeln!(out, "{}", cells.join(","));
            }
        }
        Format::Markdown => {
            let _ = writeln!(out, "| {} |", HEADER.join(" | "));
            let _ = writeln!(out, "|{}", "---|".repeat(HEADER.len()));
            for r in &rows {
                let cells: Vec<String> = r.iter().map(|c| c.replace('|', "\\|")).collect();
                let _ = writeln!(out, "| {} |", cells.join(" | "));
            }
        }
        Format::Text => text_table(&mut out, &rows),
    }
    out
}

fn text_table(out: &mut String, rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = HEADER.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, w))| {
                if i < 2 || i == 12 {
                    format!("{c:<w$}")
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect();
        padded.join("  ").trim_end().to_string()
    };
    let header: Vec<String> = HEADER.iter().map(|h| h.to_string()).collect();
    let _ = writeln!(out, "{}", line(&header));
    for r in rows {
        let _ = writeln!(out, "{}", line(r));
    }
}

fn csv_cell(cell: &str) -> String {
    if cell.contains([',', '"', '\n']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(label: &str, ops: f64, spread: Option<f64>) -> Entry {
        let row = OpRow {
            ops_per_sec: ops,
            avg_ms: 1000.0 / ops,
            percentiles_ms: [Some(0.1), Some(1.0), None],
        };
        Entry {
            label: label.into(),
            ops: [row; 3],
            spread,
        }
    }

    #[test]
    fn differences_inside_the_spread_are_noise() {
        let a = entry("a", 100.0, Some(1.10));
        let b = entry("b", 105.0, None);
        let c = entry("c", 130.0, None);
        assert!(verdict(&a, &b, 0, false).starts_with("noise"));
        assert_eq!(verdict(&a, &c, 0, false), "+30.0 % ops/sec");
        assert!(verdict(&entry("x", 100.0, None), &c, 0, false).contains("spread unknown"));
    }

    #[test]
    fn csv_and_markdown_have_a_row_per_op_and_file() {
        let entries = [entry("a", 100.0, None), entry("b", 200.0, None)];
        let csv = render(&entries, Format::Csv);
        assert_eq!(csv.lines().count(), 1 + 3 * 2);
        assert!(
            csv.lines()
                .nth(2)
                .unwrap()
                .starts_with("Sets,b,200.00,2.000,")
        );
        let md = render(&entries, Format::Markdown);
        assert_eq!(md.lines().count(), 2 + 3 * 2);
        assert!(md.lines().all(|l| l.starts_with('|') && l.ends_with('|')));
    }
}
