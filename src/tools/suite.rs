//! `kvbench suite`: redis-benchmark's tests ([`crate::protocol::command::suite`]), each
//! run as its own benchmark — its own connections, phases and server
//! cross-check — through the same op table, workers and reports as a
//! `--command` run.
//!
//! What it owns: [`run()`], the steps in order, LRANGE's preparation first
//! and apart. The plan it runs, [`SuitePlan`] (redis-benchmark's flags turned
//! into one validated configuration per step), is built in
//! [`crate::config::suite`]; what the steps' results become (figures, the text
//! table, `-q`, `--csv`, the JSON document) is [`crate::report::suite`].
//! `-I`, idle connections in place of the steps, is [`idle`]; the command
//! end to end, its rows printed and its exit code, is [`command`].

pub mod command;
pub mod idle;

use std::sync::Arc;

use crate::config::suite::{SuitePlan, suite_flag};
use crate::engine::interrupt::Interrupt;
use crate::engine::master::run;
use crate::error::RunError;
use crate::report::hdr_files::HdrFiles;
use crate::report::suite::StepResult;

/// A step that failed after earlier steps had run: the load had started, so
/// the steps done are kept (and written) and the suite is not valid.
#[derive(Debug)]
pub struct FailedAfter {
    /// The steps that ran before the failure.
    pub done: Vec<StepResult>,
    /// Why the next step could not run (the server died, say).
    pub error: RunError,
}

/// Runs every step in order (again and again with `-l`); `on_step` sees the
/// results so far after each step, so they are printed and saved at once.
/// A failure before any step ran is `Err(Err(e))`; one after is
/// `Err(Ok(FailedAfter))`, with the steps done.
pub fn run(
    plan: &SuitePlan,
    interrupt: &Interrupt,
    on_step: &mut dyn FnMut(&[StepResult]),
) -> Result<Vec<StepResult>, Result<FailedAfter, RunError>> {
    let mut done: Vec<StepResult> = Vec::new();
    let mut started = false;
    loop {
        if plan.repeat {
            // A loop round replaces the last one's results.
            done.clear();
        }
        for step in &plan.steps {
            // No progress line; the HDR files, as for any run (a suite
            // takes no --hdr-file-prefix: none is written, none fails).
            let mut hdr = HdrFiles::new(Arc::new(step.config.clone()), &Default::default());
            let results =
                match run::run(step.config.clone(), false, interrupt, &mut hdr, &mut |_| {}) {
                    Ok(results) => results,
                    Err(error) if started => return Err(Ok(FailedAfter { done, error })),
                    // A usage error names the suite's flag, not the memtier flag.
                    Err(RunError::Usage(e)) => return Err(Err(RunError::Usage(suite_flag(e)))),
                    Err(error) => return Err(Err(error)),
                };
            started = true;
            done.push(StepResult {
                step: step.clone(),
                results,
            });
            on_step(&done);
            if interrupt.stop_requested() {
                return Ok(done);
            }
        }
        if !plan.repeat {
            return Ok(done);
        }
    }
}
