//! `kvbench suite`: redis-benchmark's tests ([`crate::protocol::command::suite`]), each
//! run as its own benchmark — its own connections, phases and server
//! cross-check — through the same op table, workers and reports as a
//! `--command` run.
//!
//! What it owns:
//! - the plan it runs, [`SuitePlan`]: redis-benchmark's flags turned into one
//!   validated configuration per step, built in [`crate::config::suite`];
//! - [`run()`]: the steps in order, LRANGE's preparation first and apart;
//! - [`figures()`]: the numbers each output prints (in `figures.rs`);
//! - [`StepErrors`]: a step's error replies, which mark its row, and
//!   [`StepResult::verdict`], whether the step is a measurement (in `errors.rs`);
//! - [`output`] (text table, `-q`, `--csv`) and [`json`] (a section per test).

mod errors;
mod figures;
pub mod json;
pub mod output;

use std::sync::Arc;

pub use errors::StepErrors;
pub use figures::{Figures, figures};

pub use crate::config::suite::{OutputMode, Step, SuitePlan, SuiteWarning};
use crate::engine::interrupt::Interrupt;
use crate::engine::results::Results;
use crate::engine::run;
use crate::error::RunError;
use crate::report::hdr_files::HdrFiles;

/// Warnings about the setting rather than one test's figures (the same
/// machine, short runs, fsync): said for the first test only, since every
/// test would repeat them. The others (count mismatches, error replies) are
/// said for each test they concern.
const SAID_ONCE: [&str; 7] = [
    "same_machine",
    "short_run",
    "fsync_always",
    "dataset_too_large",
    "background_save",
    "key_range_too_small",
    "client_bound",
];

/// True when a warning of `kind` is said for the first test only.
pub fn said_once(kind: &str) -> bool {
    SAID_ONCE.contains(&kind)
}

/// One step's results.
#[derive(Debug)]
pub struct StepResult {
    /// What ran.
    pub step: Step,
    /// What it measured.
    pub results: Results,
}

/// Runs every step in order (again and again with `-l`); `on_step` sees the
/// results so far after each step, so they are printed and saved at once.
pub fn run(
    plan: &SuitePlan,
    interrupt: &Interrupt,
    on_step: &mut dyn FnMut(&[StepResult]),
) -> Result<Vec<StepResult>, RunError> {
    let mut done: Vec<StepResult> = Vec::new();
    loop {
        if plan.repeat {
            // A loop round replaces the last one's results.
            done.clear();
        }
        for step in &plan.steps {
            // No progress line; the HDR files, as for any run.
            let mut hdr = HdrFiles::new(Arc::new(step.config.clone()));
            let results = run::run(step.config.clone(), false, interrupt, &mut hdr, &mut |_| {})?;
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

#[cfg(test)]
mod tests;
