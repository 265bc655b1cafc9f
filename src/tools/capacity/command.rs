//! `kvbench capacity` end to end: the plan from its flags, the report files
//! checked before any connection, the search ([`super::run`]), the warnings,
//! and the exit codes of docs/capacity.md, in their order: a stop or an
//! output not written, then the confirmation run's verdict, then what the
//! search found ([`crate::tools::exit`]).

use crate::cli::CapacityArgs;
use crate::config::capacity::CapacityPlan;
use crate::engine::interrupt::Interrupt;
use crate::error::note;
use crate::report::model::capacity::CapacityOutcome;
use crate::tools::exit::{self, Exit};

/// `kvbench capacity`: the search, the confirmation run, every output.
pub fn command(args: CapacityArgs) -> Exit {
    let plan = match CapacityPlan::from_args(args) {
        Ok(plan) => plan,
        Err(e) => return Exit::usage(e),
    };
    if let Err(e) = crate::report::files::check_outputs(&plan.base) {
        return Exit::usage(e);
    }
    exit::with_signals(|interrupt| search(&plan, interrupt))
}

/// The search and the code of what it found.
fn search(plan: &CapacityPlan, interrupt: &Interrupt) -> Exit {
    let finished = match super::run(plan, interrupt) {
        Ok(finished) => finished,
        Err(e) => return exit::run_error(e, interrupt),
    };
    let written = &finished.written;
    written.shown.say(finished.warnings_on_terminal);
    let code = exit::after_outputs(&written.failures, written.save_failed, interrupt);
    let code = exit::judged(code, &written.verdict, plan.base.faults.allow_invalid);
    if !code.is_success() {
        return code;
    }
    match (finished.capacity.outcome, finished.confirmed()) {
        (CapacityOutcome::NoneMeets, _) => Exit::failure("no rate tried met the SLO"),
        (CapacityOutcome::Unconfirmed, _) | (_, Some(false)) => {
            note(format_args!(
                "kvbench: error: the confirmation run at the capacity missed the SLO, so no capacity is confirmed (exit code {}); {}",
                Exit::Unconfirmed.code(),
                crate::report::capacity::UNCONFIRMED_FIX
            ));
            Exit::Unconfirmed
        }
        (CapacityOutcome::Unfinished, _) => {
            note(format_args!(
                "kvbench: error: --max-steps ended the search before the interval was within --resolution (exit code {})",
                Exit::Unfinished.code()
            ));
            Exit::Unfinished
        }
        _ => Exit::Success,
    }
}
