//! The exit code a verdict stands for, so that the text report's first line
//! states the code the process really ends with: a cut run exits 128 + the
//! signal (130 for Ctrl-C) and a `--max-errors` stop exits 1, whatever else
//! made it invalid; only a run that ended by itself exits 3 (0 with
//! `--allow-invalid`). [`crate::tools::exit`] decides the code; this says it in advance.

use super::{INVALID_EXIT_CODE, Reason, Verdict};
use crate::engine::interrupt::Interrupt;

/// The exit code of a benchmark that `--max-errors` stopped.
pub const MAX_ERRORS_EXIT_CODE: u8 = 1;

impl Verdict {
    /// The code the process exits with for this verdict (a report that could
    /// not be written, known only later, still turns a 0 or 3 into 1).
    pub fn exit_code(&self, allow_invalid: bool) -> u8 {
        let stop = self.findings.iter().find_map(|f| match f.reason {
            Reason::Interrupted { signal, .. } | Reason::SweepCut { signal, .. } => Some(signal),
            _ => None,
        });
        match stop {
            Some(Some(signal)) => Interrupt::exit_code(signal),
            Some(None) => MAX_ERRORS_EXIT_CODE,
            None if allow_invalid => 0,
            None => INVALID_EXIT_CODE,
        }
    }
}

/// How the report's first line says `code`: 0 only ever comes from
/// `--allow-invalid`, so it names the flag.
pub fn code_text(code: u8) -> String {
    if code == 0 {
        "exit code 0: --allow-invalid".to_string()
    } else {
        format!("exit code {code}")
    }
}
