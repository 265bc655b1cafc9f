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
    /// Refuse the set (exit 2) when the machines started RUN #1 more than SECS apart (clock offsets corrected)
    #[arg(long, value_name = "SECS", value_parser = non_negative_seconds)]
    pub max_skew: Option<f64>,
    /// Format of the tables printed on stdout
    #[arg(long, value_enum, default_value = "text", value_name = "FORMAT")]
    pub format: MergeFormat,
    /// On a terminal, keep each table row on one line however wide (by
    /// default tables wider than the terminal are stacked to fit it)
    #[arg(long)]
    pub wide: bool,
    /// Print help
    #[arg(long, action = ArgAction::Help)]
    pub help: Option<bool>,
}

/// `--max-skew`: seconds, zero or more.
fn non_negative_seconds(text: &str) -> Result<f64, crate::error::UsageError> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Ok(s),
        _ => Err(crate::error::UsageError::new(
            "--max-skew",
            crate::cli::seconds::seconds_for(text).map_or_else(
                || {
                    format!(
                        "'{text}' is not seconds; give zero or more seconds, e.g. --max-skew 0.05"
                    )
                },
                |s| format!("takes seconds without a unit (got '{text}'); give --max-skew {s}"),
            ),
        )),
    }
}
