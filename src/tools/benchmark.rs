//! kvbench without a subcommand: one benchmark, or a sweep of them, with its
//! live outputs (the progress line, the metrics endpoint, the HDR files) and
//! its files, ending in an exit code ([`crate::tools::exit`]).
//!
//! What it owns: [`run()`], the order of a benchmark's work — memtier's data
//! verification alone (`--verify-only`) or after the run (`--data-verify`) —,
//! and one body for a single run and a sweep: the live outputs set up, the
//! run, every output written, then the code from what was not written, the
//! stop and the verdict. The files are rewritten after every phase (of every
//! cell), so a later failure or an interrupt loses nothing.

use std::sync::Arc;

use crate::config::{Config, Verify};
use crate::engine::interrupt::Interrupt;
use crate::engine::master::results::Results;
use crate::engine::master::sink::Sinks;
use crate::engine::master::sweep::{self, CellOutputs, Swept};
use crate::engine::{self, master::run};
use crate::error::{OutputError, note};
use crate::report::export::ExportManager;
use crate::report::hdr_files::{FailureLog, HdrFiles};
use crate::report::metrics::Live;
use crate::report::progress::Progress;
use crate::tools::exit::{self, Exit};

/// The benchmark `config` asks for, its data verification before or after
/// it, and the exit code.
pub fn run(config: &Config, interrupt: &Interrupt) -> Exit {
    let verify = config.import.as_ref().map(|i| i.verify);
    if verify == Some(Verify::Only) {
        return verify_data(config);
    }
    let exit = measure(config, interrupt);
    // `--data-verify`: after a run that did its work.
    let stopped = interrupt.signal().is_some() || interrupt.aborted();
    if verify == Some(Verify::AfterRun) && !stopped {
        let verified = verify_data(config);
        return if exit.is_success() { verified } else { exit };
    }
    exit
}

/// What a benchmark measured: one run's results, or a sweep's cells.
enum Measured {
    /// Boxed: a run's results are large beside a sweep's list of cells.
    Run(Box<Results>),
    Sweep(Swept),
}

/// One run or a sweep, every output, and the code.
fn measure(config: &Config, interrupt: &Interrupt) -> Exit {
    // Bound before any connection opens: a port in use is a usage error.
    let mut metrics = match Live::start(config) {
        Ok(metrics) => metrics,
        Err(e) => return Exit::usage(e),
    };
    let mut outputs = ExportManager::for_benchmark(config);
    // The HDR files are one more exporter on the per-second feed (a sweep's
    // cells each their own, their failures in one log).
    let hdr_failures = FailureLog::default();
    let measured = if config.is_sweep() {
        let mut live = Sinks::new().with(&mut metrics);
        // Each cell its own progress line and HDR files.
        let mut cell_outputs = |cell: &Config| CellOutputs {
            before: Box::new(Progress::new(cell, true)),
            after: Box::new(HdrFiles::new(Arc::new(cell.clone()), &hdr_failures)),
        };
        let mut saved = |cells: &[sweep::CellResult]| outputs.cells(config, cells);
        sweep::run(config, interrupt, &mut live, &mut cell_outputs, &mut saved).map(Measured::Sweep)
    } else {
        let mut progress = Progress::new(config, true);
        let mut hdr = HdrFiles::new(Arc::new(config.clone()), &hdr_failures);
        let mut live = Sinks::new()
            .with(&mut progress)
            .with(&mut metrics)
            .with(&mut hdr);
        let mut saved = |results: &Results| outputs.phase(config, results);
        run::run(
            config.clone(),
            config.prefill,
            interrupt,
            &mut live,
            &mut saved,
        )
        .map(|results| Measured::Run(Box::new(results)))
    };
    let measured = match measured {
        Ok(measured) => measured,
        Err(e) => return exit::run_error(e, interrupt),
    };
    let on_terminal = outputs.warnings_on_terminal();
    // A shard that reached a planned start too late (exit 4), once its report is written.
    let mut late = None;
    let mut unwritten: Vec<OutputError> = Vec::new();
    let written = match &measured {
        Measured::Run(results) => {
            late = results.timing.as_ref().and_then(|t| t.late_message());
            let complete = results.interrupted.is_none() && late.is_none();
            unwritten.extend(results.unwritten.iter().map(|u| u.to_output_error()));
            outputs.finish(config, results, complete)
        }
        Measured::Sweep(swept) => outputs.finish_cells(config, swept),
    };
    metrics.finish(interrupt);
    // Once per benchmark (per sweep, naming the cells, as the text report shows them).
    written.shown.say(on_terminal);
    // The HDR and client-stats files count as any output not written.
    let mut failures = hdr_failures.take();
    failures.extend(unwritten);
    failures.extend(written.failures);
    let exit = exit::after_outputs(&failures, written.save_failed, interrupt);
    match late {
        Some(message) if exit.is_success() => {
            note(format_args!("kvbench: error: {message}"));
            Exit::Late
        }
        _ => exit::judged(exit, &written.verdict, config.faults.allow_invalid),
    }
}

/// Reads every imported key back and prints memtier's counts (to `-o`'s file
/// when given, as memtier writes them there); exit 1 when a key failed.
fn verify_data(config: &Config) -> Exit {
    let Some(import) = &config.import else {
        return Exit::Success;
    };
    let found = match engine::master::verify::verify(config, import) {
        Ok(found) => found,
        Err(e) => return Exit::failure(e),
    };
    if let Err(e) = crate::report::verification::write(config.output.out_file.as_deref(), &found) {
        return Exit::failure(format_args!("cannot write the data verification: {e}"));
    }
    if found.failed > 0 {
        note(format_args!(
            "kvbench: error: data verification: {} of {} keys failed (exit code 1)",
            found.failed,
            found.failed + found.verified
        ));
        return Exit::Failure;
    }
    Exit::Success
}
