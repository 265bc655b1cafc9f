//! The sweep's JSON document: every cell's report as a memtier-compatible
//! document with its `kvbench.cell`, the `SWEEP SUMMARY` rows (a cut cell's
//! marked `cut`), and the sweep's own `kvbench` object, which names the cell a
//! stop cut; built as the model's [`SweepDocument`], which the JSON file
//! serializes.

use super::{summary, verdict};
use crate::config::Config;
use crate::engine::master::sweep::{CellResult, SweepStop};
use crate::report::ReportInput;
use crate::report::build;
use crate::report::json::SCHEMA_VERSION;
use crate::report::model::kvbench::{Cell, InterruptCause};
use crate::report::model::named::Named;
use crate::report::model::{Sweep, SweepDocument, SweepInterrupted, SweepKvbench, SweepParameter};

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
