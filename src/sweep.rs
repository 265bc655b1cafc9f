//! Running a sweep: every cell of the comma lists, one after another, each a
//! complete benchmark (its own threads and connections), with the prefill done
//! once before the first cell and the warm-up before every cell or only the first.

use crate::config::{Cell, Config};
use crate::interrupt::Interrupt;
use crate::report::sink::{Sink, Sinks};
use crate::report::{self, progress::Progress};
use crate::results::Results;
use crate::run::{self, RunError};

/// One finished (or partly finished) cell.
#[derive(Debug, Clone)]
pub struct CellResult {
    /// What the cell was.
    pub cell: Cell,
    /// What it measured.
    pub results: Results,
}

/// Runs every cell, each with its own progress line and `live` beside it
/// (told of each cell). `on_progress` sees all cells so far after every phase of
/// every cell, so the sweep file can be saved as it grows.
pub fn run(
    config: &Config,
    interrupt: &Interrupt,
    live: &mut dyn Sink,
    on_progress: &mut dyn FnMut(&[CellResult]),
) -> Result<Vec<CellResult>, RunError> {
    let cells = config.cells();
    let total = cells.len();
    let mut done: Vec<CellResult> = Vec::with_capacity(total);
    for mut cell in cells {
        // The key range is the same for every cell: fill it once.
        // The config keeps saying "prefilled" (the warnings rely on it); only
        // the first cell runs the prefill phase.
        let prefill_phase = config.prefill && cell.index == 0;
        if !config.sweep.warmup_each_cell && cell.index > 0 {
            cell.config.warmup = std::time::Duration::ZERO;
        }
        report::note(format_args!(
            "[CELL {}/{}] {}",
            cell.index + 1,
            total,
            cell.label()
        ));
        let mut progress = Progress::new(&cell.config, true);
        live.start_cell(cell.index, &cell.label());
        let mut sinks = Sinks::new().with(&mut progress).with(&mut *live);
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
                // already measured are the report.
                Err(RunError::Interrupted(_)) if !done.is_empty() => break,
                Err(e) => return Err(e),
            }
        };
        done.push(CellResult { cell, results });
        on_progress(&done);
        if interrupt.stop_requested() {
            break;
        }
    }
    Ok(done)
}
