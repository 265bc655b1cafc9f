//! `kvbench compare`'s flags: what the user typed. The comparison itself is
//! [`crate::tools::compare`].

use std::path::PathBuf;

use clap::{ArgAction, Parser, ValueEnum};

/// `--format`: how the comparison is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompareFormat {
    /// Aligned columns.
    Text,
    /// Markdown tables.
    #[value(name = "md", alias = "markdown")]
    Markdown,
    /// One CSV table.
    Csv,
}

/// `--layout`: how files and rows are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompareLayout {
    /// A line per op row and file, with every figure, its ratio and a verdict.
    Rows,
    /// A line per op row, a column per file, and the ratio column, for
    /// throughput, average and p99 latency.
    Columns,
}

/// `kvbench compare`: what the user typed.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "kvbench compare",
    about = "Compare kvbench (or memtier_benchmark) JSON reports side by side, with ratios to the first and a verdict against the run-to-run spread",
    max_term_width = 100,
    // The benchmark's flags disable clap's help; this one is declared below.
    disable_help_flag = true
)]
pub struct CompareArgs {
    /// JSON reports written with --json-out-file; the first is the baseline.
    /// A single sweep file compares its cells with its first cell
    #[arg(required = true, num_args = 1.., value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Output format: text, md (Markdown tables) or csv
    #[arg(long, value_enum, default_value = "text", value_name = "FORMAT")]
    pub format: CompareFormat,
    /// rows: a line per op and file; columns: a line per op, a column per file
    /// and the ratio column (1 : 1.20 : 1.19) for ops/sec, avg and p99 latency
    #[arg(long, value_enum, default_value = "rows", value_name = "LAYOUT")]
    pub layout: CompareLayout,
    /// On a terminal, keep each table row on one line however wide (by
    /// default tables wider than the terminal are stacked to fit it)
    #[arg(long)]
    pub wide: bool,
    /// Print help
    #[arg(long, action = ArgAction::Help)]
    pub help: Option<bool>,
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::{CompareArgs, CompareFormat, CompareLayout};

    fn parse(args: &[&str]) -> Result<CompareArgs, clap::Error> {
        CompareArgs::try_parse_from(std::iter::once("compare").chain(args.iter().copied()))
    }

    #[test]
    fn format_and_layout_are_choices_with_markdown_as_md_or_markdown() {
        let a = parse(&["a.json", "--format", "md", "--layout", "columns"]).unwrap();
        assert_eq!(
            (a.format, a.layout),
            (CompareFormat::Markdown, CompareLayout::Columns)
        );
        let a = parse(&["a.json", "--format", "markdown"]).unwrap();
        assert_eq!(a.format, CompareFormat::Markdown);
        let a = parse(&["a.json"]).unwrap();
        assert_eq!(
            (a.format, a.layout),
            (CompareFormat::Text, CompareLayout::Rows)
        );
        let e = parse(&["a.json", "--format", "xml"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::InvalidValue);
        assert!(parse(&["a.json", "--layout", "wide"]).is_err());
    }
}
