//! `kvbench merge`'s flags: what the user typed. The merge itself is
//! [`crate::tools::merge`].

use std::path::PathBuf;

use clap::{ArgAction, Parser};

/// `kvbench merge`'s text formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MergeFormat {
    /// Aligned columns.
    Text,
    /// Markdown tables.
    Md,
}

/// `kvbench merge`: what the user typed.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "kvbench merge",
    about = "Merge the JSON reports of the machines of a sharded run into one report: counts and histograms summed, every percentile and rate recomputed",
    max_term_width = 100,
    // The benchmark's flags disable clap's help; this one is declared below.
    disable_help_flag = true
)]
pub struct MergeArgs {
    /// JSON reports written with --json-out-file, one per machine
    #[arg(required = true, num_args = 1.., value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Write the merged report here (the same layout as a single run's JSON); `-` for stdout
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Merge a set with missing shards; the result is marked partial and names them
    #[arg(long)]
    pub allow_partial: bool,
    /// Exit 0 even when the merged verdict says the result is not valid
    #[arg(long)]
    pub allow_invalid: bool,
    /// Format of the tables printed on stdout
    #[arg(long, value_enum, default_value = "text", value_name = "FORMAT")]
    pub format: MergeFormat,
    /// Print help
    #[arg(long, action = ArgAction::Help)]
    pub help: Option<bool>,
}
