//! A benchmark's and a sweep's saves: after each phase the files so far,
//! at the end every output from one input, its warnings and verdict the same
//! list the exit code and stderr follow.

use super::{ExportManager, Judgement, Save, Subject, SweepView};
use crate::config::Config;
use crate::engine::master::results::Results;
use crate::engine::master::sweep::{CellResult, Swept};
use crate::error::OutputError;
use crate::report::ReportInput;
use crate::report::verdict::Verdict;
use crate::report::warnings::Shown;

/// What the end of a run wrote.
pub struct Written {
    /// Every output that could not be written, each named; empty when all
    /// were. Each output is attempted whatever became of the others.
    pub failures: Vec<OutputError>,
    /// A save after some phase failed.
    pub save_failed: bool,
    /// The warnings for stderr, as the text report shows them.
    pub shown: Shown,
    /// Whether the result measures the workload asked for.
    pub verdict: Verdict,
}

impl ExportManager {
    /// A phase of a single benchmark ended: its files so far.
    pub fn phase(&mut self, config: &Config, results: &Results) {
        let input = ReportInput::new(config, results, false);
        self.save_progress(&Subject::Run(&input));
    }

    /// The benchmark ended: every output, from one input.
    pub fn finish(self, config: &Config, results: &Results, complete: bool) -> Written {
        let input = ReportInput::new(config, results, complete);
        let failures = self.save(&Subject::Run(&input), Save::Final);
        Written {
            failures,
            save_failed: self.save_failed,
            shown: Shown::of_run(&input.warnings, &config.silenced_warnings),
            verdict: input.verdict,
        }
    }

    /// A phase of a sweep ended: the sweep's files so far. Every cell before
    /// the last has ended, and is judged once.
    pub fn cells(&mut self, config: &Config, cells: &[CellResult]) {
        let finished = cells.len().saturating_sub(1);
        let inputs = self.cell_inputs(cells, finished);
        let view = SweepView {
            config,
            cells,
            inputs: &inputs,
            stop: None,
        };
        self.save_progress(&Subject::Sweep(&view));
    }

    /// The sweep ended: the sweep file and the text report, both naming the
    /// cell a stop cut.
    pub fn finish_cells(mut self, config: &Config, swept: &Swept) -> Written {
        let cells = &swept.cells;
        let inputs = self.cell_inputs(cells, cells.len());
        let view = SweepView {
            config,
            cells,
            inputs: &inputs,
            stop: swept.stop.as_ref(),
        };
        let failures = self.save(&Subject::Sweep(&view), Save::Final);
        let total = config.sweep.cell_count();
        Written {
            failures,
            save_failed: self.save_failed,
            shown: crate::report::sweep::shown_warnings(config, &inputs),
            verdict: crate::report::sweep::verdict(cells, &inputs, total, swept.stop.as_ref()),
        }
    }

    /// Every cell's report input: the first `finished` judged once and
    /// remembered, any after them (a cell still running) judged afresh.
    pub(super) fn cell_inputs<'a>(
        &mut self,
        cells: &'a [CellResult],
        finished: usize,
    ) -> Vec<ReportInput<'a>> {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let (config, results) = (&c.cell.config, &c.results);
                let complete = results.is_complete();
                if let Some(judged) = self.judged.get(i) {
                    return judged.input(config, results, complete);
                }
                let input = ReportInput::new(config, results, complete);
                if i < finished {
                    self.judged.push(Judgement::of(&input));
                }
                input
            })
            .collect()
    }
}
