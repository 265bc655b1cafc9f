//! The outline of kvbench: parse the command line, validate it, run the
//! command, export its outputs, exit with the code of its outcome. The one
//! place that exits; the policy of its codes is [`kvbench::tools::exit`].

use std::process::ExitCode;

use clap::{ArgMatches, CommandFactory, FromArgMatches};

use kvbench::cli::{self, Args, Cli, Subcommand};
use kvbench::config::{Config, ReportOptions};
use kvbench::error::note;
use kvbench::report;
use kvbench::tools::exit::{self, Exit};
use kvbench::tools::{benchmark, capacity, compare, merge, suite};

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    ExitCode::from(command(&argv))
}

/// The command `argv` names, run to its end.
fn command(argv: &[String]) -> Exit {
    let (line, matches) = match parse(argv) {
        Ok(parsed) => parsed,
        Err(exit) => return exit,
    };
    if line.run.help {
        return exit::write_out(cli::SUMMARY.as_bytes());
    }
    // Without a subcommand, a benchmark with memtier's flags.
    let Some(subcommand) = line.subcommand else {
        return run_benchmark(line.run, &matches);
    };
    match subcommand {
        // `capacity` takes the benchmark's flags, `--help` among them.
        Subcommand::Capacity(c) if c.run.help => {
            exit::write_out(cli::subcommand_help("capacity").as_bytes())
        }
        Subcommand::Capacity(capacity_args) => capacity::command::command(*capacity_args),
        Subcommand::Compare(compare_args) => compare::command(&compare_args),
        Subcommand::Suite(suite_args) => suite::command::command(&suite_args),
        Subcommand::Merge(merge_args) => merge::command(&merge_args),
        // `kvbench report`: the HTML page on stdout, or in `-o`.
        Subcommand::Report(report_args) => {
            match report::html::run(&ReportOptions::from_args(&report_args)) {
                Ok(()) => Exit::Success,
                Err(e) => Exit::usage(e),
            }
        }
        Subcommand::Completions(c) => exit::write_out(&cli::completions(c.shell)),
        Subcommand::Help(h) => match cli::help_text(h.subcommand.as_deref()) {
            Ok(text) => exit::write_out(text.as_bytes()),
            Err(e) => Exit::usage(e),
        },
        Subcommand::Man(man) => man_pages(man.dir.as_deref()),
    }
}

/// Parses the command line, with clap's matches (where each value stood);
/// `Err` carries the exit code after printing help, the version or a
/// one-line usage error.
fn parse(argv: &[String]) -> Result<(Cli, ArgMatches), Exit> {
    let parsed = Cli::command()
        .try_get_matches_from(argv)
        .and_then(|matches| {
            let line =
                Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut Cli::command()))?;
            Ok((line, matches))
        });
    parsed.map_err(|e| {
        // --help and --version are "errors" that print to stdout and succeed.
        if e.use_stderr() {
            // A subcommand's errors point at the subcommand's help.
            let first = argv.get(1).map(String::as_str);
            Exit::usage(cli::command_line_error(&e, first))
        } else {
            let _ = e.print();
            Exit::Success
        }
    })
}

/// The benchmark: its flags validated into a [`Config`], every report file
/// checked before any connection, then run and exported ([`benchmark::run`]).
fn run_benchmark(mut args: Args, matches: &ArgMatches) -> Exit {
    // memtier's places of --command-ratio/--command-key-pattern.
    cli::place_per_command(&mut args, matches);
    let config = match Config::from_args(args) {
        Ok(config) => config,
        Err(e) => return Exit::usage(e),
    };
    // A report that cannot be written is found now, not after the run.
    if let Err(e) = report::files::check_outputs(&config) {
        return Exit::usage(e);
    }
    if config.output.show_config {
        note(format_args!("{}", report::show_config(&config)));
    }
    exit::with_signals(|interrupt| benchmark::run(&config, interrupt))
}

/// `kvbench man`: kvbench.1 on stdout, or every page into `--dir`.
fn man_pages(dir: Option<&std::path::Path>) -> Exit {
    let Some(dir) = dir else {
        return match cli::man_page() {
            Ok(page) => exit::write_out(&page),
            Err(e) => Exit::failure(format_args!("cannot render the man page: {e}")),
        };
    };
    // A missing directory is the user's to make: a usage error.
    match cli::man_pages_to(dir) {
        Ok(()) => Exit::Success,
        Err(e) => Exit::usage(format_args!(
            "--dir: cannot write the man pages into {}: {e}; give an existing, writable directory (mkdir -p it first)",
            dir.display()
        )),
    }
}
