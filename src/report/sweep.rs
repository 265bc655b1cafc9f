//! Reports of a sweep: each cell's own report, then one comparison table in the
//! whitepaper's style (a row per cell: total and per-op QPS, average latency and
//! the `--print-percentiles` percentiles, hit rate, the run-to-run spread with
//! `-x 2` or more, ratio to the first cell, and a footnote saying what ratio and
//! spread are), and one JSON file holding every cell as a memtier-compatible
//! document plus the summary ([`document`]). A sweep a stop cut says which cell
//! and phase, in the text and the JSON.

use std::fmt::Write;

use crate::config::Config;
use crate::engine::master::results::Phase;
use crate::engine::master::results::rate;
use crate::engine::master::sweep::{CellResult, SweepStop};
use crate::engine::stats::percentile_us;
use crate::report::json::percentile_key;
use crate::report::model::named::Named;
use crate::report::model::{Sweep, SweepRow, SweepSpread};
use crate::report::spread;
use crate::report::table::{Format, Table};
use crate::report::text::render_cell;
use crate::report::text_summary::warning_lines;
use crate::report::verdict::{Finding, Reason, Verdict};
use crate::report::warnings::{self, Shown};
use crate::report::{ReportInput, hit_rate_percent, percentile_label};

mod document;

pub use document::document;

/// The fixed percentiles the JSON summary always carries (its stable keys
/// `p50_latency_ms`, `p99_latency_ms`, `p99_9_latency_ms`), whatever
/// `--print-percentiles` asked.
const FIXED_PERCENTILES: [f64; 3] = [50.0, 99.0, 99.9];

/// The comparison rows, from each cell's headline section, unrounded (the
/// JSON rounds them as it writes them, the table as it prints them).
pub fn summary(cells: &[CellResult]) -> Vec<SweepRow> {
    let mut rows: Vec<SweepRow> = Vec::new();
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
        let percentiles = c.cell.config.output.percentiles.iter();
        rows.push(SweepRow {
            cell: c.cell.label(),
            ops_per_sec,
            set_ops_per_sec: Some(rate(count("set"), section.duration)),
            get_ops_per_sec: Some(rate(count("get"), section.duration)),
            avg_latency_ms: totals.mean_us() / 1000.0,
            p50_latency_ms: at(FIXED_PERCENTILES[0]),
            p99_latency_ms: at(FIXED_PERCENTILES[1]),
            p99_9_latency_ms: at(FIXED_PERCENTILES[2]),
            latency_percentiles_ms: Some(Named(
                percentiles.map(|p| (percentile_key(*p), at(*p))).collect(),
            )),
            hit_rate_percent: crate::report::hit_stats(&c.cell.config, &section.stats)
                .as_ref()
                .and_then(hit_rate_percent),
            ratio_to_first: if base > 0.0 { ops_per_sec / base } else { 0.0 },
            cut: section.interrupted || c.results.interrupted.is_some(),
            ops_per_sec_spread: c.results.variance().map(|v| SweepSpread {
                min: v.min,
                max: v.max,
                // 1 when the slowest did nothing, so that the JSON, which
                // has no infinity, keeps a number.
                max_over_min: if v.min > 0.0 {
                    spread::max_over_min(v.min, v.max)
                } else {
                    1.0
                },
            }),
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
pub fn verdict(
    cells: &[CellResult],
    inputs: &[ReportInput<'_>],
    total_cells: usize,
    stop: Option<&SweepStop>,
) -> Verdict {
    let mut verdict = Verdict::of_parts(
        cells
            .iter()
            .zip(inputs)
            .map(|(c, input)| (format!("cell {}", c.cell.label()), &input.verdict)),
    );
    // A cell cut while measuring says so in its own verdict; one stopped
    // before it measured anything is not among the cells, so the sweep says it.
    if let Some(stop) = stop.filter(|s| s.phase.is_none()) {
        verdict.findings.push(Finding {
            phase: None,
            reason: Reason::SweepCut {
                cell: stop.label.clone(),
                done: cells.len(),
                planned: total_cells,
                signal: (stop.signal != 0).then_some(stop.signal),
            },
        });
    }
    verdict
}

/// The sweep's warnings for people: each kind once, naming its cells, less
/// the kinds `config` silences (the JSON keeps every cell's).
pub fn shown_warnings(config: &Config, inputs: &[ReportInput<'_>]) -> Shown {
    let per_cell: Vec<Vec<warnings::Warning>> = inputs.iter().map(|i| i.warnings.clone()).collect();
    Shown::of_sweep(&per_cell, &config.silenced_warnings)
}

/// Every cell's text report (without warnings; `(cells, sweep)`: the cells'
/// results and the sweep's document, its cells in the same order), where a
/// stop cut the sweep, the comparison table from the document's summary,
/// then the warnings once for the whole sweep.
pub fn text(
    config: &Config,
    (cells, sweep): (&[CellResult], &Sweep),
    inputs: &[ReportInput<'_>],
    total_cells: usize,
    stop: Option<&SweepStop>,
    width: Option<usize>,
) -> Vec<u8> {
    let mut out = verdict(cells, inputs, total_cells, stop).text(config.faults.allow_invalid);
    for ((c, input), report) in cells.iter().zip(inputs).zip(&sweep.cells) {
        let _ = writeln!(
            out,
            "CELL {}/{}: {}\n",
            c.cell.index + 1,
            total_cells,
            c.cell.label()
        );
        out.push_str(&String::from_utf8_lossy(&render_cell(input, report)));
    }
    stop_lines(&mut out, config, cells, stop, total_cells);
    table(
        &mut out,
        &config.output.percentiles,
        &sweep.summary,
        total_cells,
        width,
    );
    let shown = shown_warnings(config, inputs);
    if !shown.lines.is_empty() || shown.silenced > 0 {
        out.push('\n');
        warning_lines(&mut out, &shown);
    }
    out.into_bytes()
}

/// Which cell and phase a stop cut, and how many cells ran to their end,
/// then a blank line; nothing for a sweep that ran every cell to its end.
fn stop_lines(
    out: &mut String,
    config: &Config,
    cells: &[CellResult],
    stop: Option<&SweepStop>,
    total_cells: usize,
) {
    let completed = cells.iter().filter(|c| c.results.is_complete()).count();
    if stop.is_none() && completed == total_cells {
        return;
    }
    if let Some(stop) = stop {
        let cell = format!("CELL {}/{total_cells} ({})", stop.cell + 1, stop.label);
        let cause = match stop.signal {
            0 => format!(
                "Stopped: more errors than --max-errors {}",
                config.faults.max_errors.unwrap_or(0)
            ),
            signal => format!("Interrupted: signal {signal}"),
        };
        let _ = match stop.phase {
            Some(phase @ Phase::Run(_)) => writeln!(
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
