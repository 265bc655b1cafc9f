//! `kvbench report`'s flags: what the user typed. The page itself is
//! [`crate::report::html`].

use std::path::PathBuf;

use clap::{ArgAction, Parser};

/// `kvbench report`: what the user typed.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "kvbench report",
    about = "Render JSON reports (single runs and sweeps) as one self-contained HTML page: inline SVG charts, no script, no network; several files overlay",
    max_term_width = 100,
    // The benchmark's flags disable clap's help; this one is declared below.
    disable_help_flag = true
)]
pub struct ReportArgs {
    /// JSON reports written with --json-out-file (single runs or sweeps)
    #[arg(required = true, num_args = 1.., value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Write the page here (atomically) instead of stdout
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print help
    #[arg(long, action = ArgAction::Help)]
    pub help: Option<bool>,
}
