//! The reference notes' layout of a comparison: a row per op (later per
//! suite test), a column per file, and a ratio column `1 : 1.20 : 1.19` that
//! divides every file's figure by the first file's, for throughput, average
//! latency and p99 latency — one table each.
//!
//! The first file is always the `1`, for throughput as for latency, so a
//! ratio above 1 reads "more than the baseline" in every table (the notes'
//! own QPS tables sometimes put the 1 last; one rule is easier to read).

use std::fmt::Write;

use crate::tools::compare::invalid;
use crate::tools::compare::verdict::{Verdict, judge};
use crate::tools::compare::{Entry, Format, OpRow, aligned, csv_cell, row_names};

/// One table of the layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Ops/sec.
    Throughput,
    /// Average latency, ms.
    AverageLatency,
    /// p99 latency, ms.
    P99Latency,
}

impl Metric {
    /// Every table, in the order printed.
    pub const ALL: [Metric; 3] = [
        Metric::Throughput,
        Metric::AverageLatency,
        Metric::P99Latency,
    ];

    /// The table's first header cell.
    fn title(self) -> &'static str {
        match self {
            Metric::Throughput => "ops/sec",
            Metric::AverageLatency => "avg ms",
            Metric::P99Latency => "p99 ms",
        }
    }

    /// The CSV's `metric` column.
    fn csv_name(self) -> &'static str {
        match self {
            Metric::Throughput => "ops_per_sec",
            Metric::AverageLatency => "avg_ms",
            Metric::P99Latency => "p99_ms",
        }
    }

    fn decimals(self) -> usize {
        match self {
            Metric::Throughput => 2,
            Metric::AverageLatency | Metric::P99Latency => 3,
        }
    }

    fn of(self, row: &OpRow) -> Option<f64> {
        match self {
            Metric::Throughput => Some(row.ops_per_sec),
            Metric::AverageLatency => Some(row.avg_ms),
            // The second of the compared percentiles (50, 99, 99.9).
            Metric::P99Latency => row.percentiles_ms[1],
        }
    }
}

/// The ratio column: `1` for the first figure, every other one divided by it
/// with two decimals, `-` where a file lacks the figure; `n/a` when the first
/// file has none (or zero) to divide by.
pub fn ratio_cell(values: &[Option<f64>]) -> String {
    let Some(base) = values.first().copied().flatten().filter(|b| *b > 0.0) else {
        return "n/a".into();
    };
    let mut parts = vec!["1".to_string()];
    parts.extend(
        values[1..]
            .iter()
            .map(|v| v.map_or("-".to_string(), |v| format!("{:.2}", v / base))),
    );
    parts.join(" : ")
}

/// One table: the header cells, then a row of cells per op.
fn table(entries: &[Entry], metric: Metric) -> (Vec<String>, Vec<Vec<String>>) {
    let mut header = vec![metric.title().to_string()];
    header.extend(entries.iter().map(|e| e.label.clone()));
    header.push("ratio".into());
    let places = metric.decimals();
    let rows = row_names(entries)
        .into_iter()
        .map(|op| {
            let values: Vec<Option<f64>> = entries
                .iter()
                .map(|e| e.row(op).and_then(|r| metric.of(r)))
                .collect();
            let mut cells = vec![op.to_string()];
            cells.extend(
                values
                    .iter()
                    .map(|v| v.map_or("-".to_string(), |v| format!("{v:.places$}"))),
            );
            cells.push(ratio_cell(&values));
            cells
        })
        .collect();
    (header, rows)
}

/// Each op's verdict per file against the first (`baseline` for the first):
/// what `--layout rows` says in its last column, marked as it marks it, as
/// a row per op.
fn verdicts(entries: &[Entry]) -> Vec<Vec<String>> {
    row_names(entries)
        .into_iter()
        .map(|op| {
            let base = entries.first().and_then(|e| e.row(op));
            let mut cells = vec![op.to_string()];
            cells.extend(entries.iter().enumerate().map(|(i, e)| {
                let (verdict, involved) = match entries.first() {
                    Some(first) if i > 0 => (judge(base, e.row(op)), vec![first, e]),
                    _ => (Verdict::Baseline, vec![e]),
                };
                invalid::shown(&verdict, &invalid::not_valid(&involved, op))
            }));
            cells
        })
        .collect()
}

/// Renders every table in the chosen format.
/// With a `width` (a terminal), the text is stacked to fit it.
pub fn render(entries: &[Entry], format: Format, width: Option<usize>) -> String {
    let mut out = String::new();
    if format == Format::Csv {
        let mut header = vec!["metric".to_string(), "op".to_string()];
        header.extend(entries.iter().map(|e| e.label.clone()));
        header.push("ratio".into());
        let _ = writeln!(out, "{}", csv_line(&header));
        for metric in Metric::ALL {
            for row in table(entries, metric).1 {
                let mut cells = vec![metric.csv_name().to_string()];
                cells.extend(row);
                let _ = writeln!(out, "{}", csv_line(&cells));
            }
        }
        // The CSV has no block after it: each file's GET hit rate is a row.
        if entries.iter().any(|e| e.hit_rate_percent.is_some()) {
            let values: Vec<Option<f64>> = entries.iter().map(|e| e.hit_rate_percent).collect();
            let mut cells = vec!["hit_rate_percent".to_string(), "Gets".to_string()];
            cells.extend(
                values
                    .iter()
                    .map(|v| v.map_or("-".to_string(), |v| format!("{v:.2}"))),
            );
            cells.push(ratio_cell(&values));
            let _ = writeln!(out, "{}", csv_line(&cells));
        }
        // The verdicts last, the ratio field empty: every line has the header's fields.
        for mut row in verdicts(entries) {
            row.insert(0, "verdict".to_string());
            row.push(String::new());
            let _ = writeln!(out, "{}", csv_line(&row));
        }
        return out;
    }
    for (i, metric) in Metric::ALL.into_iter().enumerate() {
        if i > 0 {
            // Markdown needs the blank line to end one table before the next.
            out.push('\n');
        }
        let (header, rows) = table(entries, metric);
        match format {
            Format::Markdown => markdown(&mut out, &header, &rows),
            _ => text(&mut out, &header, &rows, width),
        }
    }
    // The verdicts, judged as `--layout rows` judges them (docs/compare.md).
    let mut header = vec!["vs baseline".to_string()];
    header.extend(entries.iter().map(|e| e.label.clone()));
    let rows = verdicts(entries);
    out.push('\n');
    match format {
        Format::Markdown => {
            let line = |cells: &[String]| {
                let escaped: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
                escaped.join(" | ")
            };
            let _ = writeln!(out, "| {} |", line(&header));
            let _ = writeln!(out, "|{}", " --- |".repeat(header.len()));
            for r in &rows {
                let _ = writeln!(out, "| {} |", line(r));
            }
        }
        _ => {
            let mut all = vec![header];
            all.extend(rows);
            aligned(&mut out, &all, |_| true, 1, width);
        }
    }
    out
}

fn csv_line(cells: &[String]) -> String {
    cells
        .iter()
        .map(|c| csv_cell(c))
        .collect::<Vec<_>>()
        .join(",")
}

fn markdown(out: &mut String, header: &[String], rows: &[Vec<String>]) {
    let cell = |c: &String| c.replace('|', "\\|");
    let line = |cells: &[String]| cells.iter().map(cell).collect::<Vec<_>>().join(" | ");
    let _ = writeln!(out, "| {} |", line(header));
    // Figures right-aligned, as in the notes; the op and the ratio left.
    let mut align = vec!["---"];
    align.extend(std::iter::repeat_n("---:", header.len() - 2));
    align.push("---");
    let _ = writeln!(out, "| {} |", align.join(" | "));
    for r in rows {
        let _ = writeln!(out, "| {} |", line(r));
    }
}

fn text(out: &mut String, header: &[String], rows: &[Vec<String>], width: Option<usize>) {
    let last = header.len() - 1;
    let mut all = vec![header.to_vec()];
    all.extend(rows.iter().cloned());
    aligned(out, &all, |i| i == 0 || i == last, 1, width);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ratio_column_divides_by_the_first_file() {
        // The notes' SET latency row: 1.269, 1.522, 1.509, 17.893.
        let values = [Some(1.269), Some(1.522), Some(1.509), Some(17.893)];
        assert_eq!(ratio_cell(&values), "1 : 1.20 : 1.19 : 14.10");
        assert_eq!(ratio_cell(&[Some(2.0), None, Some(1.0)]), "1 : - : 0.50");
        assert_eq!(ratio_cell(&[Some(0.0), Some(1.0)]), "n/a");
        assert_eq!(ratio_cell(&[None, Some(1.0)]), "n/a");
    }
}
