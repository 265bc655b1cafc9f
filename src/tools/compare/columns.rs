//! The reference notes' layout of a comparison: a row per op (later per
//! suite test), a column per file, and a ratio column `1 : 1.20 : 1.19` that
//! divides every file's figure by the first file's, for throughput, average
//! latency and p99 latency — one table each.
//!
//! The first file is always the `1`, for throughput as for latency, so a
//! ratio above 1 reads "more than the baseline" in every table (the notes'
//! own QPS tables sometimes put the 1 last; one rule is easier to read).

use crate::report::table::Table;
use crate::tools::compare::invalid;
use crate::tools::compare::verdict::{Verdict, judge};
use crate::tools::compare::{Entry, Format, OpRow, row_names, table_format};

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
    let files = || entries.iter().map(|e| e.label.clone());
    if format == Format::Csv {
        // One CSV: a record per metric and op, then each file's GET hit
        // rate, then the verdicts (their ratio field empty).
        let mut header = vec!["metric".to_string(), "op".to_string()];
        header.extend(files());
        header.push("ratio".into());
        let mut csv = Table::new(header, |_| true);
        for metric in Metric::ALL {
            csv.extend(table(entries, metric).1.into_iter().map(|row| {
                let mut cells = vec![metric.csv_name().to_string()];
                cells.extend(row);
                cells
            }));
        }
        if entries.iter().any(|e| e.hit_rate_percent.is_some()) {
            let values: Vec<Option<f64>> = entries.iter().map(|e| e.hit_rate_percent).collect();
            let mut cells = vec!["hit_rate_percent".to_string(), "Gets".to_string()];
            cells.extend(
                values
                    .iter()
                    .map(|v| v.map_or("-".to_string(), |v| format!("{v:.2}"))),
            );
            cells.push(ratio_cell(&values));
            csv.push(cells);
        }
        csv.extend(verdicts(entries).into_iter().map(|mut row| {
            row.insert(0, "verdict".to_string());
            row.push(String::new());
            row
        }));
        csv.write(&mut out, table_format(format, width));
        return out;
    }
    for (i, metric) in Metric::ALL.into_iter().enumerate() {
        if i > 0 {
            // Markdown needs the blank line to end one table before the next.
            out.push('\n');
        }
        let (header, rows) = table(entries, metric);
        // Figures right-aligned, as in the notes; the op and the ratio left.
        let last = header.len() - 1;
        let mut t = Table::new(header, |i| i == 0 || i == last);
        t.extend(rows);
        t.write(&mut out, table_format(format, width));
    }
    // The verdicts, judged as `--layout rows` judges them (docs/compare.md).
    let mut header = vec!["vs baseline".to_string()];
    header.extend(files());
    let mut t = Table::new(header, |_| true);
    t.extend(verdicts(entries));
    out.push('\n');
    t.write(&mut out, table_format(format, width));
    out
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
