//! The text report laid out for a terminal: what to read first comes last,
//! on the last screen, and nothing is wider than the terminal.
//!
//! memtier's layout ends with its latency distribution, some 320 lines, so
//! on a terminal the verdict and the warnings scrolled away above it, and
//! its 124-column table wrapped on an 80-column one. On a terminal (and
//! without `--memtier-layout` or `--memtier-compat`) the report keeps
//! memtier's tables, each stacked into column groups that fit the width
//! when it is too wide; it says where the distribution is instead of
//! printing it; and it ends with the verdict, the headline figures and the
//! warnings. A file or a pipe gets memtier's layout byte for byte
//! ([`crate::report::text`]).

use std::fmt::Write;

use crate::report::json::percentile_key;
use crate::report::model::section::{OpRow, Section, SectionTitle, TOTALS_ROW};
use crate::report::text_summary::warning_lines;
use crate::report::warnings::Shown;
use crate::report::{ReportInput, percentile_label};

/// One of memtier's tables (its title, `=` rule, header, `-` rule and
/// rows, each cut at the column widths `columns`, the first being the row
/// names), as it is when it fits `width`, else as stacked tables that each
/// repeat the names and hold as many of the other columns as fit.
pub fn stack(table: &str, columns: &[usize], width: usize) -> String {
    let total: usize = columns.iter().sum();
    let lines: Vec<&str> = table.lines().collect();
    if total <= width || columns.len() < 2 || lines.len() < 4 {
        return table.to_string();
    }
    let names = columns[0];
    // Column start offsets, then groups of the other columns that fit.
    let mut starts = Vec::with_capacity(columns.len());
    let mut at = 0;
    for c in columns {
        starts.push(at);
        at += c;
    }
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut first = 1;
    let mut used = names;
    for (i, &column) in columns.iter().enumerate().skip(1) {
        if used + column > width && i > first {
            groups.push((first, i));
            first = i;
            used = names;
        }
        used += column;
    }
    groups.push((first, columns.len()));
    let cut = |line: &str, from: usize, to: usize| -> String {
        line.chars().skip(from).take(to - from).collect()
    };
    let rows: Vec<&str> = lines[4..]
        .iter()
        .copied()
        .take_while(|l| !l.trim().is_empty())
        .collect();
    let mut out = String::new();
    let _ = writeln!(out, "{}", lines[0]);
    for (n, &(a, b)) in groups.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let (from, to) = (starts[a], starts[b - 1] + columns[b - 1]);
        let group_width = names + to - from;
        let _ = writeln!(out, "{}", "=".repeat(group_width));
        let _ = writeln!(
            out,
            "{}{}",
            cut(lines[2], 0, names),
            cut(lines[2], from, to).trim_end()
        );
        let _ = writeln!(out, "{}", "-".repeat(group_width));
        for row in &rows {
            let _ = writeln!(
                out,
                "{}{}",
                cut(row, 0, names),
                cut(row, from, to).trim_end()
            );
        }
    }
    out.push_str("\n\n");
    out
}

/// Where the latency distribution is, in place of its rows.
pub fn distribution_note(out: &mut String) {
    let _ = writeln!(
        out,
        "Latency distribution: not printed on a terminal; --memtier-layout prints it here, --hdr-file-prefix writes it to files, and a file or pipe gets memtier's layout with it."
    );
}

/// The end of the report on a terminal: the verdict, the headline figures
/// of the last section shown (`last`, its title and section: its Totals
/// row), and the warnings.
pub fn ending(
    out: &mut String,
    input: &ReportInput<'_>,
    last: Option<&(SectionTitle, Section)>,
    width: usize,
) {
    out.push('\n');
    if input.verdict.valid() {
        let _ = writeln!(out, "Verdict: valid.");
    } else {
        let allowed = if input.config.faults.allow_invalid {
            " (--allow-invalid)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "Verdict: NOT VALID{allowed}: these numbers do not measure the workload asked for:"
        );
        for reason in input.verdict.lines() {
            let _ = writeln!(out, "  - {reason}");
        }
    }
    if let Some((title, totals)) = last.and_then(|(t, s)| Some((t, s.row(TOTALS_ROW)?))) {
        headline(out, input, title, totals, width);
    }
    warning_lines(
        out,
        &Shown::of_run(&input.warnings, &input.config.silenced_warnings),
    );
}

/// `Result (ALL STATS)` and the Totals row's rate, mean and as many of the
/// printed percentiles as fit `width`.
fn headline(
    out: &mut String,
    input: &ReportInput<'_>,
    title: &SectionTitle,
    totals: &OpRow,
    width: usize,
) {
    const NAME: usize = 10;
    const CELL: usize = 12;
    let percentiles = &input.config.output.percentiles;
    let fit = width.saturating_sub(NAME + 2 * CELL) / CELL;
    let shown = &percentiles[..percentiles.len().min(fit)];
    let _ = writeln!(out, "Result ({title}):");
    let _ = write!(out, "{:<NAME$}{:>CELL$}{:>CELL$}", "", "Ops/sec", "Avg ms");
    for p in shown {
        let _ = write!(out, "{:>CELL$}", format!("p{} ms", percentile_label(*p)));
    }
    out.push('\n');
    let _ = write!(
        out,
        "{:<NAME$}{:>CELL$.2}{:>CELL$.3}",
        "Totals", totals.ops_per_sec, totals.average_latency_ms
    );
    for &p in shown {
        let v = totals
            .percentiles
            .values_ms
            .get(&percentile_key(p))
            .copied();
        let _ = write!(out, "{:>CELL$.3}", v.unwrap_or(0.0));
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::stack;

    #[test]
    fn a_table_too_wide_is_stacked_into_groups_that_fit() {
        let columns = [4, 6, 6, 6];
        let table = "T\n======================\nType   aaa   bbb   ccc\n----------------------\nSets     1     2     3\nGets     4     5     6\n\n";
        assert_eq!(stack(table, &columns, 22), table, "it fits");
        let stacked = stack(table, &columns, 16);
        assert!(
            stacked.lines().all(|l| l.chars().count() <= 16),
            "{stacked}"
        );
        let expected = "T\n================\nType   aaa   bbb\n----------------\nSets     1     2\nGets     4     5\n\n==========\nType   ccc\n----------\nSets     3\nGets     6\n\n\n";
        assert_eq!(stacked, expected);
    }
}
