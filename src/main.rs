//! The outline of kvbench: parse, validate, run, report. The one place that exits.

use std::process::ExitCode;

use clap::Parser;

use kvbench::cli::{self, Args};
use kvbench::config::Config;
use kvbench::report::{self, progress::Progress};
use kvbench::run::{self, RunError};

fn main() -> ExitCode {
    // `kvbench compare FILE...` is the one subcommand; everything else is a
    // benchmark with memtier's flags.
    if std::env::args().nth(1).as_deref() == Some("compare") {
        return compare(std::env::args().skip(1));
    }
    let args = match parse::<Args>(std::env::args()) {
        Ok(args) => args,
        Err(code) => return code,
    };
    let config = match Config::from_args(args) {
        Ok(config) => config,
        Err(e) => return fail_usage(&e.to_string()),
    };
    if config.output.show_config {
        eprintln!("{}", report::show_config(&config));
    }
    if config.is_sweep() {
        return sweep(&config);
    }
    let mut progress = Progress::new(&config, true);
    let mut save_failed = false;
    // Results are saved after every phase, so a later failure loses nothing.
    let mut save = |results: &kvbench::results::Results| {
        if let Err(e) = report::save_json(&config, results, false) {
            eprintln!("kvbench: {e}");
            save_failed = true;
        }
    };
    let results = match run::run(config.clone(), &mut progress, &mut save) {
        Ok(results) => results,
        Err(RunError::Usage(e)) => return fail_usage(&e.to_string()),
        Err(e) => {
            eprintln!("kvbench: error: {e}");
            return ExitCode::from(1);
        }
    };
    for warning in kvbench::warnings::collect(&config, &results) {
        eprintln!("kvbench: warning: {warning}");
    }
    let outcome = report::save_json(&config, &results, true)
        .and_then(|()| report::emit_text(&config, &results, true));
    match outcome {
        Ok(()) if !save_failed => ExitCode::SUCCESS,
        Ok(()) => ExitCode::from(1),
        Err(e) => {
            eprintln!("kvbench: {e}");
            ExitCode::from(1)
        }
    }
}

/// Runs every cell of a sweep; the JSON file grows after every phase.
fn sweep(config: &Config) -> ExitCode {
    let total = config.sweep.cell_count();
    let mut save_failed = false;
    let mut save = |cells: &[kvbench::sweep::CellResult]| {
        if let Err(e) = report::write_json(config, &report::sweep::json(config, cells, total)) {
            eprintln!("kvbench: {e}");
            save_failed = true;
        }
    };
    let cells = match kvbench::sweep::run(config, &mut save) {
        Ok(cells) => cells,
        Err(RunError::Usage(e)) => return fail_usage(&e.to_string()),
        Err(e) => {
            eprintln!("kvbench: error: {e}");
            return ExitCode::from(1);
        }
    };
    for cell in &cells {
        for warning in kvbench::warnings::collect(&cell.cell.config, &cell.results) {
            eprintln!("kvbench: warning: [{}] {warning}", cell.cell.label());
        }
    }
    match report::write_text(config, &report::sweep::text(&cells, total)) {
        Ok(()) if !save_failed => ExitCode::SUCCESS,
        Ok(()) => ExitCode::from(1),
        Err(e) => {
            eprintln!("kvbench: {e}");
            ExitCode::from(1)
        }
    }
}

/// Parses a command line; `Err` carries the exit code after printing help,
/// the version or a one-line usage error.
fn parse<T: Parser>(args: impl Iterator<Item = String>) -> Result<T, ExitCode> {
    T::try_parse_from(args).map_err(|e| {
        // --help and --version are "errors" that print to stdout and succeed.
        if e.use_stderr() {
            fail_usage(&cli::usage_error(&e).to_string())
        } else {
            let _ = e.print();
            ExitCode::SUCCESS
        }
    })
}

fn compare(args: impl Iterator<Item = String>) -> ExitCode {
    let args = match parse::<cli::CompareArgs>(args) {
        Ok(args) => args,
        Err(code) => return code,
    };
    match kvbench::compare::run(&args) {
        Ok(table) => {
            print!("{table}");
            ExitCode::SUCCESS
        }
        Err(e) => fail_usage(&e.to_string()),
    }
}

fn fail_usage(message: &str) -> ExitCode {
    eprintln!("kvbench: error: {message}");
    ExitCode::from(2)
}
