//! What `kvbench compare`, `kvbench merge` and `kvbench report` take: their
//! options, built from what the user typed ([`crate::cli::CompareArgs`],
//! [`crate::cli::MergeArgs`], [`crate::cli::ReportArgs`]), so that
//! [`crate::tools::compare`], [`crate::tools::merge`] and
//! [`crate::report::html`] never see clap's structs. Their files are checked where
//! they are read; nothing here can fail.

use std::path::PathBuf;

use crate::cli::{self, CompareArgs, MergeArgs, ReportArgs};
use crate::error::terminal::{self, Stream};

/// The width kvbench's own text tables fit (docs/output.md, "On a
/// terminal"): the terminal's when stdout is one, none in a file or a pipe,
/// none with `--wide` (one line per row however wide).
pub fn table_width(wide: bool) -> Option<usize> {
    if wide {
        None
    } else {
        terminal::width(Stream::Stdout)
    }
}

/// How `kvbench compare` writes the comparison (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareFormat {
    /// Aligned columns.
    Text,
    /// Markdown tables.
    Markdown,
    /// One CSV table.
    Csv,
}

/// How `kvbench compare` lays out files and rows (`--layout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareLayout {
    /// A line per op row and file, with every figure, its ratio and a verdict.
    Rows,
    /// A line per op row, a column per file, and the ratio column, for
    /// throughput, average and p99 latency.
    Columns,
}

/// `kvbench compare`'s options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareOptions {
    /// The JSON reports; the first is the baseline.
    pub files: Vec<PathBuf>,
    /// `--format`.
    pub format: CompareFormat,
    /// `--layout`.
    pub layout: CompareLayout,
    /// The width the text tables fit: the terminal's on stdout, `None` in a
    /// file or a pipe, or with `--wide`.
    pub width: Option<usize>,
}

impl CompareOptions {
    /// The options `a` asks for.
    pub fn from_args(a: &CompareArgs) -> CompareOptions {
        CompareOptions {
            files: a.files.clone(),
            format: match a.format {
                cli::CompareFormat::Text => CompareFormat::Text,
                cli::CompareFormat::Markdown => CompareFormat::Markdown,
                cli::CompareFormat::Csv => CompareFormat::Csv,
            },
            layout: match a.layout {
                cli::CompareLayout::Rows => CompareLayout::Rows,
                cli::CompareLayout::Columns => CompareLayout::Columns,
            },
            width: table_width(a.wide),
        }
    }
}

/// How `kvbench merge` prints its tables (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeFormat {
    /// Aligned columns.
    Text,
    /// Markdown tables.
    Markdown,
}

/// `kvbench merge`'s options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeOptions {
    /// The machines' JSON reports, in the order given.
    pub files: Vec<PathBuf>,
    /// `-o`: the merged report's file (`-` for stdout).
    pub output: Option<PathBuf>,
    /// `--allow-partial`: a set with shards missing merges all the same.
    pub allow_partial: bool,
    /// `--allow-invalid`: a merged verdict that is not valid exits 0.
    pub allow_invalid: bool,
    /// `--format`.
    pub format: MergeFormat,
    /// `--max-skew`: the most the machines' RUN #1 starts may be apart.
    pub max_skew: Option<std::time::Duration>,
    /// The width the text tables fit ([`table_width`]).
    pub width: Option<usize>,
}

impl MergeOptions {
    /// The options `a` asks for.
    pub fn from_args(a: &MergeArgs) -> MergeOptions {
        MergeOptions {
            files: a.files.clone(),
            output: a.output.clone(),
            allow_partial: a.allow_partial,
            allow_invalid: a.allow_invalid,
            max_skew: a.max_skew.map(std::time::Duration::from_secs_f64),
            format: match a.format {
                cli::MergeFormat::Text => MergeFormat::Text,
                cli::MergeFormat::Md => MergeFormat::Markdown,
            },
            width: table_width(a.wide),
        }
    }
}

/// `kvbench report`'s options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportOptions {
    /// The JSON reports drawn on the page.
    pub files: Vec<PathBuf>,
    /// `-o`: the page's file; stdout without it.
    pub output: Option<PathBuf>,
}

impl ReportOptions {
    /// The options `a` asks for.
    pub fn from_args(a: &ReportArgs) -> ReportOptions {
        ReportOptions {
            files: a.files.clone(),
            output: a.output.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::{
        CompareFormat, CompareLayout, CompareOptions, MergeFormat, MergeOptions, ReportOptions,
    };
    use crate::cli::{CompareArgs, MergeArgs, ReportArgs};

    #[test]
    fn compare_options_keep_the_files_in_order_with_the_chosen_format_and_layout() {
        let a =
            CompareArgs::try_parse_from(["compare", "a.json", "b.json", "--format", "md"]).unwrap();
        let o = CompareOptions::from_args(&a);
        assert_eq!(o.files, [a.files[0].clone(), a.files[1].clone()]);
        assert_eq!(o.format, CompareFormat::Markdown);
        assert_eq!(o.layout, CompareLayout::Rows);
        let a = CompareArgs::try_parse_from([
            "compare", "a.json", "--format", "csv", "--layout", "columns",
        ])
        .unwrap();
        let o = CompareOptions::from_args(&a);
        assert_eq!(
            (o.format, o.layout),
            (CompareFormat::Csv, CompareLayout::Columns)
        );
    }

    #[test]
    fn report_options_keep_the_output() {
        let a = ReportArgs::try_parse_from(["report", "a.json", "-o", "page.html"]).unwrap();
        let o = ReportOptions::from_args(&a);
        assert_eq!(o.output.as_deref(), Some("page.html".as_ref()));
        assert_eq!(o.files.len(), 1);
    }

    #[test]
    fn merge_options_keep_the_files_the_output_and_the_flags() {
        let a = MergeArgs::try_parse_from([
            "merge",
            "a.json",
            "b.json",
            "-o",
            "m.json",
            "--format",
            "md",
            "--allow-partial",
        ])
        .unwrap();
        let o = MergeOptions::from_args(&a);
        assert_eq!(o.files.len(), 2);
        assert_eq!(o.output.as_deref(), Some("m.json".as_ref()));
        assert_eq!(o.format, MergeFormat::Markdown);
        assert!(o.allow_partial && !o.allow_invalid);
    }
}
