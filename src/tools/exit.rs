//! How a command ends: the exit-code policy, in one place. Every command's
//! outcome maps through [`Exit`], whose [`Exit::code`] is the number the
//! process exits with (`--help` and docs/flags.md list them; `kvbench
//! capacity --help` and docs/capacity.md add 5 and 6).
//!
//! What it owns: the codes and their order of precedence once a run is over
//! ([`after_outputs`]: a stop by signal or `--max-errors` first, then any
//! output not written — every file counts, the HDR and `--client-stats` files
//! as much as the reports —, then [`judged`]: the verdict), what a
//! [`RunError`] exits with ([`run_error`]), the signal handlers a command
//! that runs load installs ([`with_signals`]), and what a failed write to
//! stdout counts ([`write_out`], [`print()`]). Each error is said on stderr
//! where its code is decided, in one line naming the code's cause.
//!
//! The report states the code of a verdict in advance
//! ([`crate::report::verdict::Verdict::exit_code`]); the tests below hold it to
//! the codes here.

use std::fmt::Display;
use std::process::ExitCode;

use crate::engine::interrupt::Interrupt;
use crate::error::{BarrierError, OutputError, RunError, note};
use crate::report::verdict::Verdict;

/// How a command ended, one variant per exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: the command did its work (a valid result, or one `--allow-invalid`
    /// accepts).
    Success,
    /// 1: an output could not be written, `--max-errors` stopped the run, no
    /// capacity met the SLO, a key failed `--data-verify`, or another failure.
    Failure,
    /// 2: bad input or a server that cannot be used, before any load.
    Usage,
    /// 3: the benchmark ran, but its verdict says the result is not valid.
    Invalid,
    /// 4: a shard reached a `--start-at` boundary too late, or a fleet's
    /// barrier or posts timed out.
    Late,
    /// 5: `kvbench capacity`: the confirmation run at the capacity missed the SLO.
    Unconfirmed,
    /// 6: `kvbench capacity`: `--max-steps` ended the search before the
    /// interval was within `--resolution`.
    Unfinished,
    /// 128 + the signal: 130 for SIGINT, 143 for SIGTERM (the reports written).
    Signal(i32),
}

impl Exit {
    /// The process's exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::Invalid => 3,
            Exit::Late => 4,
            Exit::Unconfirmed => 5,
            Exit::Unfinished => 6,
            Exit::Signal(signal) => Interrupt::exit_code(signal),
        }
    }

    /// Whether the command did its work: only then does a later rule (the
    /// verdict, a late start, the data verification) decide the code.
    pub fn is_success(self) -> bool {
        self == Exit::Success
    }

    /// A usage error, said on stderr: exit 2.
    pub fn usage(message: impl Display) -> Exit {
        note(format_args!("kvbench: error: {message}"));
        Exit::Usage
    }

    /// A failure, said on stderr: exit 1.
    pub fn failure(message: impl Display) -> Exit {
        note(format_args!("kvbench: error: {message}"));
        Exit::Failure
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}

/// `run` with SIGINT and SIGTERM handled: the first signal stops the load
/// and the reports are written (exit 128 + the signal); a second one ends
/// the process. Installed only once the command's input is read and
/// validated, so that a signal before that ends it at once.
pub fn with_signals(run: impl FnOnce(&Interrupt) -> Exit) -> Exit {
    match Interrupt::install() {
        Ok(interrupt) => run(&interrupt),
        Err(e) => Exit::failure(format_args!("cannot install signal handlers: {e}")),
    }
}

/// The code once a run's outputs are written: 128 + the signal when
/// interrupted, 1 when `--max-errors` stopped it or an output could not be
/// written (each one named), 0 otherwise.
pub fn after_outputs(failures: &[OutputError], save_failed: bool, interrupt: &Interrupt) -> Exit {
    for e in failures {
        note(format_args!("kvbench: {e}"));
    }
    if interrupt.aborted() {
        note(format_args!(
            "kvbench: stopped: more errors than --max-errors; the reports hold everything measured until then"
        ));
        return Exit::Failure;
    }
    if let Some(signal) = interrupt.signal() {
        note(format_args!(
            "kvbench: interrupted by signal {signal}; the reports hold everything measured until then"
        ));
        return Exit::Signal(signal);
    }
    if !failures.is_empty() || save_failed {
        Exit::Failure
    } else {
        Exit::Success
    }
}

/// The code once the verdict is in: a run that did its work but whose
/// result is not valid exits 3, unless `--allow-invalid`; a run that
/// already failed keeps its own code.
pub fn judged(exit: Exit, verdict: &Verdict, allow_invalid: bool) -> Exit {
    judged_lines(exit, &verdict.lines(), allow_invalid)
}

/// [`judged`] for a verdict's reasons as lines (a merged set's, read from
/// its files); none means valid.
pub fn judged_lines(exit: Exit, reasons: &[String], allow_invalid: bool) -> Exit {
    if reasons.is_empty() || !exit.is_success() {
        return exit;
    }
    for reason in reasons {
        note(format_args!("kvbench: invalid: {reason}"));
    }
    if allow_invalid {
        note(format_args!(
            "kvbench: the result is not valid; exit code 0 by --allow-invalid"
        ));
        return exit;
    }
    note(format_args!(
        "kvbench: error: the result is not valid (exit code {}); --allow-invalid exits 0 all the same",
        Exit::Invalid.code()
    ));
    Exit::Invalid
}

/// The code of a run that ended in an error.
pub fn run_error(e: RunError, interrupt: &Interrupt) -> Exit {
    match e {
        RunError::Usage(e) => Exit::usage(e),
        RunError::Interrupted(before) => {
            // Only a signal raises it (an error-budget stop needs a running phase).
            let signal = interrupt.signal().unwrap_or(libc::SIGINT);
            note(format_args!(
                "kvbench: interrupted by signal {signal} {before}; nothing was measured"
            ));
            Exit::Signal(signal)
        }
        RunError::Barrier(e) => {
            note(format_args!("kvbench: error: {e}"));
            barrier(&e)
        }
        e => Exit::failure(e),
    }
}

/// A barrier that failed: a timeout (of the start or of a fleet's posts) is
/// a shard too late (4); a server that could not keep it is a failure (1).
fn barrier(e: &BarrierError) -> Exit {
    match e {
        BarrierError::Timeout { .. }
        | BarrierError::Shares { .. }
        | BarrierError::ShardFailed { .. }
        | BarrierError::ForeignStart { .. } => Exit::Late,
        BarrierError::Server { .. } => Exit::Failure,
    }
}

/// Writes generated bytes (help, a man page, completions) to stdout; bytes
/// that cannot be written fail (exit 1).
pub fn write_out(bytes: &[u8]) -> Exit {
    let mut out = std::io::stdout().lock();
    match std::io::Write::write_all(&mut out, bytes).and_then(|()| std::io::Write::flush(&mut out))
    {
        Ok(()) => Exit::Success,
        Err(e) => Exit::failure(format_args!("cannot write to stdout: {e}")),
    }
}

/// Writes tables to stdout; a closed stdout (`| head`) is the reader's
/// choice, not a failure.
pub fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = std::io::Write::write_all(&mut out, text.as_bytes());
    let _ = std::io::Write::flush(&mut out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::verdict;

    #[test]
    fn every_exit_has_the_code_the_help_lists() {
        let codes: Vec<u8> = [
            Exit::Success,
            Exit::Failure,
            Exit::Usage,
            Exit::Invalid,
            Exit::Late,
            Exit::Unconfirmed,
            Exit::Unfinished,
            Exit::Signal(libc::SIGINT),
            Exit::Signal(libc::SIGTERM),
        ]
        .map(Exit::code)
        .to_vec();
        assert_eq!(codes, [0, 1, 2, 3, 4, 5, 6, 130, 143]);
        for code in [0, 1, 2, 3, 4, 130, 143] {
            assert!(
                crate::cli::EXIT_CODES.contains(&format!("{code} ")),
                "--help lists no {code}"
            );
        }
    }

    #[test]
    fn the_codes_the_report_states_in_advance_are_the_policys() {
        assert_eq!(verdict::INVALID_EXIT_CODE, Exit::Invalid.code());
        assert_eq!(verdict::MAX_ERRORS_EXIT_CODE, Exit::Failure.code());
    }

    #[test]
    fn a_stop_comes_before_an_output_not_written_and_a_failure_before_the_verdict() {
        let failure = OutputError::Write {
            what: "--client-stats",
            path: None,
            source: std::io::Error::other("test"),
        };
        let interrupt = Interrupt::default();
        assert_eq!(after_outputs(&[], false, &interrupt), Exit::Success);
        assert_eq!(after_outputs(&[], true, &interrupt), Exit::Failure);
        assert_eq!(
            after_outputs(std::slice::from_ref(&failure), false, &interrupt),
            Exit::Failure
        );
        interrupt.raise(libc::SIGTERM);
        assert_eq!(
            after_outputs(&[failure], false, &interrupt),
            Exit::Signal(libc::SIGTERM)
        );
        let reasons = ["cut short".to_string()];
        assert_eq!(judged_lines(Exit::Failure, &reasons, false), Exit::Failure);
        assert_eq!(judged_lines(Exit::Success, &reasons, false), Exit::Invalid);
        assert_eq!(judged_lines(Exit::Success, &reasons, true), Exit::Success);
        assert_eq!(judged_lines(Exit::Success, &[], false), Exit::Success);
    }
}
