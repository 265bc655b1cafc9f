//! `kvbench compare A.json B.json …`: reports side by side, per op row, with
//! ratios to the first file — the host-vs-container or persistence-on/off
//! tables of the blog posts in one command.
//!
//! Files are read through the typed report model ([`crate::report::model`],
//! see [`read`]). Each contributes its headline section (the aggregate of
//! several runs, or `ALL STATS`); a sweep file contributes one entry per cell,
//! and a single sweep file alone compares its cells with its first. Rows are
//! the sections' op rows by name (`Sets`, `Gets`, `Totals`, or memtier's
//! `Hsets`), so a file with other commands, or a suite file with a row per
//! test, compares without a change here.
//!
//! Whether a difference is real is judged for throughput and for p50, p99 and
//! p99.9 latency against the run-to-run spread each file carries (its
//! `RUN #n RESULTS` sections, from `-x 2` or more): [`verdict`]. After the
//! tables, a block names the settings that differ between the files and each
//! file's GET hit rate ([`differs`]). Files are labelled by the shortest path
//! suffix that tells them apart ([`labels`]). A result whose own verdict
//! (`kvbench.verdict`) is not valid is named before the tables with its
//! reasons, and every judgement involving it says so ([`invalid`]).
//!
//! Two layouts: `rows` (a row per op and file, [`rows`]) and `columns`, the
//! reference notes' layout: a row per op, a column per file, and a ratio
//! column `1 : 1.20 : 1.19` for throughput and for latency ([`columns`]).

pub mod columns;
pub mod differs;
pub mod invalid;
pub mod labels;
pub mod read;
pub mod rows;
pub mod verdict;

use crate::config::CompareOptions;
pub use crate::config::{CompareFormat as Format, CompareLayout as Layout};
use crate::error::terminal;
use crate::error::{UsageError, note};
use crate::report::model;
use crate::report::model::kvbench;
use crate::report::model::section::Section;
use crate::report::table;
use crate::tools::exit::{self, Exit};

/// The row memtier writes for WAIT, which kvbench never sends: shown only
/// when some file has counts in it, so kvbench files compare as before.
const WAITS: &str = "Waits";
/// The sum of the other rows, shown last.
const TOTALS: &str = "Totals";

/// The percentiles compared.
pub const PERCENTILES: [f64; 3] = [50.0, 99.0, 99.9];

/// One op's numbers from one entry.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct OpRow {
    /// Replies in the section.
    pub count: u64,
    /// Ops/sec.
    pub ops_per_sec: f64,
    /// Average latency, ms.
    pub avg_ms: f64,
    /// p50, p99, p99.9 latency, ms: the printed percentile, or else the
    /// row's histogram's.
    pub percentiles_ms: [Option<f64>; 3],
    /// Run-to-run max/min of ops/sec, p50, p99 and p99.9 (in
    /// [`verdict::Judged::ALL`]'s order) over the file's runs; `None` with
    /// fewer than two runs.
    pub spread: [Option<f64>; 4],
    /// Half the width of the 95 % interval (batch means) of each of the
    /// same figures, in its unit, from a file of a single measured run;
    /// `None` otherwise, and where the run had none.
    pub half_width: [Option<f64>; 4],
}

impl OpRow {
    /// The figures of one model row, without a spread.
    pub fn of(row: &model::section::OpRow) -> OpRow {
        OpRow {
            count: row.count,
            ops_per_sec: row.ops_per_sec,
            avg_ms: row.mean_ms(),
            percentiles_ms: PERCENTILES.map(|p| read::percentile_ms(row, p)),
            spread: [None; 4],
            half_width: [None; 4],
        }
    }
}

/// One compared result.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entry {
    /// File label (and cell, for sweeps).
    pub label: String,
    /// The headline section's op rows, by name, in the file's order.
    pub rows: Vec<(String, OpRow)>,
    /// Effective settings (`kvbench.config` and `kvbench.server`) as
    /// `key → shown value`, for the differences block.
    pub settings: Vec<(String, String)>,
    /// `kvbench.hit_rate_percent`.
    pub hit_rate_percent: Option<f64>,
    /// `kvbench.verdict`: a report's, a sweep cell's own, a suite's (every
    /// test's reasons). `None` for a file without one (memtier's, or
    /// written before the verdict): not known, never taken as invalid.
    pub verdict: Option<kvbench::Verdict>,
    /// The rows that are not valid measurements: every row of a result
    /// whose verdict is not valid; for a suite, the tests whose own verdict
    /// is not valid.
    pub invalid_rows: Vec<String>,
    /// The machines behind the figures: one, or a merged set's.
    pub fleet: Option<Fleet>,
}

/// How many machines, threads and connections made a file's load: the
/// whitepaper's tables compare sets of 1–8 machines side by side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fleet {
    /// Client machines (`kvbench.shards` of a merged file; else 1).
    pub machines: u64,
    /// `-t` per machine.
    pub threads: u64,
    /// `-c` per thread.
    pub clients: u64,
    /// The headline Totals ops/sec over the machines.
    pub ops_per_machine: f64,
    /// Server shards: a cluster's masters, a merged set's standalone
    /// servers, else 1.
    pub servers: u64,
    /// The headline Totals ops/sec over the server shards.
    pub ops_per_server: f64,
}

impl Entry {
    /// An entry with a row per test of a suite, named by the test (`SET`,
    /// `LRANGE_100`): each test's section contributes its `Totals`, so the
    /// notes' tables come out with a row per test and a column per file.
    pub fn per_test<'a>(
        label: String,
        tests: impl IntoIterator<Item = (&'a str, &'a Section)>,
    ) -> Entry {
        let rows = tests
            .into_iter()
            .filter_map(|(test, section)| {
                section
                    .row(TOTALS)
                    .map(|r| (test.to_string(), OpRow::of(r)))
            })
            .collect();
        Entry {
            label,
            rows,
            ..Entry::default()
        }
    }

    /// The row named `name`, if this entry has it.
    pub fn row(&self, name: &str) -> Option<&OpRow> {
        self.rows.iter().find(|(n, _)| n == name).map(|(_, r)| r)
    }

    /// True when row `name` is not a valid measurement ([`Entry::invalid_rows`]).
    pub fn row_invalid(&self, name: &str) -> bool {
        self.invalid_rows.iter().any(|r| r == name)
    }

    /// The shown value of setting `key`.
    pub fn setting(&self, key: &str) -> Option<&str> {
        self.settings
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// What `kvbench compare` prints.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The tables, for stdout.
    pub output: String,
    /// A line per reason of each compared result that is not valid
    /// (`b.json: RUN #1: message`), for stderr.
    pub invalid: Vec<String>,
}

/// `kvbench compare`: the tables on stdout. Comparing is reading: a
/// compared file that is not valid is said, and the comparison itself still
/// succeeded (exit 0); a file that cannot be compared is a usage error.
pub fn command(args: &crate::cli::CompareArgs) -> Exit {
    match run(&CompareOptions::from_args(args)) {
        Ok(comparison) => {
            exit::print(&comparison.output);
            for line in &comparison.invalid {
                note(format_args!("kvbench: invalid: {line}"));
            }
            Exit::Success
        }
        Err(e) => Exit::usage(e),
    }
}

/// Reads the files and renders the comparison.
pub fn run(options: &CompareOptions) -> Result<Comparison, UsageError> {
    let names = labels::distinct(&options.files);
    let alone = options.files.len() == 1;
    let mut entries = Vec::new();
    for (path, name) in options.files.iter().zip(names) {
        entries.extend(read::entries(path, &name, alone)?);
    }
    if entries.len() < 2 {
        return Err(UsageError::new(
            "FILE",
            "needs two results to compare: give two files or more, or one sweep file with two cells or more",
        ));
    }
    // CSV stays one table for spreadsheets: a result that is not valid is
    // said on stderr only; text and Markdown say it before the tables.
    let mut out = if options.format == Format::Csv {
        String::new()
    } else {
        invalid::notice(&entries, options.format)
    };
    // Only the text fits a terminal: Markdown and CSV are read by programs.
    let width = options.width.filter(|_| options.format == Format::Text);
    out.push_str(&match options.layout {
        Layout::Rows => rows::render(&entries, options.format, width),
        Layout::Columns => columns::render(&entries, options.format, width),
    });
    // The settings block is for people, not spreadsheets.
    if options.format != Format::Csv {
        out.push('\n');
        out.push_str(&differs::render(&entries, options.format, width));
    }
    Ok(Comparison {
        output: terminal::fit_prose(&out, width),
        invalid: invalid::lines(&entries),
    })
}

/// The rows to show, in the order they first appear, `Totals` last; `Waits`
/// only when some entry counted WAITs.
pub fn row_names(entries: &[Entry]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for e in entries {
        for (name, row) in &e.rows {
            let shown = name != TOTALS && (name != WAITS || row.count > 0);
            if shown && !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    if entries.iter().any(|e| e.row(TOTALS).is_some()) {
        names.push(TOTALS);
    }
    names
}

/// `value / base`, when there is a base to divide by.
fn ratio(value: f64, base: f64) -> Option<f64> {
    (base > 0.0).then(|| value / base)
}

/// The table format of `format`; text stacked to `width` (a terminal).
fn table_format(format: Format, width: Option<usize>) -> table::Format {
    match format {
        Format::Text => table::Format::Text(width),
        Format::Markdown => table::Format::Markdown,
        Format::Csv => table::Format::Csv,
    }
}

#[cfg(test)]
mod invalid_tests;
#[cfg(test)]
mod tests;
