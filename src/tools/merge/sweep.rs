//! `kvbench merge` of sweep files: the shards of a sweep (`--pipeline
//! 1,4`, `--rate` lists, … with `--start-at barrier`, which meets before
//! every cell) each write one sweep file, and the merge takes them cell by
//! cell. The cells are matched by their label (`pipeline=4`): every file must
//! hold the same cells in the same order, and each cell's reports merge as a
//! set of single-run files does (every check, the common window, the
//! servers' evidence). The result is one sweep document: each cell the
//! merged report, the summary table recomputed from the merged cells, and
//! the sweep's verdict every cell's.
//!
//! Unlike a set of report files, a sweep's files are all held while they
//! are merged (each cell needs every file): a set of sweeps costs the memory
//! of its files.

use std::fmt::Write as _;
use std::path::Path;

use crate::config::MergeOptions;
use crate::error::UsageError;
use crate::report::json::{SCHEMA_VERSION, round};
use crate::report::model::kvbench::{Verdict, VerdictReason};
use crate::report::model::section::TOTALS_ROW;
use crate::report::model::section::{Section, SectionTitle};
use crate::report::model::{self, Document, Report, SweepDocument, SweepRow, SweepSpread};
use crate::tools::merge::check;
use crate::tools::merge::document::{self, Merge};
use crate::tools::merge::fold;
use crate::tools::merge::text;

/// A merged sweep: the document and each cell's merge.
#[derive(Debug, Clone)]
pub struct SweepMerge {
    /// The merged sweep document.
    pub document: SweepDocument,
    /// Each cell's merge, in sweep order.
    pub cells: Vec<Merge>,
}

/// The sweep documents at `paths`; `None` when the first is no sweep
/// (a set of report files, merged as before). A sweep beside a report file
/// is refused.
pub fn read(paths: &[&Path]) -> Result<Option<Vec<(String, SweepDocument)>>, UsageError> {
    let mut out = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| UsageError::new(&file, format!("cannot read it: {e}")))?;
        match model::parse(&file, &text) {
            Ok(Document::Sweep(s)) => out.push((file, *s)),
            // The first file decides; a report merges as before, whose
            // reader gives the refusals of a file that is neither.
            _ if i == 0 => return Ok(None),
            _ => {
                return Err(UsageError::new(
                    &file,
                    format!(
                        "not a sweep file, while {} is one: merge the sweep files of one sweep, one per machine",
                        out[0].0
                    ),
                ));
            }
        }
    }
    Ok(Some(out))
}

/// A cell's label, as its report's `kvbench.cell` gives it.
fn label(report: &Report) -> String {
    report
        .kvbench
        .as_ref()
        .and_then(|k| k.cell.as_ref())
        .map_or_else(String::new, |c| c.label.clone())
}

/// Merges `sweeps` cell by cell.
pub fn merge(
    sweeps: Vec<(String, SweepDocument)>,
    args: &MergeOptions,
) -> Result<SweepMerge, UsageError> {
    let (first_path, first) = &sweeps[0];
    let labels: Vec<String> = first.sweep.cells.iter().map(label).collect();
    for (path, s) in &sweeps[1..] {
        let theirs: Vec<String> = s.sweep.cells.iter().map(label).collect();
        if theirs != labels {
            return Err(UsageError::new(
                path,
                format!(
                    "cells [{}], while {first_path} has [{}]: merge the files of one sweep whose cells all ran",
                    theirs.join(", "),
                    labels.join(", ")
                ),
            ));
        }
        if s.sweep.parameters != first.sweep.parameters {
            return Err(UsageError::new(
                path,
                format!("other swept flags than {first_path}: merge the files of one sweep"),
            ));
        }
    }
    let mut cells = Vec::with_capacity(labels.len());
    for (i, label) in labels.iter().enumerate() {
        // Each cell's report goes through the reader a file goes through,
        // named by its file and cell, so that every check and refusal
        // stands as it does for report files.
        let reads = sweeps.iter().map(|(path, s)| {
            let text = serde_json::to_string(&s.sweep.cells[i])
                .map_err(|e| UsageError::new(path, format!("cannot encode cell {label}: {e}")))?;
            check::from_text_any(&format!("{path} [{label}]"), &text)
        });
        let (fold, set) = fold::fold_all(reads, args.allow_partial, Vec::new())?;
        let mut merged = document::merge(fold, set);
        if let Some(max) = args.max_skew {
            document::check_skew(merged.skew.as_ref(), max)
                .map_err(|e| UsageError::new("--max-skew", format!("cell {label}: {e}")))?;
        }
        if let (Some(k), Some(cell)) = (
            merged.report.kvbench.as_mut(),
            first.sweep.cells[i]
                .kvbench
                .as_ref()
                .and_then(|k| k.cell.clone()),
        ) {
            k.cell = Some(cell);
        }
        cells.push(merged);
    }
    let document = sweep_document(first, &cells);
    Ok(SweepMerge { document, cells })
}

/// The merged sweep document of `cells`, shaped as `first`.
fn sweep_document(first: &SweepDocument, cells: &[Merge]) -> SweepDocument {
    let reports: Vec<Report> = cells.iter().map(|m| m.report.clone()).collect();
    let rows: Vec<SweepRow> = reports.iter().filter_map(row).collect();
    let first_ops = rows.first().map_or(0.0, |r| r.ops_per_sec);
    let summary = rows
        .into_iter()
        .map(|mut r| {
            r.ratio_to_first = if first_ops > 0.0 {
                round(r.ops_per_sec / first_ops, 4)
            } else {
                0.0
            };
            r
        })
        .collect();
    let complete = reports
        .iter()
        .all(|r| r.kvbench.as_ref().is_some_and(|k| k.complete));
    let mut sweep = first.clone();
    sweep.sweep.cells = reports.clone();
    sweep.sweep.summary = summary;
    sweep.kvbench.schema_version = SCHEMA_VERSION;
    sweep.kvbench.tool_version = env!("CARGO_PKG_VERSION").into();
    sweep.kvbench.complete = complete && first.kvbench.complete;
    sweep.kvbench.verdict = Some(verdict(&reports));
    sweep
}

/// The aggregate section of a merged cell: `ALL STATS` for one run, the
/// runs' aggregate for several.
fn aggregate(report: &Report) -> Option<&Section> {
    report
        .sections
        .iter()
        .find(|(t, _)| matches!(t, SectionTitle::AllStats | SectionTitle::Aggregated(_)))
        .map(|(_, s)| s)
}

/// A merged cell's summary row (`ratio_to_first` set by the caller).
fn row(report: &Report) -> Option<SweepRow> {
    let k = report.kvbench.as_ref()?;
    let section = aggregate(report)?;
    let totals = section.row(TOTALS_ROW)?;
    let at = |p: f64| totals.percentiles.at_ms(p).unwrap_or(0.0);
    // The runs' rates as their files write them.
    let rates: Vec<f64> = k.runs.iter().map(|r| round(r.ops_per_sec, 2)).collect();
    let spread = (rates.len() >= 2).then(|| {
        let min = rates.iter().copied().fold(f64::INFINITY, f64::min);
        let max = rates.iter().copied().fold(0.0, f64::max);
        SweepSpread {
            min: round(min, 2),
            max: round(max, 2),
            max_over_min: if min > 0.0 { round(max / min, 4) } else { 0.0 },
        }
    });
    Some(SweepRow {
        cell: label(report),
        ops_per_sec: round(totals.ops_per_sec, 2),
        set_ops_per_sec: section.row("Sets").map(|r| round(r.ops_per_sec, 2)),
        get_ops_per_sec: section.row("Gets").map(|r| round(r.ops_per_sec, 2)),
        avg_latency_ms: round(totals.average_latency_ms, 3),
        p50_latency_ms: round(at(50.0), 3),
        p99_latency_ms: round(at(99.0), 3),
        p99_9_latency_ms: round(at(99.9), 3),
        latency_percentiles_ms: Some(totals.percentiles.values_ms.clone()),
        hit_rate_percent: k.hit_rate_percent.map(|h| round(h, 2)),
        ratio_to_first: 0.0,
        cut: k.interrupted.is_some(),
        ops_per_sec_spread: spread,
    })
}

/// Every cell's reasons, each phase prefixed by its cell, as a sweep's.
fn verdict(reports: &[Report]) -> Verdict {
    let mut reasons = Vec::new();
    for r in reports {
        let cell = label(r);
        let Some(v) = r.kvbench.as_ref().and_then(|k| k.verdict.as_ref()) else {
            continue;
        };
        reasons.extend(v.reasons.iter().map(|reason| VerdictReason {
            kind: reason.kind.clone(),
            message: reason.message.clone(),
            phase: Some(match &reason.phase {
                Some(p) => format!("{cell} {p}"),
                None => cell.clone(),
            }),
        }));
    }
    Verdict {
        valid: reasons.is_empty(),
        reasons,
        sections: None,
    }
}

/// The tables printed: each cell's, under its label.
pub fn render(m: &SweepMerge, args: &MergeOptions) -> String {
    let mut out = String::new();
    for cell in &m.cells {
        let report = &cell.report;
        let _ = writeln!(out, "CELL {}", label(report));
        out.push_str(&text::render(
            cell,
            args.format,
            args.allow_invalid,
            args.width,
        ));
        out.push('\n');
    }
    out
}
