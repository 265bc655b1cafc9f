//! `kvbench compare`'s flags: what the user typed. The comparison itself is
//! [`crate::compare`].

use std::path::PathBuf;

use clap::{ArgAction, Parser};

/// `kvbench compare`: what the user typed.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "kvbench compare",
    about = "Compare kvbench (or memtier_benchmark) JSON reports side by side, with ratios to the first",
    max_term_width = 100,
    // The benchmark's flags disable clap's help; this one is declared below.
    disable_help_flag = true
)]
pub struct CompareArgs {
    /// JSON reports written with --json-out-file; the first is the baseline
    #[arg(required = true, num_args = 2.., value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Output format: text, md (Markdown table) or csv
    #[arg(long, default_value = "text", value_name = "FORMAT")]
    pub format: String,
    /// rows: a line per op and file; columns: a line per op, a column per file
    /// and the ratio column (1 : 1.20 : 1.19) for ops/sec, avg and p99 latency
    #[arg(long, default_value = "rows", value_name = "LAYOUT")]
    pub layout: String,
    /// Print help
    #[arg(long, action = ArgAction::Help)]
    pub help: Option<bool>,
}
