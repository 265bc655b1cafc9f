//! Reports of a sweep, rendered from its document ([`document`] builds it
//! from the cells): each cell's own report, then one comparison table in the
//! whitepaper's style (a row per cell: total and per-op QPS, average latency and
//! the `--print-percentiles` percentiles, hit rate, the run-to-run spread with
//! `-x 2` or more, ratio to the first cell, and a footnote saying what ratio and
//! spread are), and one JSON file holding every cell as a memtier-compatible
//! document plus the summary ([`document`]). A sweep a stop cut says which cell
//! and phase, in the text and the JSON.

use std::fmt::Write;

use crate::config::Config;
use crate::report::model::{SweepDocument, SweepKvbench, SweepRow};
use crate::report::spread;
use crate::report::table::{Format, Table};
use crate::report::text::render_cell;
use crate::report::text_summary::warning_lines;
use crate::report::verdict::Verdict;
use crate::report::warnings::{self, Shown};
use crate::report::{ReportInput, percentile_label};

mod document;

pub use document::{document, inputs, verdict};

/// The sweep's warnings for people: each kind once, naming its cells, less
/// the kinds `config` silences (the JSON keeps every cell's).
pub fn shown_warnings(config: &Config, inputs: &[ReportInput<'_>]) -> Shown {
    let per_cell: Vec<Vec<warnings::Warning>> = inputs.iter().map(|i| i.warnings.clone()).collect();
    Shown::of_sweep(&per_cell, &config.silenced_warnings)
}

/// Every cell's text report (without warnings), where a stop cut the sweep,
/// the comparison table, then the warnings once for the whole sweep: read
/// off the sweep's document (its cells in the order of `inputs`, each cell's
/// report input), after the lines of its `verdict` when it is not valid.
pub fn text(
    config: &Config,
    doc: &SweepDocument,
    inputs: &[ReportInput<'_>],
    verdict: &Verdict,
    width: Option<usize>,
) -> Vec<u8> {
    let mut out = verdict.text(config.faults.allow_invalid);
    let total_cells = doc.kvbench.cells_planned;
    for (input, report) in inputs.iter().zip(&doc.sweep.cells) {
        if let Some(cell) = report.kvbench.as_ref().and_then(|k| k.cell.as_ref()) {
            let _ = writeln!(
                out,
                "CELL {}/{total_cells}: {}\n",
                cell.index + 1,
                cell.label
            );
        }
        out.push_str(&String::from_utf8_lossy(&render_cell(input, report)));
    }
    stop_lines(&mut out, config, &doc.kvbench);
    table(
        &mut out,
        &config.output.percentiles,
        &doc.sweep.summary,
        total_cells as usize,
        width,
    );
    let shown = shown_warnings(config, inputs);
    if !shown.lines.is_empty() || shown.silenced > 0 {
        out.push('\n');
        warning_lines(&mut out, &shown);
    }
    out.into_bytes()
}

/// Which cell and phase a stop cut (the sweep's `kvbench.interrupted`), and
/// how many cells ran to their end, then a blank line; nothing for a sweep
/// that ran every cell to its end.
fn stop_lines(out: &mut String, config: &Config, k: &SweepKvbench) {
    let (completed, total_cells) = (k.cells_completed, k.cells_planned);
    if k.interrupted.is_none() && completed == total_cells {
        return;
    }
    if let Some(stop) = &k.interrupted {
        let cell = format!("CELL {}/{total_cells} ({})", stop.index + 1, stop.cell);
        let cause = match stop.signal {
            None => format!(
                "Stopped: more errors than --max-errors {}",
                config.faults.max_errors.unwrap_or(0)
            ),
            Some(signal) => format!("Interrupted: signal {signal}"),
        };
        let _ = match stop.phase.as_deref() {
            Some(phase) if phase.starts_with("RUN #") => writeln!(
                out,
                "{cause} during {cell}, {phase}: the cut run's numbers cover the time until then, and the cell's row below is marked (cut)."
            ),
            Some(phase) => writeln!(
                out,
                "{cause} during {cell}, {phase}: none of its runs was measured, so it has no row below."
            ),
            None => writeln!(
                out,
                "{cause} before {cell} measured anything: it and the cells after it are not in this report."
            ),
        };
    }
    let _ = writeln!(
        out,
        "Incomplete: {completed} of {total_cells} cells completed.\n"
    );
}

/// The `SWEEP SUMMARY` table, with a column per percentile of `percentiles`
/// (`--print-percentiles`), then the footnote saying what ratio and spread are.
/// With a `width` (a terminal) a table wider than it is stacked to fit, the
/// cell column repeated ([`crate::report::table`]).
fn table(
    out: &mut String,
    percentiles: &[f64],
    rows: &[SweepRow],
    total_cells: usize,
    width: Option<usize>,
) {
    let _ = writeln!(out, "SWEEP SUMMARY ({} of {total_cells} cells)", rows.len());
    let mut header: Vec<String> = ["Cell", "Ops/sec", "Sets/sec", "Gets/sec", "Avg ms"]
        .map(String::from)
        .to_vec();
    header.extend(
        percentiles
            .iter()
            .map(|p| format!("p{} ms", percentile_label(*p))),
    );
    header.extend(["Hit %", "Spread", "Ratio"].map(String::from));
    let mut cells = vec![header];
    for r in rows {
        // A cut cell is shown, but marked: its rate covers a partial run.
        let label = if r.cut {
            format!("{} (cut)", r.cell)
        } else {
            r.cell.clone()
        };
        let mut row = vec![
            label,
            format!("{:.2}", r.ops_per_sec),
            format!("{:.2}", r.set_ops_per_sec.unwrap_or(0.0)),
            format!("{:.2}", r.get_ops_per_sec.unwrap_or(0.0)),
            format!("{:.3}", r.avg_latency_ms),
        ];
        let percentiles = r.latency_percentiles_ms.iter().flat_map(|p| p.iter());
        row.extend(percentiles.map(|(_, ms)| format!("{ms:.3}")));
        let hit = r.hit_rate_percent;
        row.push(hit.map_or("---".to_string(), |h| format!("{h:.2}")));
        // One token without a space, so the table splits on whitespace.
        let spread = r.ops_per_sec_spread;
        let spread = spread.map(|s| format!("{:.1}%", spread::percent(s.max_over_min)));
        row.push(spread.unwrap_or_else(|| "---".to_string()));
        row.push(format!("{:.3}", r.ratio_to_first));
        cells.push(row);
    }
    // The one-line layout: fixed columns, as scripts split it on whitespace;
    // on a terminal too narrow for it, stacked tables that fit.
    let label_width = cells.iter().map(|r| r[0].len()).max().unwrap_or(4).max(4);
    let mut widths = vec![label_width, 12, 12, 12, 10];
    widths.extend(percentiles.iter().map(|_| 10));
    widths.extend([9, 8, 7]);
    let mut rows = cells.into_iter();
    let mut t = Table::new(rows.next().unwrap_or_default(), |i| i == 0);
    t.extend(rows);
    let one = t.gap(" ").min_widths(widths);
    if width.is_some_and(|w| one.text_width() > w) {
        one.gap("  ").write(out, Format::Text(width));
    } else {
        one.write(out, Format::Text(None));
    }
    // After a blank line: a reader of the table stops at the first one.
    let _ = writeln!(
        out,
        "\nratio = total ops/sec ÷ the first cell's; spread = max/min - 1 of the cell's runs' total ops/sec (-x 2 or more; --- with one run)"
    );
}

#[cfg(test)]
mod tests;
