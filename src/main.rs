//! The outline of kvbench: parse, validate, run, report. The one place that exits.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;

use kvbench::cli::{self, Args, Subcommand};
use kvbench::config::capacity::CapacityPlan;
use kvbench::config::{CompareOptions, Config, MergeOptions, ReportOptions, SuitePlan, Verify};
use kvbench::engine::interrupt::Interrupt;
use kvbench::engine::run;
use kvbench::engine::sink::Sinks;
use kvbench::engine::sweep::{self, CellOutputs};
use kvbench::error::{OutputError, RunError};
use kvbench::report::export::ExportManager;
use kvbench::report::files::Target;
use kvbench::report::hdr_files::{FailureLog, HdrFiles};
use kvbench::report::metrics::Live;
use kvbench::report::model::capacity::CapacityOutcome;
use kvbench::report::suite::output as suite_output;
use kvbench::report::verdict::{self, Verdict};
use kvbench::report::warnings;
use kvbench::report::{self, progress::Progress};

/// `eprintln!` that never panics on a closed stderr (see [`kvbench::error::note`]).
macro_rules! say {
    ($($arg:tt)*) => {
        kvbench::error::note(format_args!($($arg)*))
    };
}

fn main() -> ExitCode {
    let mut args = match parse::<Args>(std::env::args()) {
        Ok(args) => args,
        Err(code) => return code,
    };
    if args.help {
        return write_out(cli::SUMMARY.as_bytes());
    }
    // Without a subcommand, a benchmark with memtier's flags.
    match args.subcommand.take() {
        // `capacity` takes the benchmark's flags, `--help` among them.
        Some(Subcommand::Capacity(c)) if c.run.help => {
            return write_out(cli::subcommand_help("capacity").as_bytes());
        }
        Some(Subcommand::Capacity(capacity_args)) => return capacity(*capacity_args),
        Some(Subcommand::Compare(compare_args)) => return compare(&compare_args),
        Some(Subcommand::Suite(suite_args)) => return suite(&suite_args),
        Some(Subcommand::Merge(merge_args)) => return merge(&merge_args),
        Some(Subcommand::Report(report_args)) => return html_report(&report_args),
        Some(Subcommand::Completions(c)) => return write_out(&cli::completions(c.shell)),
        Some(Subcommand::Help(h)) => {
            return match cli::help_text(h.subcommand.as_deref()) {
                Ok(text) => write_out(text.as_bytes()),
                Err(e) => fail_usage(&e.to_string()),
            };
        }
        Some(Subcommand::Man(man)) => return man_pages(man.dir.as_deref()),
        None => {}
    }
    // memtier's places of --command-ratio/--command-key-pattern, which clap drops.
    cli::place_per_command(&mut args, &std::env::args().collect::<Vec<_>>());
    let config = match Config::from_args(args) {
        Ok(config) => config,
        Err(e) => return fail_usage(&e.to_string()),
    };
    // A report that cannot be written is found now, not after the run.
    if let Err(e) = report::files::check_outputs(&config) {
        return fail_usage(&e.to_string());
    }
    if config.output.show_config {
        say!("{}", report::show_config(&config));
    }
    let interrupt = match Interrupt::install() {
        Ok(interrupt) => interrupt,
        Err(e) => return fail(&format!("cannot install signal handlers: {e}")),
    };
    // `--verify-only`: memtier's data verification without a run.
    if config
        .import
        .as_ref()
        .is_some_and(|i| i.verify == Verify::Only)
    {
        return verify_data(&config);
    }
    let code = if config.is_sweep() {
        benchmark_sweep(&config, &interrupt)
    } else {
        benchmark(&config, &interrupt)
    };
    // `--data-verify`: after a run that did its work.
    let after_run = config
        .import
        .as_ref()
        .is_some_and(|i| i.verify == Verify::AfterRun);
    if after_run && interrupt.signal().is_none() && !interrupt.aborted() {
        let verified = verify_data(&config);
        return if code == ExitCode::SUCCESS {
            verified
        } else {
            code
        };
    }
    code
}

/// Reads every imported key back and prints memtier's counts (to `-o`'s file
/// when given, as memtier writes them there); exit 1 when a key failed.
fn verify_data(config: &Config) -> ExitCode {
    let Some(import) = &config.import else {
        return ExitCode::SUCCESS;
    };
    let found = match kvbench::engine::verify::verify(config, import) {
        Ok(found) => found,
        Err(e) => return fail(&e.to_string()),
    };
    if let Err(e) = report::verification::write(config.output.out_file.as_deref(), &found) {
        return fail(&format!("cannot write the data verification: {e}"));
    }
    if found.failed > 0 {
        say!(
            "kvbench: error: data verification: {} of {} keys failed (exit code 1)",
            found.failed,
            found.failed + found.verified
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// One benchmark; the JSON file is rewritten after every phase, so a later
/// failure or an interrupt loses nothing.
fn benchmark(config: &Config, interrupt: &Interrupt) -> ExitCode {
    // Bound before any connection opens: a port in use is a usage error.
    let mut metrics = match Live::start(config) {
        Ok(metrics) => metrics,
        Err(e) => return fail_usage(&e.to_string()),
    };
    let mut progress = Progress::new(config, true);
    let mut outputs = ExportManager::for_benchmark(config);
    // The HDR files are one more exporter on the per-second feed.
    let hdr_failures = FailureLog::default();
    let mut hdr = HdrFiles::new(Arc::new(config.clone()), &hdr_failures);
    let mut live = Sinks::new()
        .with(&mut progress)
        .with(&mut metrics)
        .with(&mut hdr);
    let results = match run::run(
        config.clone(),
        config.prefill,
        interrupt,
        &mut live,
        &mut |results| outputs.phase(config, results),
    ) {
        Ok(results) => results,
        Err(e) => return run_error(e, interrupt),
    };
    let late = results.timing.as_ref().and_then(|t| t.late_message());
    let complete = results.interrupted.is_none() && late.is_none();
    let on_terminal = outputs.warnings_on_terminal();
    let written = outputs.finish(config, &results, complete);
    metrics.finish(interrupt);
    say_warnings(&written.shown, on_terminal);
    // The HDR and client-stats files count as any output not written.
    let mut failures = hdr_failures.take();
    failures.extend(results.unwritten.iter().map(|u| u.to_output_error()));
    failures.extend(written.failures);
    let code = finish(&failures, written.save_failed, interrupt);
    // A shard that reached a planned start too late (exit 4), once its report is written.
    match late {
        Some(message) if code == ExitCode::SUCCESS => {
            say!("kvbench: error: {message}");
            ExitCode::from(4)
        }
        _ => judged(code, &written.verdict, config.faults.allow_invalid),
    }
}

/// Every cell of a sweep; the JSON file grows after every phase of every cell.
fn benchmark_sweep(config: &Config, interrupt: &Interrupt) -> ExitCode {
    let mut metrics = match Live::start(config) {
        Ok(metrics) => metrics,
        Err(e) => return fail_usage(&e.to_string()),
    };
    let mut outputs = ExportManager::for_benchmark(config);
    let mut live = Sinks::new().with(&mut metrics);
    // Each cell its own progress line and HDR files, their failures in one log.
    let hdr_failures = FailureLog::default();
    let mut cell_outputs = |cell: &Config| CellOutputs {
        before: Box::new(Progress::new(cell, true)),
        after: Box::new(HdrFiles::new(Arc::new(cell.clone()), &hdr_failures)),
    };
    let cells = match sweep::run(
        config,
        interrupt,
        &mut live,
        &mut cell_outputs,
        &mut |cells| outputs.cells(config, cells),
    ) {
        Ok(cells) => cells,
        Err(e) => return run_error(e, interrupt),
    };
    let on_terminal = outputs.warnings_on_terminal();
    let written = outputs.finish_cells(config, &cells);
    metrics.finish(interrupt);
    // Once per sweep, naming the cells, as the text report shows them.
    say_warnings(&written.shown, on_terminal);
    let mut failures = hdr_failures.take();
    failures.extend(written.failures);
    let code = finish(&failures, written.save_failed, interrupt);
    judged(code, &written.verdict, config.faults.allow_invalid)
}

/// `kvbench capacity`: the search, the confirmation run, every output; the
/// exit codes are docs/capacity.md's.
fn capacity(args: cli::CapacityArgs) -> ExitCode {
    let plan = match CapacityPlan::from_args(args) {
        Ok(plan) => plan,
        Err(e) => return fail_usage(&e.to_string()),
    };
    if let Err(e) = report::files::check_outputs(&plan.base) {
        return fail_usage(&e.to_string());
    }
    let interrupt = match Interrupt::install() {
        Ok(interrupt) => interrupt,
        Err(e) => return fail(&format!("cannot install signal handlers: {e}")),
    };
    let finished = match kvbench::tools::capacity::run(&plan, &interrupt) {
        Ok(finished) => finished,
        Err(e) => return run_error(e, &interrupt),
    };
    let written = &finished.written;
    say_warnings(&written.shown, finished.warnings_on_terminal);
    let code = finish(&written.failures, written.save_failed, &interrupt);
    if code != ExitCode::SUCCESS {
        return code;
    }
    let code = judged(code, &written.verdict, plan.base.faults.allow_invalid);
    if code != ExitCode::SUCCESS {
        return code;
    }
    let outcome = finished.capacity.outcome;
    match (outcome, finished.confirmed()) {
        (CapacityOutcome::NoneMeets, _) => fail("no rate tried met the SLO"),
        (CapacityOutcome::Unconfirmed, _) | (_, Some(false)) => {
            say!(
                "kvbench: error: the confirmation run at the capacity missed the SLO, so no capacity is confirmed (exit code 5); {}",
                kvbench::report::capacity::UNCONFIRMED_FIX
            );
            ExitCode::from(5)
        }
        (CapacityOutcome::Unfinished, _) => {
            say!(
                "kvbench: error: --max-steps ended the search before the interval was within --resolution (exit code 6)"
            );
            ExitCode::from(6)
        }
        _ => ExitCode::SUCCESS,
    }
}

/// The exit code once the verdict is in: a run that did its work but whose
/// result is not valid exits [`verdict::INVALID_EXIT_CODE`] (3), unless
/// `--allow-invalid`; a run that already failed keeps its own code.
fn judged(code: ExitCode, verdict: &Verdict, allow_invalid: bool) -> ExitCode {
    judged_lines(code, &verdict.lines(), allow_invalid)
}

/// [`judged`] for a verdict's reasons as lines (a merged set's, read from
/// its files); none means valid.
fn judged_lines(code: ExitCode, reasons: &[String], allow_invalid: bool) -> ExitCode {
    if reasons.is_empty() || code != ExitCode::SUCCESS {
        return code;
    }
    for reason in reasons {
        say!("kvbench: invalid: {reason}");
    }
    if allow_invalid {
        say!("kvbench: the result is not valid; exit code 0 by --allow-invalid");
        return code;
    }
    say!(
        "kvbench: error: the result is not valid (exit code {}); --allow-invalid exits 0 all the same",
        verdict::INVALID_EXIT_CODE
    );
    ExitCode::from(verdict::INVALID_EXIT_CODE)
}

/// The warnings shown on stderr, and how many `--no-warning` silenced; none
/// when `on_terminal`: the text report on stderr's terminal lists them already.
fn say_warnings(shown: &warnings::Shown, on_terminal: bool) {
    if on_terminal {
        return;
    }
    for line in &shown.lines {
        say!("kvbench: warning: {line}");
    }
    if let Some(line) = shown.silenced_line() {
        say!("kvbench: {line} by --no-warning");
    }
}

/// The exit code: 128 + signal when interrupted, 1 when a report could not be
/// written (each failure named), 0 otherwise.
fn finish(failures: &[OutputError], save_failed: bool, interrupt: &Interrupt) -> ExitCode {
    for e in failures {
        say!("kvbench: {e}");
    }
    if interrupt.aborted() {
        say!(
            "kvbench: stopped: more errors than --max-errors; the reports hold everything measured until then"
        );
        return ExitCode::from(verdict::MAX_ERRORS_EXIT_CODE);
    }
    if let Some(signal) = interrupt.signal() {
        say!(
            "kvbench: interrupted by signal {signal}; the reports hold everything measured until then"
        );
        return ExitCode::from(Interrupt::exit_code(signal));
    }
    if !failures.is_empty() || save_failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn run_error(e: RunError, interrupt: &Interrupt) -> ExitCode {
    match e {
        RunError::Usage(e) => fail_usage(&e.to_string()),
        RunError::Interrupted(before) => {
            // Only a signal raises it (an error-budget stop needs a running phase).
            let signal = interrupt.signal().unwrap_or(libc::SIGINT);
            say!("kvbench: interrupted by signal {signal} {before}; nothing was measured");
            ExitCode::from(Interrupt::exit_code(signal))
        }
        RunError::Barrier(e) => {
            say!("kvbench: error: {e}");
            ExitCode::from(e.exit_code())
        }
        e => fail(&e.to_string()),
    }
}

/// Parses a command line; `Err` carries the exit code after printing help,
/// the version or a one-line usage error.
fn parse<T: Parser>(args: impl Iterator<Item = String>) -> Result<T, ExitCode> {
    T::try_parse_from(args).map_err(|e| {
        // --help and --version are "errors" that print to stdout and succeed.
        if e.use_stderr() {
            // A subcommand's errors point at the subcommand's help.
            let first = std::env::args().nth(1);
            fail_usage(&cli::command_line_error(&e, first.as_deref()).to_string())
        } else {
            let _ = e.print();
            ExitCode::SUCCESS
        }
    })
}

fn compare(args: &cli::CompareArgs) -> ExitCode {
    match kvbench::tools::compare::run(&CompareOptions::from_args(args)) {
        Ok(comparison) => {
            // A closed stdout (`| head`) is the reader's choice, not a failure.
            let _ = std::io::Write::write_all(
                &mut std::io::stdout().lock(),
                comparison.output.as_bytes(),
            );
            // Comparing is reading: a compared file that is not valid is
            // said, and the comparison itself still succeeded.
            for line in &comparison.invalid {
                say!("kvbench: invalid: {line}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail_usage(&e.to_string()),
    }
}

/// `kvbench merge`: the merged tables on stdout, the merged report with `-o`.
fn merge(args: &cli::MergeArgs) -> ExitCode {
    let args = MergeOptions::from_args(args);
    match kvbench::tools::merge::run(&args) {
        Ok((merged, text)) => {
            // The files left out are said on stderr too: with `-o -` the
            // tables, which name them, are not printed.
            for s in merged.skipped() {
                say!("kvbench merge: warning: {s}");
            }
            // What the merge found is said where a run says it, whatever
            // stdout holds (`-o -` writes the JSON there).
            for w in merged.warnings() {
                say!("kvbench merge: warning: {w}");
            }
            print(&text);
            let reasons = merged.verdict_lines();
            judged_lines(ExitCode::SUCCESS, &reasons, args.allow_invalid)
        }
        Err(e) => fail_usage(&e.to_string()),
    }
}

/// `kvbench report`: the HTML page on stdout, or in `-o`.
fn html_report(args: &cli::ReportArgs) -> ExitCode {
    match kvbench::report::html::run(&ReportOptions::from_args(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail_usage(&e.to_string()),
    }
}

/// `kvbench suite`: every step printed and saved as it finishes.
fn suite(args: &cli::SuiteArgs) -> ExitCode {
    let mut args = args.clone();
    if args.stdin_last_arg && !args.command.is_empty() {
        // redis-benchmark's -x: stdin, as it is, is the command's last argument.
        let mut value = Vec::new();
        if let Err(e) = std::io::Read::read_to_end(&mut std::io::stdin(), &mut value) {
            return fail_usage(&format!(
                "-x: cannot read stdin: {e}; pipe the value in, e.g. echo -n v | kvbench suite -x set k"
            ));
        }
        args.stdin_value = Some(value);
    }
    let plan = match SuitePlan::from_args(&args) {
        Ok(plan) => plan,
        Err(e) => return fail_usage(&e.to_string()),
    };
    if let Some(idle) = &plan.idle {
        return suite_idle(idle);
    }
    // A report that cannot be written is found now, not after the suite.
    let json = match plan.json_out_file.as_deref().map(Target::of).transpose() {
        Ok(json) => json,
        Err(e) => return fail_usage(&format!("--json-out-file: {e}; give a writable path")),
    };
    if let Some(Err(e)) = json.as_ref().map(Target::check_writable) {
        return fail_usage(&format!(
            "--json-out-file: cannot write there: {e}; give a writable path"
        ));
    }
    if let Some(html) = &plan.html_out_file {
        if let Err(e) = kvbench::report::html::check_page_file(html, plan.json_out_file.as_deref())
        {
            return fail_usage(&e.to_string());
        }
    }
    for warning in &plan.warnings {
        say!("kvbench: warning: {warning}");
    }
    let interrupt = match Interrupt::install() {
        Ok(interrupt) => interrupt,
        Err(e) => return fail(&format!("cannot install signal handlers: {e}")),
    };
    print(&suite_output::header(plan.output, plan.width));
    let planned = plan.steps.len();
    let mut outputs =
        ExportManager::for_suite(plan.json_out_file.as_deref(), plan.html_out_file.as_deref());
    let mut said: Vec<&'static str> = Vec::new();
    // Said after the table, so that no warning splits its rows on a
    // terminal that shows stdout and stderr together.
    let mut deferred: Vec<String> = Vec::new();
    let mut on_step = |done: &[kvbench::report::suite::StepResult]| {
        let Some(last) = done.last() else {
            return;
        };
        // Judged once: its row, its warnings and every later save agree.
        let judged = outputs.step(done, planned);
        let figures = kvbench::report::suite::figures(last);
        print(&suite_output::row(
            plan.output,
            &last.step,
            &figures,
            &judged.verdict,
            plan.width,
            plan.precision,
        ));
        if plan.show_errors {
            print(&kvbench::report::suite::output::server_errors(last));
        }
        for warning in &judged.warnings {
            let kind = warning.kind();
            if kvbench::report::suite::said_once(kind) {
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
        if let Some(line) = suite_output::errors_line(last, &judged.warnings) {
            deferred.push(format!("kvbench: warning: {line}"));
        }
    };
    let ran = kvbench::tools::suite::run(&plan, &interrupt, &mut on_step);
    for line in &deferred {
        say!("{line}");
    }
    let (done, failed) = match ran {
        Ok(done) => (done, None),
        Err(Ok(after)) => (after.done, Some(after.error)),
        Err(Err(e)) => return run_error(e, &interrupt),
    };
    let complete = !interrupt.stop_requested() && done.len() == planned;
    let written = outputs.finish_suite(&done, planned, complete);
    let code = finish(&written.failures, written.save_failed, &interrupt);
    if let Some(e) = failed.filter(|_| code == ExitCode::SUCCESS) {
        // The load had started: the tests done are written, the suite is
        // not a whole measurement (exit 3, not a usage error's 2).
        say!(
            "kvbench: error: a test could not run after {} of {planned} tests had: {e} (exit code {})",
            done.len(),
            verdict::INVALID_EXIT_CODE
        );
        return ExitCode::from(verdict::INVALID_EXIT_CODE);
    }
    judged(code, &written.verdict, plan.allow_invalid)
}

/// `kvbench suite -I`: idle connections, held for their wait.
fn suite_idle(idle: &kvbench::config::suite::IdlePlan) -> ExitCode {
    let interrupt = match Interrupt::install() {
        Ok(interrupt) => interrupt,
        Err(e) => return fail(&format!("cannot install signal handlers: {e}")),
    };
    print(&format!(
        "Creating {} idle connections and waiting {:.0} seconds (Ctrl+C when done)\n",
        idle.connections,
        idle.wait.as_secs_f64()
    ));
    match kvbench::tools::suite::idle::run(idle, &interrupt) {
        Ok(_) => finish(&[], false, &interrupt),
        Err(e) => run_error(e, &interrupt),
    }
}

/// `kvbench man`: kvbench.1 on stdout, or every page into `--dir`.
fn man_pages(dir: Option<&std::path::Path>) -> ExitCode {
    let Some(dir) = dir else {
        return match cli::man_page() {
            Ok(page) => write_out(&page),
            Err(e) => fail(&format!("cannot render the man page: {e}")),
        };
    };
    // A missing directory is the user's to make: a usage error.
    match cli::man_pages_to(dir) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail_usage(&format!(
            "--dir: cannot write the man pages into {}: {e}; give an existing, writable directory (mkdir -p it first)",
            dir.display()
        )),
    }
}

/// Writes generated bytes to stdout; one that cannot be written fails (exit 1).
fn write_out(bytes: &[u8]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match std::io::Write::write_all(&mut out, bytes).and_then(|()| std::io::Write::flush(&mut out))
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&format!("cannot write to stdout: {e}")),
    }
}

/// Writes to stdout; a closed stdout (`| head`) is the reader's choice.
fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = std::io::Write::write_all(&mut out, text.as_bytes());
    let _ = std::io::Write::flush(&mut out);
}

fn fail_usage(message: &str) -> ExitCode {
    say!("kvbench: error: {message}");
    ExitCode::from(2)
}

fn fail(message: &str) -> ExitCode {
    say!("kvbench: error: {message}");
    ExitCode::from(1)
}
