//! What a `kvbench suite` run's results become: each step's [`StepResult`],
//! its report (the document its JSON entry holds) and, read off that report,
//! the numbers each output prints ([`figures()`], in `figures.rs`) with the
//! step's error replies ([`StepErrors`], which mark its row, in
//! `errors.rs`); the text table, `-q` and `--csv` ([`output`]) and the JSON
//! document with a section per test ([`json`]). Running the steps is
//! `tools::suite`; the plan is [`crate::config::suite`].

mod errors;
mod figures;
pub mod json;
pub mod output;

pub use errors::StepErrors;
pub use figures::{Figures, figures};

use crate::config::suite::Step;
use crate::engine::master::results::Results;

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

/// One step's results: what its report ([`crate::report::build`]) is built
/// from.
#[derive(Debug)]
pub struct StepResult {
    /// What ran.
    pub step: Step,
    /// What it measured.
    pub results: Results,
}

#[cfg(test)]
mod tests;
