//! Running a sweep: every cell of the comma lists, one after another, each a
//! complete benchmark (its own threads and connections), with the prefill done
//! once before the first cell and the warm-up before every cell or only the first.
//! A stop (a signal, `--max-errors`) ends the sweep where it comes, and the
//! sweep says which cell it cut ([`SweepStop`]).
//! Each cell's own outputs (its progress line, its HDR files) are `report`'s:
//! the caller makes them for each cell's configuration ([`CellOutputs`]).

use crate::config::{Cell, Config};
use crate::engine::interrupt::Interrupt;
use crate::engine::master::results::{Phase, Results};
use crate::engine::master::run;
use crate::engine::master::sink::{Sink, Sinks};
use crate::error::RunError;

/// One finished (or partly finished) cell.
#[derive(Debug, Clone)]
pub struct CellResult {
    /// What the cell was.
    pub cell: Cell,
    /// What it measured.
    pub results: Results,
}

/// The cells a sweep ran, and where a stop ended it early.
#[derive(Debug, Clone)]
pub struct Swept {
    /// Every cell that measured something, in order; a cut cell last.
    pub cells: Vec<CellResult>,
    /// The cell a stop cut; `None` when the sweep ran to its end.
    pub stop: Option<SweepStop>,
}

/// The cell a stop request cut, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepStop {
    /// The cell's index, from 0.
    pub cell: usize,
    /// The cell's label, `pipeline=4`.
    pub label: String,
    /// The phase cut short; `None` when the cell had measured nothing yet
    /// (its connections were being made, or it had not started): then it is
    /// not among the cells.
    pub phase: Option<Phase>,
    /// The signal; 0 for a `--max-errors` stop.
    pub signal: i32,
}

/// The live outputs one cell has of its own, made by the caller for that
/// cell's configuration: the engine only places them around the sweep's `live`.
pub struct CellOutputs {
    /// Fed before `live` (the cell's progress line).
    pub before: Box<dyn Sink>,
    /// Fed after `live` (the cell's HDR files).
    pub after: Box<dyn Sink>,
}

/// Runs every cell, each with the outputs `outputs` makes for it and `live`
/// between them (told of each cell). `on_progress` sees all cells so far after every phase of
/// every cell, so the sweep file can be saved as it grows.
pub fn run(
    config: &Config,
    interrupt: &Interrupt,
    live: &mut dyn Sink,
    outputs: &mut dyn FnMut(&Config) -> CellOutputs,
    on_progress: &mut dyn FnMut(&[CellResult]),
) -> Result<Swept, RunError> {
    let cells = config.cells();
    let total = cells.len();
    let labels: Vec<String> = cells.iter().map(Cell::label).collect();
    let signal = || interrupt.signal().unwrap_or(0);
    let mut done: Vec<CellResult> = Vec::with_capacity(total);
    let mut stop = None;
    for cell in cells {
        // The key range is the same for every cell: fill it once.
        // The config keeps saying "prefilled" (the warnings rely on it); only
        // the first cell runs the prefill phase.
        let prefill_phase = config.prefill && cell.index == 0;
        crate::error::note(format_args!(
            "[CELL {}/{}] {}",
            cell.index + 1,
            total,
            cell.label()
        ));
        let mut own = outputs(&cell.config);
        live.start_cell(cell.index, &cell.label());
        let mut sinks = Sinks::new()
            .with(&mut *own.before)
            .with(&mut *live)
            .with(&mut *own.after);
        let results = {
            let finished = &done;
            let mut partial = |r: &Results| {
                let mut all = finished.clone();
                all.push(CellResult {
                    cell: cell.clone(),
                    results: r.clone(),
                });
                on_progress(&all);
            };
            match run::run(
                cell.config.clone(),
                prefill_phase,
                interrupt,
                &mut sinks,
                &mut partial,
            ) {
                Ok(results) => results,
                // Interrupted while the next cell was connecting: the cells
                // already measured are the report, which names this one.
                Err(RunError::Interrupted(_)) if !done.is_empty() => {
                    stop = Some(SweepStop {
                        cell: cell.index,
                        label: cell.label(),
                        phase: None,
                        signal: signal(),
                    });
                    break;
                }
                Err(e) => return Err(e),
            }
        };
        let (index, label, cut) = (cell.index, cell.label(), results.interrupted);
        done.push(CellResult { cell, results });
        on_progress(&done);
        if interrupt.stop_requested() {
            // The cell's phase that was cut; or, when the stop came after
            // its last phase, the next cell, which never started.
            stop = match cut {
                Some((phase, signal)) => Some(SweepStop {
                    cell: index,
                    label,
                    phase: Some(phase),
                    signal,
                }),
                None => labels.get(index + 1).map(|label| SweepStop {
                    cell: index + 1,
                    label: label.clone(),
                    phase: None,
                    signal: signal(),
                }),
            };
            break;
        }
    }
    Ok(Swept { cells: done, stop })
}
