//! `kvbench suite` end to end: the plan from redis-benchmark's flags (`-x`'s
//! stdin read first), its report files checked before any connection, every
//! step printed as a row and saved as it finishes, the warnings said after
//! the table, and the exit code ([`crate::tools::exit`]). `-I` holds idle
//! connections instead ([`super::idle`]).

use crate::cli::SuiteArgs;
use crate::config::SuitePlan;
use crate::config::suite::IdlePlan;
use crate::engine::interrupt::Interrupt;
use crate::error::note;
use crate::report::export::ExportManager;
use crate::report::files::Target;
use crate::report::suite::{self, StepResult, output};
use crate::tools::exit::{self, Exit, print};

/// `kvbench suite`: every step printed and saved as it finishes.
pub fn command(args: &SuiteArgs) -> Exit {
    let mut args = args.clone();
    if args.stdin_last_arg && !args.command.is_empty() {
        // redis-benchmark's -x: stdin, as it is, is the command's last argument.
        let mut value = Vec::new();
        if let Err(e) = std::io::Read::read_to_end(&mut std::io::stdin(), &mut value) {
            return Exit::usage(format_args!(
                "-x: cannot read stdin: {e}; pipe the value in, e.g. echo -n v | kvbench suite -x set k"
            ));
        }
        args.stdin_value = Some(value);
    }
    let plan = match SuitePlan::from_args(&args) {
        Ok(plan) => plan,
        Err(e) => return Exit::usage(e),
    };
    if let Some(idle) = &plan.idle {
        return exit::with_signals(|interrupt| hold_idle(idle, interrupt));
    }
    // A report that cannot be written is found now, not after the suite.
    let json = match plan.json_out_file.as_deref().map(Target::of).transpose() {
        Ok(json) => json,
        Err(e) => return Exit::usage(format_args!("--json-out-file: {e}; give a writable path")),
    };
    if let Some(Err(e)) = json.as_ref().map(Target::check_writable) {
        return Exit::usage(format_args!(
            "--json-out-file: cannot write there: {e}; give a writable path"
        ));
    }
    if let Some(html) = &plan.html_out_file {
        if let Err(e) = crate::report::html::check_page_file(html, plan.json_out_file.as_deref()) {
            return Exit::usage(e);
        }
    }
    for warning in &plan.warnings {
        note(format_args!("kvbench: warning: {warning}"));
    }
    exit::with_signals(|interrupt| run(&plan, interrupt))
}

/// The steps, each a row on stdout and a save as it finishes; the warnings
/// after the table; the exit code.
fn run(plan: &SuitePlan, interrupt: &Interrupt) -> Exit {
    print(&output::header(plan.output, plan.width));
    let planned = plan.steps.len();
    let mut outputs =
        ExportManager::for_suite(plan.json_out_file.as_deref(), plan.html_out_file.as_deref());
    let mut said: Vec<&'static str> = Vec::new();
    // Said after the table, so that no warning splits its rows on a
    // terminal that shows stdout and stderr together.
    let mut deferred: Vec<String> = Vec::new();
    let mut on_step = |done: &[StepResult]| {
        let Some(last) = done.last() else {
            return;
        };
        // Judged once: its row, its warnings and every later save agree.
        let (judged, report) = outputs.step(done, planned);
        let figures = suite::figures(&last.step, &report);
        print(&output::row(
            plan.output,
            &last.step,
            &figures,
            &judged.verdict,
            plan.width,
            plan.precision,
        ));
        if plan.show_errors {
            print(&output::server_errors(&last.step, &figures));
        }
        for warning in &judged.warnings {
            let kind = warning.kind();
            if suite::said_once(kind) {
                if said.contains(&kind) {
                    continue;
                }
                said.push(kind);
            }
            deferred.push(format!(
                "kvbench: warning: [{}] {warning}",
                last.step.name()
            ));
        }
        if let Some(line) = output::errors_line(&last.step, &figures, &judged.warnings) {
            deferred.push(format!("kvbench: warning: {line}"));
        }
    };
    let ran = super::run(plan, interrupt, &mut on_step);
    for line in &deferred {
        note(format_args!("{line}"));
    }
    let (done, failed) = match ran {
        Ok(done) => (done, None),
        Err(Ok(after)) => (after.done, Some(after.error)),
        Err(Err(e)) => return exit::run_error(e, interrupt),
    };
    let complete = !interrupt.stop_requested() && done.len() == planned;
    let written = outputs.finish_suite(&done, planned, complete);
    let code = exit::after_outputs(&written.failures, written.save_failed, interrupt);
    if let Some(e) = failed.filter(|_| code.is_success()) {
        // The load had started: the tests done are written, the suite is
        // not a whole measurement (exit 3, not a usage error's 2).
        note(format_args!(
            "kvbench: error: a test could not run after {} of {planned} tests had: {e} (exit code {})",
            done.len(),
            Exit::Invalid.code()
        ));
        return Exit::Invalid;
    }
    exit::judged(code, &written.verdict, plan.allow_invalid)
}

/// `kvbench suite -I`: idle connections, held for their wait.
fn hold_idle(idle: &IdlePlan, interrupt: &Interrupt) -> Exit {
    print(&format!(
        "Creating {} idle connections and waiting {:.0} seconds (Ctrl+C when done)\n",
        idle.connections,
        idle.wait.as_secs_f64()
    ));
    match super::idle::run(idle, interrupt) {
        Ok(_) => exit::after_outputs(&[], false, interrupt),
        Err(e) => exit::run_error(e, interrupt),
    }
}
