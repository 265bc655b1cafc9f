//! `kvbench compare A.json B.json …`: reports side by side, per op row, with
//! ratios to the first file — the host-vs-container or persistence-on/off
//! tables of the blog posts in one command.
//!
//! Files are read through the typed report model ([`crate::report::model`]).
//! Each contributes its headline section (the aggregate of several runs, or
//! `ALL STATS`); a sweep file contributes one entry per cell. Rows are the
//! sections' op rows by name (`Sets`, `Gets`, `Totals`, or memtier's `Hsets`),
//! so a file with other commands, or later a suite file with a row per test,
//! compares without a change here. Whether a difference is real is judged
//! against the run-to-run spread the files carry (`kvbench.variance`, from
//! `-x 2` or more): a throughput difference smaller than the larger of the two
//! spreads is marked as noise.
//!
//! Two layouts: `rows` (a row per op and file) and `columns`, the reference
//! notes' layout: a row per op, a column per file, and a ratio column
//! `1 : 1.20 : 1.19` for throughput and for latency ([`columns`]).

pub mod columns;

use std::fmt::Write;
use std::path::Path;

use crate::cli::CompareArgs;
use crate::config::UsageError;
use crate::report::model::section::Section;
use crate::report::model::{self, Document, Report};

/// The row memtier writes for WAIT, which kvbench never sends: shown only
/// when some file has counts in it, so kvbench files compare as before.
const WAITS: &str = "Waits";
/// The sum of the other rows, shown last.
const TOTALS: &str = "Totals";

/// One op's numbers from one entry.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct OpRow {
    /// Replies in the section.
    pub count: u64,
    /// Ops/sec.
    pub ops_per_sec: f64,
    /// Average latency, ms.
    pub avg_ms: f64,
    /// p50, p99, p99.9 latency, ms, when the report printed them.
    pub percentiles_ms: [Option<f64>; 3],
}

/// The percentiles compared.
const PERCENTILES: [f64; 3] = [50.0, 99.0, 99.9];

impl OpRow {
    fn of(row: &model::section::OpRow) -> OpRow {
        OpRow {
            count: row.count,
            ops_per_sec: row.ops_per_sec,
            avg_ms: row.average_latency_ms,
            percentiles_ms: PERCENTILES.map(|p| row.percentiles.at_ms(p)),
        }
    }
}

/// One compared result.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// File name (and cell, for sweeps).
    pub label: String,
    /// The headline section's op rows, by name, in the file's order.
    pub rows: Vec<(String, OpRow)>,
    /// Run-to-run max/min of ops/sec, when the file had two or more runs.
    pub spread: Option<f64>,
}

impl Entry {
    /// An entry with a row per test of a suite, named by the test (`SET`,
    /// `LRANGE_100`): each test's section contributes its `Totals`, so the
    /// notes' tables come out with a row per test and a column per file.
    pub fn per_test<'a>(
        label: String,
        tests: impl IntoIterator<Item = (&'a str, &'a Section)>,
        spread: Option<f64>,
    ) -> Entry {
        let rows = tests
            .into_iter()
            .filter_map(|(test, section)| {
                section
                    .row(TOTALS)
                    .map(|r| (test.to_string(), OpRow::of(r)))
            })
            .collect();
        Entry {
            label,
            rows,
            spread,
        }
    }

    /// The row named `name`, if this entry has it.
    pub fn row(&self, name: &str) -> Option<&OpRow> {
        self.rows.iter().find(|(n, _)| n == name).map(|(_, r)| r)
    }
}

/// Output layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned columns.
    Text,
    /// A Markdown table.
    Markdown,
    /// One CSV table.
    Csv,
}

/// How entries and rows are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// A line per op row and file, with every figure and its ratio.
    Rows,
    /// A line per op row, a column per file, and the ratio column, for
    /// throughput, average and p99 latency.
    Columns,
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
    let layout = match args.layout.as_str() {
        "rows" => Layout::Rows,
        "columns" => Layout::Columns,
        other => {
            return Err(UsageError::new(
                "--layout",
                format!("'{other}' is not a layout; use rows or columns"),
            ));
        }
    };
    let mut entries = Vec::new();
    for path in &args.files {
        entries.extend(read_entries(path)?);
    }
    Ok(match layout {
        Layout::Rows => render(&entries, format),
        Layout::Columns => columns::render(&entries, format),
    })
}

fn read_entries(path: &Path) -> Result<Vec<Entry>, UsageError> {
    let shown = path.display().to_string();
    if let Some(entry) = read_suite(path)? {
        return Ok(vec![entry]);
    }
    let document = model::read(path).map_err(|e| {
        UsageError::new(
            &e.file,
            format!(
                "at {}: {}; give files written by --json-out-file",
                e.path, e.message
            ),
        )
    })?;
    let label = path
        .file_name()
        .map_or(shown.clone(), |n| n.to_string_lossy().into_owned());
    match document {
        Document::Sweep(sweep) => sweep
            .sweep
            .cells
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                let name = cell
                    .kvbench
                    .as_ref()
                    .and_then(|k| k.cell.as_ref())
                    .map_or(format!("cell {}", i + 1), |c| c.label.clone());
                entry(cell, format!("{label} [{name}]"), &shown)
            })
            .collect(),
        Document::Report(report) => Ok(vec![entry(&report, label, &shown)?]),
    }
}

/// A `kvbench suite` file as one entry with a row per test, or `None` for
/// any other file.
fn read_suite(path: &Path) -> Result<Option<Entry>, UsageError> {
    let suite = crate::suite::json::read(path).map_err(|e| {
        UsageError::new(
            &e.file,
            format!(
                "at {}: {}; give files written by kvbench suite --json-out-file",
                e.path, e.message
            ),
        )
    })?;
    let Some(suite) = suite else {
        return Ok(None);
    };
    let label = path.file_name().map_or(path.display().to_string(), |n| {
        n.to_string_lossy().into_owned()
    });
    // With -x 2 or more every test has its own spread; the largest judges
    // the file, so no difference within any test's noise reads as real.
    let spread = suite
        .suite
        .tests
        .iter()
        .filter_map(|t| t.report.kvbench.as_ref()?.variance.as_ref())
        .map(|v| v.max_over_min)
        .reduce(f64::max);
    let tests = suite
        .suite
        .tests
        .iter()
        .filter_map(|t| t.report.headline().map(|s| (t.test.as_str(), s)));
    Ok(Some(Entry::per_test(label, tests, spread)))
}

/// The headline section of one report.
fn entry(report: &Report, label: String, shown: &str) -> Result<Entry, UsageError> {
    let section: &Section = report.headline().ok_or_else(|| {
        UsageError::new(
            shown,
            "has no ALL STATS or AGGREGATED AVERAGE RESULTS section; is it a finished kvbench or memtier report?",
        )
    })?;
    Ok(Entry {
        label,
        rows: section
            .rows
            .iter()
            .map(|(name, row)| (name.to_string(), OpRow::of(row)))
            .collect(),
        spread: report
            .kvbench
            .as_ref()
            .and_then(|k| k.variance.as_ref())
            .map(|v| v.max_over_min),
    })
}

/// The rows to show, in the order they first appear, `Totals` last; `Waits`
/// only when some entry counted WAITs.
pub fn row_names(entries: &[Entry]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for e in entries {
        for (name, row) in &e.rows {
            let shown = name != TOTALS && (name != WAITS || row.count > 0);
            if shown && !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    if entries.iter().any(|e| e.row(TOTALS).is_some()) {
        names.push(TOTALS);
    }
    names
}

fn ratio(value: f64, base: f64) -> Option<f64> {
    (base > 0.0).then(|| value / base)
}

/// What a throughput ratio means given the spreads of the two entries.
fn verdict(first: &Entry, other: &Entry, op: &str, is_first: bool) -> String {
    if is_first {
        return "baseline".into();
    }
    let ops = |e: &Entry| e.row(op).map(|r| r.ops_per_sec);
    let Some(r) = ops(other).zip(ops(first)).and_then(|(o, b)| ratio(o, b)) else {
        return "n/a".into();
    };
    let change = format!("{:+.1} % ops/sec", (r - 1.0) * 100.0);
    match first
        .spread
        .into_iter()
        .chain(other.spread)
        .reduce(f64::max)
    {
        // The spread is a factor (max/min), so a slowdown is judged by its
        // factor too: 0.5× is as far from 1 as 2×, not "-50 %".
        Some(spread) if r.max(1.0 / r) <= spread => {
            format!("noise (runs vary {:.1} %)", (spread - 1.0) * 100.0)
        }
        Some(_) => change,
        None => format!("{change} (spread unknown: use -x 3)"),
    }
}

/// A figure with `places` decimals, `-` when absent.
fn num(v: Option<f64>, places: usize) -> String {
    v.map_or("-".to_string(), |v| format!("{v:.places$}"))
}

/// The ratio of two optional figures.
fn ratio_of(value: Option<f64>, base: Option<f64>) -> Option<f64> {
    value.zip(base).and_then(|(v, b)| ratio(v, b))
}

/// Every row of the comparison: op, label, values, ratios and verdict, as text cells.
fn rows(entries: &[Entry]) -> Vec<Vec<String>> {
    let Some(first) = entries.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for op in row_names(entries) {
        let base = first.row(op);
        for (i, e) in entries.iter().enumerate() {
            let row = e.row(op);
            let figure = |pick: fn(&OpRow) -> f64| (row.map(pick), base.map(pick));
            let mut cells = vec![op.to_string(), e.label.clone()];
            let (ops, base_ops) = figure(|r| r.ops_per_sec);
            cells.push(num(ops, 2));
            cells.push(num(ratio_of(ops, base_ops), 3));
            let (avg, base_avg) = figure(|r| r.avg_ms);
            cells.push(num(avg, 3));
            cells.push(num(ratio_of(avg, base_avg), 3));
            for p in 0..PERCENTILES.len() {
                let value = row.and_then(|r| r.percentiles_ms[p]);
                cells.push(num(value, 3));
                let base_value = base.and_then(|r| r.percentiles_ms[p]);
                cells.push(num(ratio_of(value, base_value), 3));
            }
            cells.push(verdict(first, e, op, i == 0));
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

/// A CSV field, quoted when it holds a comma, a quote or a line break.
pub fn csv_cell(cell: &str) -> String {
    if cell.contains([',', '"', '\n']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_string()
    }
}

#[cfg(test)]
mod tests;
