//! The whole command line, as clap parses it: the benchmark's flags
//! ([`Args`]) or one of the subcommands ([`Subcommand`]), and the settings of
//! the top-level command (its name, version, about, exit codes) that
//! `kvbench --help`, the man page and the completions are built from.

use clap::Parser;

use super::{Args, EXIT_CODES, Subcommand};

/// `kvbench [FLAGS]` or `kvbench SUBCOMMAND …`: what `main` parses, and the
/// command every help text, man page and completion script is drawn from.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "kvbench",
    // The package's version and the commit it was built from (build.rs).
    version = env!("KVBENCH_VERSION"),
    about = "Load generator for Redis-protocol servers (memtier_benchmark-compatible flags)",
    disable_help_flag = true,
    disable_version_flag = true,
    // `--clients -1` is a bad value for --clients, not an unknown flag `-1`.
    allow_negative_numbers = true,
    // A flag given twice takes its last value, as in memtier: wrappers append
    // their overrides to a base command line.
    args_override_self = true,
    // `kvbench -t 2 suite` would drop `-t 2` silently; refuse it instead.
    args_conflicts_with_subcommands = true,
    // `kvbench help [SUBCOMMAND]` is kvbench's own (Subcommand::Help).
    disable_help_subcommand = true,
    max_term_width = 100,
    after_help = EXIT_CODES
)]
pub struct Cli {
    /// The benchmark's flags: all of them when there is no subcommand.
    #[command(flatten)]
    pub run: Args,
    /// `kvbench suite …` or `kvbench compare …` instead of a benchmark.
    #[command(subcommand)]
    pub subcommand: Option<Subcommand>,
}
