//! The sweep's document, built from its cells: every cell's report as a
//! memtier-compatible document with its `kvbench.cell`, the `SWEEP SUMMARY`
//! rows (a cut cell's marked `cut`), and the sweep's own `kvbench` object,
//! which names the cell a stop cut; the model's [`SweepDocument`], which the
//! JSON file serializes and the text renders. Also each cell's report input
//! and the sweep's verdict, judged once from the cells.

use crate::config::Config;
use crate::engine::master::results::rate;
use crate::engine::master::sweep::{CellResult, SweepStop};
use crate::engine::stats::percentile_us;
use crate::report::json::{SCHEMA_VERSION, percentile_key};
use crate::report::model::kvbench::{Cell, InterruptCause};
use crate::report::model::named::Named;
use crate::report::model::{
    Sweep, SweepDocument, SweepInterrupted, SweepKvbench, SweepParameter, SweepRow, SweepSpread,
};
use crate::report::spread;
use crate::report::verdict::{Finding, Reason, Verdict};
use crate::report::{ReportInput, build, hit_rate_percent};

/// The sweep as the model's document: every cell's memtier-compatible
/// report, the summary, and the cell a stop cut (`kvbench.interrupted`).
pub fn document(
    config: &Config,
    cells: &[CellResult],
    inputs: &[ReportInput<'_>],
    total_cells: usize,
    stop: Option<&SweepStop>,
) -> SweepDocument {
    let reports = cells.iter().zip(inputs).map(|(c, input)| {
        let mut report = build::report(input);
        if let Some(kv) = report.kvbench.as_mut() {
            let parameters = c.cell.parameters.iter();
            kv.cell = Some(Cell {
                index: c.cell.index as u32,
                label: c.cell.label(),
                parameters: Named(
                    parameters
                        .map(|(k, v)| (k.to_string(), v.clone()))
                        .collect(),
                ),
            });
        }
        report
    });
    let complete = cells.len() == total_cells && cells.iter().all(|c| c.results.is_complete());
    let completed = cells.iter().filter(|c| c.results.is_complete()).count();
    SweepDocument {
        sweep: Sweep {
            parameters: config.sweep.swept().into_iter().map(parameter).collect(),
            cells: reports.collect(),
            summary: summary(cells),
        },
        kvbench: SweepKvbench {
            schema_version: SCHEMA_VERSION,
            tool_version: env!("CARGO_PKG_VERSION").into(),
            complete,
            cells_planned: total_cells as u32,
            cells_completed: completed as u32,
            interrupted: stop.map(interrupted),
            verdict: Some(build::kvbench::verdict(&verdict(
                cells,
                inputs,
                total_cells,
                stop,
            ))),
        },
    }
}

/// A swept flag by its name in `--show-config` (`data-size`).
fn parameter(name: &str) -> SweepParameter {
    match name {
        "threads" => SweepParameter::Threads,
        "clients" => SweepParameter::Clients,
        "pipeline" => SweepParameter::Pipeline,
        "data-size" => SweepParameter::DataSize,
        _ => SweepParameter::Ratio,
    }
}

/// `kvbench.interrupted` of a sweep: the cell cut, and its phase (`None`
/// when it had measured nothing and is not among the cells).
fn interrupted(stop: &SweepStop) -> SweepInterrupted {
    SweepInterrupted {
        index: stop.cell as u32,
        cell: stop.label.clone(),
        phase: stop.phase.map(|p| p.to_string()),
        cause: if stop.signal == 0 {
            InterruptCause::MaxErrors
        } else {
            InterruptCause::Signal
        },
        signal: (stop.signal != 0).then_some(stop.signal),
    }
}

/// The fixed percentiles the JSON summary always carries (its stable keys
/// `p50_latency_ms`, `p99_latency_ms`, `p99_9_latency_ms`), whatever
/// `--print-percentiles` asked.
const FIXED_PERCENTILES: [f64; 3] = [50.0, 99.0, 99.9];

/// The comparison rows, from each cell's headline section, unrounded (the
/// JSON rounds them as it writes them, the table as it prints them).
fn summary(cells: &[CellResult]) -> Vec<SweepRow> {
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
                .map(|w| section.stats.witnessed(w))
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
