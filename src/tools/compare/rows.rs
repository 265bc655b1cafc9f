//! `--layout rows`: a line per op row and file with every figure, its ratio
//! to the first file, and the verdict ([`crate::tools::compare::verdict`]), marked
//! when a side is not valid ([`crate::tools::compare::invalid`]).

use crate::report::table::Table;
use crate::tools::compare::invalid;
use crate::tools::compare::verdict::{self, Verdict};
use crate::tools::compare::{Entry, Format, OpRow, PERCENTILES, ratio, row_names, table_format};

/// A figure with `places` decimals, `-` when absent.
fn num(v: Option<f64>, places: usize) -> String {
    v.map_or("-".to_string(), |v| format!("{v:.places$}"))
}

/// The ratio of two optional figures.
fn ratio_of(value: Option<f64>, base: Option<f64>) -> Option<f64> {
    value.zip(base).and_then(|(v, b)| ratio(v, b))
}

/// One line of the layout.
struct Line {
    /// op, file, then each figure and its ratio, as text cells.
    cells: Vec<String>,
    /// The file's GET hit rate (CSV only).
    hit_rate: Option<f64>,
    /// The judgement against the baseline, marked when a side is not valid.
    verdict: String,
}

/// Every line of the comparison, op by op, file by file.
fn lines(entries: &[Entry]) -> Vec<Line> {
    let Some(first) = entries.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for op in row_names(entries) {
        let base = first.row(op);
        for (i, e) in entries.iter().enumerate() {
            let row = e.row(op);
            let figure = |pick: fn(&OpRow) -> f64| (row.map(pick), base.map(pick));
            let mut cells = vec![op.to_string(), e.label.clone()];
            let (ops, base_ops) = figure(|r| r.ops_per_sec);
            cells.push(num(ops, 2));
            cells.push(num(ratio_of(ops, base_ops), 3));
            let (avg, base_avg) = figure(|r| r.avg_ms);
            cells.push(num(avg, 3));
            cells.push(num(ratio_of(avg, base_avg), 3));
            for p in 0..PERCENTILES.len() {
                let value = row.and_then(|r| r.percentiles_ms[p]);
                cells.push(num(value, 3));
                let base_value = base.and_then(|r| r.percentiles_ms[p]);
                cells.push(num(ratio_of(value, base_value), 3));
            }
            let (verdict, involved) = if i == 0 {
                (Verdict::Baseline, vec![first])
            } else {
                (verdict::judge(base, row), vec![first, e])
            };
            let verdict = invalid::shown(&verdict, &invalid::not_valid(&involved, op));
            out.push(Line {
                cells,
                hit_rate: e.hit_rate_percent,
                verdict,
            });
        }
    }
    out
}

const HEADER: [&str; 13] = [
    "op",
    "file",
    "ops/sec",
    "ratio",
    "avg ms",
    "ratio",
    "p50 ms",
    "ratio",
    "p99 ms",
    "ratio",
    "p99.9 ms",
    "ratio",
    "vs baseline",
];

/// The CSV's header: the text's columns, and the hit rate before the verdict.
pub const CSV_HEADER: &str = "op,file,ops_per_sec,ops_ratio,avg_ms,avg_ratio,p50_ms,p50_ratio,p99_ms,p99_ratio,p999_ms,p999_ratio,hit_rate_percent,verdict";

/// Renders the layout in the chosen format.
/// With a `width` (a terminal), the text is stacked to fit it.
pub fn render(entries: &[Entry], format: Format, width: Option<usize>) -> String {
    let lines = lines(entries);
    let mut out = String::new();
    let last = HEADER.len() - 1;
    let table = match format {
        Format::Csv => {
            let mut t = Table::new(CSV_HEADER.split(',').map(String::from).collect(), |_| true);
            t.extend(lines.into_iter().map(|l| {
                let mut cells = l.cells;
                cells.push(num(l.hit_rate, 2));
                cells.push(l.verdict);
                cells
            }));
            t
        }
        Format::Markdown | Format::Text => {
            let mut t =
                Table::new(HEADER.map(String::from).to_vec(), |i| i < 2 || i == last).key(2);
            t.extend(lines.into_iter().map(|l| {
                let mut cells = l.cells;
                cells.push(l.verdict);
                cells
            }));
            t
        }
    };
    table.write(&mut out, table_format(format, width));
    out
}
