//! kvbench's own tables (compare, sweep, merge, the watched components),
//! written by one renderer in three formats: aligned text, Markdown and CSV,
//! each escaping its cells one way ([`Table`]).
//!
//! Text is laid out for a width: one table when it fits, else stacked tables
//! that repeat the key columns (the op and file, the cell, the run) with as
//! many other columns as fit, and a column of prose (a verdict) wrapped
//! inside its cell. Without a width (a file, a pipe, `--wide`) a table is one
//! line per row, as scripts read it. memtier's table is not laid out here: it
//! keeps memtier's layout everywhere.

use std::fmt::Write;

use crate::error::terminal;

/// The narrowest a wrapped prose column is made, even when the key columns
/// leave less: below it a verdict would read one word per line.
const MIN_WRAPPED_COLUMN: usize = 24;

/// The formats a [`Table`] is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned columns; with a width (a terminal), stacked to fit it.
    Text(Option<usize>),
    /// A Markdown table: `|` in a cell escaped, a column of figures
    /// right-aligned (`---:`).
    Markdown,
    /// RFC 4180 CSV: a field holding a comma, a quote or a line break is
    /// quoted, its quotes doubled.
    Csv,
}

/// A table: its header, its rows, which columns hold text (left-aligned;
/// the others hold figures, right-aligned), how many leading columns name a
/// row (repeated when text is stacked), and the text layout's gap and rule.
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    left: Vec<bool>,
    key: usize,
    gap: &'static str,
    rule: bool,
    min: Vec<usize>,
}

impl Table {
    /// A table with `header`; `left(i)` is true for a text column. The
    /// first column names a row; columns are two spaces apart; no rule.
    pub fn new(header: Vec<String>, left: impl Fn(usize) -> bool) -> Table {
        let left = (0..header.len()).map(left).collect();
        Table {
            header,
            rows: Vec::new(),
            left,
            key: 1,
            gap: "  ",
            rule: false,
            min: Vec::new(),
        }
    }

    /// The first `key` columns name a row.
    pub fn key(mut self, key: usize) -> Table {
        self.key = key;
        self
    }

    /// Text columns `gap` apart.
    pub fn gap(mut self, gap: &'static str) -> Table {
        self.gap = gap;
        self
    }

    /// A rule of `-` under the text header.
    pub fn rule(mut self) -> Table {
        self.rule = true;
        self
    }

    /// Each text column at least this wide while the table is one block
    /// (fixed columns that scripts split on whitespace); stacked parts fit
    /// their cells.
    pub fn min_widths(mut self, min: Vec<usize>) -> Table {
        self.min = min;
        self
    }

    /// Adds a row.
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// Adds rows.
    pub fn extend(&mut self, rows: impl IntoIterator<Item = Vec<String>>) {
        self.rows.extend(rows);
    }

    /// True when the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The width of the table as one text block: its widest cells, `gap`
    /// apart.
    pub fn text_width(&self) -> usize {
        let all = self.all_rows();
        let columns: Vec<usize> = (0..self.header.len()).collect();
        line_width(
            &at_least(column_widths(&all, &columns), &self.min),
            self.gap,
        )
    }

    /// Writes the table in `format` to `out`.
    pub fn write(&self, out: &mut String, format: Format) {
        match format {
            Format::Text(width) => {
                let left = |i: usize| self.left.get(i).copied().unwrap_or(true);
                let layout = Layout {
                    left: &left,
                    key: self.key,
                    gap: self.gap,
                    rule: self.rule,
                    min: &self.min,
                };
                render(out, &self.all_rows(), &layout, width);
            }
            Format::Markdown => {
                let line = |cells: &[String]| {
                    let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
                    format!("| {} |", cells.join(" | "))
                };
                let _ = writeln!(out, "{}", line(&self.header));
                let rule: Vec<String> = self
                    .left
                    .iter()
                    .map(|&left| if left { "---" } else { "---:" }.to_string())
                    .collect();
                let _ = writeln!(out, "| {} |", rule.join(" | "));
                for r in &self.rows {
                    let _ = writeln!(out, "{}", line(r));
                }
            }
            Format::Csv => {
                for r in std::iter::once(&self.header).chain(&self.rows) {
                    let _ = writeln!(out, "{}", csv_line(r));
                }
            }
        }
    }

    fn all_rows(&self) -> Vec<Vec<String>> {
        let mut all = Vec::with_capacity(self.rows.len() + 1);
        all.push(self.header.clone());
        all.extend(self.rows.iter().cloned());
        all
    }
}

/// A CSV record: each field quoted when it holds a comma, a quote or a
/// line break.
pub fn csv_line(cells: &[String]) -> String {
    cells
        .iter()
        .map(|c| csv_cell(c))
        .collect::<Vec<_>>()
        .join(",")
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
pub fn csv_cell(cell: &str) -> String {
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_string()
    }
}

/// How a table is laid out: which columns are left-aligned, how many leading
/// columns are its key (repeated in every stacked part), the gap between
/// columns, and whether a rule of `-` follows the header.
struct Layout<'a> {
    /// True for a left-aligned column (text); others align right (numbers).
    left: &'a dyn Fn(usize) -> bool,
    /// The leading columns that name a row.
    key: usize,
    /// What separates two columns.
    gap: &'a str,
    /// A rule of `-` under the header, as wide as the table.
    rule: bool,
    /// The narrowest each column is in one block.
    min: &'a [usize],
}

/// Renders `rows` (the header first) into `out`: as one table when `width`
/// is `None` or the table fits in it, else as stacked tables, each fitting.
fn render(out: &mut String, rows: &[Vec<String>], layout: &Layout<'_>, width: Option<usize>) {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let all: Vec<usize> = (0..columns).collect();
    let widths = at_least(column_widths(rows, &all), layout.min);
    let total = line_width(&widths, layout.gap);
    let Some(width) = width.filter(|&w| total > w) else {
        block(out, rows, &all, layout, layout.min);
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
            block(
                out,
                &wrapped(&rows, group[0], key, room),
                &chosen,
                layout,
                &[],
            );
        } else {
            block(out, &rows, &chosen, layout, &[]);
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

/// `widths`, each raised to its minimum in `min` (a column without one
/// keeps its width).
fn at_least(mut widths: Vec<usize>, min: &[usize]) -> Vec<usize> {
    for (w, m) in widths.iter_mut().zip(min) {
        *w = (*w).max(*m);
    }
    widths
}

/// One table of `columns`, each padded to its widest cell or to its
/// minimum in `min` (indexed as `columns`).
fn block(
    out: &mut String,
    rows: &[Vec<String>],
    columns: &[usize],
    layout: &Layout<'_>,
    min: &[usize],
) {
    let widths = at_least(column_widths(rows, columns), min);
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
    use super::{Format, Table};

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

    fn table() -> Table {
        let rows = rows();
        let mut t = Table::new(rows[0].clone(), |i| i < 2 || i == 4).key(2);
        t.extend(rows[1..].to_vec());
        t
    }

    #[test]
    fn one_table_when_it_fits_or_without_a_width() {
        let (mut wide, mut unbounded) = (String::new(), String::new());
        table().write(&mut wide, Format::Text(Some(200)));
        table().write(&mut unbounded, Format::Text(None));
        assert_eq!(wide, unbounded);
        assert_eq!(wide.lines().count(), 3);
        assert!(wide.lines().next().unwrap().starts_with("op    file    "));
    }

    #[test]
    fn stacks_tables_repeating_the_key_and_wraps_prose_to_fit() {
        let mut out = String::new();
        table().write(&mut out, Format::Text(Some(50)));
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

    #[test]
    fn markdown_and_csv_escape_their_cells_one_way() {
        let mut t = Table::new(vec!["op".into(), "a|b".into(), "x".into()], |i| i == 0);
        t.push(vec!["Sets".into(), "1,5".into(), "say \"hi\"".into()]);
        let (mut md, mut csv) = (String::new(), String::new());
        t.write(&mut md, Format::Markdown);
        t.write(&mut csv, Format::Csv);
        assert_eq!(
            md,
            "| op | a\\|b | x |\n| --- | ---: | ---: |\n| Sets | 1,5 | say \"hi\" |\n"
        );
        assert_eq!(csv, "op,a|b,x\nSets,\"1,5\",\"say \"\"hi\"\"\"\n");
    }

    #[test]
    fn minimum_widths_hold_in_one_block_and_count_in_the_fit() {
        let mut t = Table::new(vec!["a".into(), "b".into()], |i| i == 0)
            .gap(" ")
            .min_widths(vec![4, 6]);
        t.push(vec!["x".into(), "1".into()]);
        let mut out = String::new();
        t.write(&mut out, Format::Text(None));
        assert_eq!(out, "a         b\nx         1\n");
        assert_eq!(t.text_width(), 11);
    }
}
