//! kvbench's own text tables (compare, sweep, merge) laid out for a width:
//! one table when it fits, else stacked tables that repeat the key columns
//! (the op and file, the cell, the run) with as many other columns as fit, and
//! a column of prose (a verdict) wrapped inside its cell.
//!
//! Without a width (a file, a pipe, `--wide`) a table is one line per row, as
//! scripts read it. memtier's table is not laid out here: it keeps memtier's
//! layout everywhere.

use std::fmt::Write;

use crate::error::terminal;

/// The narrowest a wrapped prose column is made, even when the key columns
/// leave less: below it a verdict would read one word per line.
const MIN_WRAPPED_COLUMN: usize = 24;

/// How a table is laid out: which columns are left-aligned, how many leading
/// columns are its key (repeated in every stacked part), the gap between
/// columns, and whether a rule of `-` follows the header.
pub struct Layout<'a> {
    /// True for a left-aligned column (text); others align right (numbers).
    pub left: &'a dyn Fn(usize) -> bool,
    /// The leading columns that name a row.
    pub key: usize,
    /// What separates two columns.
    pub gap: &'a str,
    /// A rule of `-` under the header, as wide as the table.
    pub rule: bool,
}

/// Renders `rows` (the header first) into `out`: as one table when `width`
/// is `None` or the table fits in it, else as stacked tables, each fitting.
pub fn render(out: &mut String, rows: &[Vec<String>], layout: &Layout<'_>, width: Option<usize>) {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let all: Vec<usize> = (0..columns).collect();
    let widths = column_widths(rows, &all);
    let total = line_width(&widths, layout.gap);
    let Some(width) = width.filter(|&w| total > w) else {
        block(out, rows, &all, layout);
        return;
    };
    // Trimmed: a cell padded for the wide layout would waste the narrow one.
    // A left-aligned cell keeps its leading spaces (an indented sub-row).
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .enumerate()
                .map(|(i, c)| {
                    let c = if (layout.left)(i) {
                        c.trim_end()
                    } else {
                        c.trim()
                    };
                    c.to_string()
                })
                .collect()
        })
        .collect();
    let key = layout.key.min(columns);
    let key_columns: Vec<usize> = (0..key).collect();
    let key_width = line_width(&column_widths(&rows, &key_columns), layout.gap);
    let gap = layout.gap.chars().count();
    let widths = column_widths(&rows, &all);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut used = key_width;
    for (c, &column_width) in widths.iter().enumerate().skip(key) {
        let w = column_width + if used > 0 { gap } else { 0 };
        match groups.last_mut() {
            Some(group) if used + w <= width => {
                group.push(c);
                used += w;
            }
            _ => {
                groups.push(vec![c]);
                used = key_width + column_width + if key_width > 0 { gap } else { 0 };
            }
        }
    }
    for (i, group) in groups.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut chosen = key_columns.clone();
        chosen.extend(group);
        let fits = key_width + gap + line_width(&column_widths(&rows, group), layout.gap);
        if group.len() == 1 && fits > width {
            let room = width
                .saturating_sub(key_width + gap)
                .max(MIN_WRAPPED_COLUMN);
            block(out, &wrapped(&rows, group[0], key, room), &chosen, layout);
        } else {
            block(out, &rows, &chosen, layout);
        }
    }
}

/// The rows with column `c`'s cells wrapped to `room`: each continuation
/// line a row of its own, its key cells empty.
fn wrapped(rows: &[Vec<String>], c: usize, key: usize, room: usize) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for r in rows {
        let cell = r.get(c).map_or("", String::as_str);
        let text = terminal::wrap(cell, room);
        for (n, piece) in text.split('\n').enumerate() {
            let mut row: Vec<String> = r.clone();
            if n > 0 {
                row.iter_mut().take(key).for_each(String::clear);
            }
            if let Some(slot) = row.get_mut(c) {
                *slot = piece.to_string();
            }
            out.push(row);
        }
    }
    out
}

/// The widest cell of each of `columns`, in characters.
fn column_widths(rows: &[Vec<String>], columns: &[usize]) -> Vec<usize> {
    columns
        .iter()
        .map(|&c| {
            rows.iter()
                .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// The width of a line with these column widths and gaps between them.
fn line_width(widths: &[usize], gap: &str) -> usize {
    widths.iter().sum::<usize>() + gap.chars().count() * widths.len().saturating_sub(1)
}

/// One table of `columns`, each padded to its widest cell.
fn block(out: &mut String, rows: &[Vec<String>], columns: &[usize], layout: &Layout<'_>) {
    let widths = column_widths(rows, columns);
    for (n, r) in rows.iter().enumerate() {
        let padded: Vec<String> = columns
            .iter()
            .zip(&widths)
            .map(|(&c, &w)| {
                let cell = r.get(c).map_or("", String::as_str);
                let pad = " ".repeat(w.saturating_sub(cell.chars().count()));
                if (layout.left)(c) {
                    format!("{cell}{pad}")
                } else {
                    format!("{pad}{cell}")
                }
            })
            .collect();
        let _ = writeln!(out, "{}", padded.join(layout.gap).trim_end());
        if n == 0 && layout.rule {
            let _ = writeln!(out, "{}", "-".repeat(line_width(&widths, layout.gap)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Layout, render};

    fn rows() -> Vec<Vec<String>> {
        let row = |cells: &[&str]| cells.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        vec![
            row(&["op", "file", "ops/sec", "p99 ms", "vs baseline"]),
            row(&["Sets", "a.json", "792.00", "4.755", "baseline"]),
            row(&[
                "Sets",
                "b.json",
                "497.00",
                "5.087",
                "no spread measured: run with -x 3 to judge (ops/sec -37.2 %)",
            ]),
        ]
    }

    fn layout(left: &dyn Fn(usize) -> bool) -> Layout<'_> {
        Layout {
            left,
            key: 2,
            gap: "  ",
            rule: false,
        }
    }

    #[test]
    fn one_table_when_it_fits_or_without_a_width() {
        let left = |i: usize| i < 2 || i == 4;
        let (mut wide, mut unbounded) = (String::new(), String::new());
        render(&mut wide, &rows(), &layout(&left), Some(200));
        render(&mut unbounded, &rows(), &layout(&left), None);
        assert_eq!(wide, unbounded);
        assert_eq!(wide.lines().count(), 3);
        assert!(wide.lines().next().unwrap().starts_with("op    file    "));
    }

    #[test]
    fn stacks_tables_repeating_the_key_and_wraps_prose_to_fit() {
        let left = |i: usize| i < 2 || i == 4;
        let mut out = String::new();
        render(&mut out, &rows(), &layout(&left), Some(50));
        assert!(out.lines().all(|l| l.chars().count() <= 50), "{out}");
        // The figures in one table, the verdict in a second, both keyed.
        let headers: Vec<&str> = out.lines().filter(|l| l.starts_with("op ")).collect();
        assert_eq!(headers.len(), 2, "{out}");
        assert!(headers[0].contains("p99 ms") && !headers[0].contains("vs baseline"));
        assert!(headers[1].contains("vs baseline"));
        // Every word of the verdict is still there, in order.
        let verdict: Vec<&str> = out
            .split("vs baseline")
            .nth(1)
            .unwrap()
            .split_whitespace()
            .filter(|w| !["Sets", "a.json", "b.json", "baseline"].contains(w))
            .collect();
        assert_eq!(
            verdict.join(" "),
            "no spread measured: run with -x 3 to judge (ops/sec -37.2 %)"
        );
    }
}
