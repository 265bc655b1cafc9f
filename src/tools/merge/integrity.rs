//! Each file checked against itself before anything of it is merged: the
//! identities kvbench's writer keeps (docs/output.md, docs/latency.md) must
//! hold in it, or the file was edited or damaged and its sums would carry
//! the damage into the merge unseen.
//!
//! For every run, in the run's section and in `kvbench.runs[i]`:
//! - each row's `Count` is the number of samples of its own `Compressed
//!   Histogram` and the sum of its `Time-Serie` seconds' `Count`, and each
//!   printed percentile is its histogram's (to the printed 3 decimals);
//! - each op row's `Count` is its command's `totals.count`, its command's
//!   `histograms` entry is the row's histogram (each second's histogram,
//!   in the run's interval log, is checked as it is read:
//!   [`crate::tools::merge::hlog`]);
//! - `Totals` counts the other rows;
//! - with `--rate`, `open_loop`'s blocks hold their `Count`s, service and
//!   response time count the row's replies, and `never_sent_wait` the
//!   requests never sent (they are kept apart from the replies, so the
//!   identities above hold with them too).
//!
//! And `kvbench.totals` is the sum of the runs' totals.

use hdrhistogram::Histogram;

use crate::engine::stats::percentile_us;
use crate::error::UsageError;
use crate::report::json::ms;
use crate::report::model::histogram::{CompressedHistogram, HistogramError};
use crate::report::model::kvbench::{LatencyBlock, OpenLoop, PhaseSummary};
use crate::report::model::named::Named;
use crate::report::model::section::{OpRow, Section};
use crate::report::model::section::{TOTALS_ROW, WAITS_ROW};
use crate::tools::merge::check::ShardFile;
use crate::tools::merge::run::section_of;

/// A printed latency is rounded to the µs (3 decimals of a ms): a larger
/// difference from its histogram's is not rounding.
const PRINTED_MS_TOLERANCE: f64 = 0.0005 + 1e-9;

/// Where in the file a check is: the file and the run.
struct At<'a> {
    file: &'a str,
    /// `RUN #1`.
    phase: &'a str,
    /// The run's index in `kvbench.runs`.
    index: usize,
}

impl At<'_> {
    /// A number the file's own data contradicts.
    fn mismatch(&self, what: String) -> UsageError {
        UsageError::new(
            self.file,
            format!("{what}: the file was edited or is damaged"),
        )
    }

    fn decode(&self, what: &str, h: &CompressedHistogram) -> Result<Histogram<u64>, UsageError> {
        h.decode().map_err(|e: HistogramError| {
            UsageError::new(self.file, format!("{} {what}: {e}", self.phase))
        })
    }

    /// `kvbench.runs[0].`
    fn run_field(&self) -> String {
        format!("kvbench.runs[{}]", self.index)
    }
}

/// Checks every identity of `f`; the first that fails refuses the file,
/// naming the field and both numbers.
pub fn verify(f: &ShardFile) -> Result<(), UsageError> {
    for (index, run) in f.kvbench.runs.iter().enumerate() {
        let at = At {
            file: &f.path,
            phase: &run.phase,
            index,
        };
        let section = section_of(f, index)
            .ok_or_else(|| UsageError::new(&f.path, format!("no section for {}", run.phase)))?;
        verify_run(&at, section, run)?;
    }
    verify_file_totals(f)
}

fn verify_run(at: &At<'_>, section: &Section, run: &PhaseSummary) -> Result<(), UsageError> {
    let mut others = 0u64;
    for (key, row) in section.rows.iter() {
        verify_row(at, key, row)?;
        if key != TOTALS_ROW {
            others += row.count;
        }
    }
    if let Some(totals) = section.row(TOTALS_ROW).filter(|t| t.count != others) {
        return Err(at.mismatch(format!(
            "{} Totals Count {} but its op rows add up to {others}",
            at.phase, totals.count
        )));
    }
    let op_rows: Vec<(&str, &OpRow)> = section
        .rows
        .iter()
        .filter(|(k, _)| *k != WAITS_ROW && *k != TOTALS_ROW)
        .collect();
    if op_rows.len() != run.totals.0.len() {
        return Err(UsageError::new(
            at.file,
            format!(
                "the op rows of {} do not match {}.totals; the file was edited",
                at.phase,
                at.run_field()
            ),
        ));
    }
    for ((key, row), (command, _)) in op_rows.into_iter().zip(run.totals.iter()) {
        verify_command(at, key, row, command, run)?;
    }
    if let Some(o) = &run.open_loop {
        verify_open_loop(at, section, o)?;
    }
    Ok(())
}

/// A row against its own histogram and seconds.
fn verify_row(at: &At<'_>, key: &str, row: &OpRow) -> Result<(), UsageError> {
    let Some(log) = &row.percentiles.histogram else {
        return Err(UsageError::new(
            at.file,
            format!(
                "{} {key} has no Compressed Histogram; merge the file kvbench wrote",
                at.phase
            ),
        ));
    };
    let h = at.decode(key, &log.compressed)?;
    if h.len() != row.count {
        return Err(at.mismatch(format!(
            "{} {key} Count {} but its histogram holds {} samples",
            at.phase,
            row.count,
            h.len()
        )));
    }
    let seconds: u64 = row.time_serie.iter().map(|(_, s)| s.count).sum();
    if seconds != row.count {
        return Err(at.mismatch(format!(
            "{} {key} Count {} but its Time-Serie seconds add up to {seconds}",
            at.phase, row.count
        )));
    }
    for (name, printed) in row.percentiles.values_ms.iter() {
        let Some(p) = name.strip_prefix('p').and_then(|p| p.parse::<f64>().ok()) else {
            continue;
        };
        let own = ms(percentile_us(&h, p) as f64);
        if (printed - own).abs() > PRINTED_MS_TOLERANCE {
            return Err(at.mismatch(format!(
                "{} {key} {name} is {printed} ms but its histogram gives {own} ms",
                at.phase
            )));
        }
    }
    Ok(())
}

/// An op row against its command's entries in `kvbench.runs[i]`.
fn verify_command(
    at: &At<'_>,
    key: &str,
    row: &OpRow,
    command: &str,
    run: &PhaseSummary,
) -> Result<(), UsageError> {
    let field = at.run_field();
    let count = row.count;
    if let Some(t) = run.totals.get(command).filter(|t| t.count != count) {
        return Err(at.mismatch(format!(
            "{} {key} Count {count} but {field}.totals.{command}.count is {}",
            at.phase, t.count
        )));
    }
    if let Some(whole) = run.histograms.as_ref().and_then(|h| h.get(command)) {
        let h = at.decode(command, whole)?;
        if h.len() != count {
            return Err(at.mismatch(format!(
                "{} {key} Count {count} but {field}.histograms.{command} holds {} samples",
                at.phase,
                h.len()
            )));
        }
        // The writer encodes one histogram twice, so the texts are equal;
        // another text must still decode to the same counts (a histogram of
        // another row with the same number of samples would not).
        let own = row.percentiles.histogram.as_ref().map(|l| &l.compressed);
        if let Some(own) = own.filter(|own| *own != whole) {
            if at.decode(key, own)? != h {
                return Err(at.mismatch(format!(
                    "{field}.histograms.{command} is not the histogram of {} {key}",
                    at.phase
                )));
            }
        }
    }
    Ok(())
}

fn verify_block(at: &At<'_>, field: &str, b: &LatencyBlock) -> Result<(), UsageError> {
    let held = at.decode(field, &b.compressed)?.len();
    if held != b.count {
        return Err(at.mismatch(format!(
            "{field} Count {} but its histogram holds {held} samples",
            b.count
        )));
    }
    Ok(())
}

/// `open_loop`: every block holds its count; service and response time are
/// those of the replies the rows count; the never-sent wait counts the
/// requests never sent.
fn verify_open_loop(at: &At<'_>, section: &Section, o: &OpenLoop) -> Result<(), UsageError> {
    let field = format!("{}.open_loop", at.run_field());
    if let Some(lag) = &o.schedule_lag {
        verify_block(at, &format!("{field}.schedule_lag"), lag)?;
    }
    let service = recorded(&o.service_time);
    let response: Vec<(&str, &LatencyBlock)> = o.response_time.iter().collect();
    for (name, blocks) in [("service_time", service), ("response_time", response)] {
        for (key, b) in blocks {
            let here = format!("{field}.{name}.{key}");
            verify_block(at, &here, b)?;
            if let Some(row) = section.row(key).filter(|r| r.count != b.count) {
                return Err(at.mismatch(format!(
                    "{here} Count {} but {} {key} Count is {}",
                    b.count, at.phase, row.count
                )));
            }
        }
    }
    let never_sent = recorded(&o.never_sent_wait);
    for (key, b) in &never_sent {
        verify_block(at, &format!("{field}.never_sent_wait.{key}"), b)?;
    }
    if let Some((_, t)) = never_sent.iter().find(|(k, _)| *k == TOTALS_ROW) {
        let ops: u64 = never_sent
            .iter()
            .filter(|(k, _)| *k != TOTALS_ROW)
            .map(|(_, b)| b.count)
            .sum();
        if t.count != o.never_sent || ops != o.never_sent {
            return Err(at.mismatch(format!(
                "{field}.never_sent {} but never_sent_wait counts {} (Totals) and {ops} (its ops)",
                o.never_sent, t.count
            )));
        }
    }
    Ok(())
}

/// The blocks of a row set the run recorded (a row without one is `null`).
fn recorded(blocks: &Named<Option<LatencyBlock>>) -> Vec<(&str, &LatencyBlock)> {
    let present = blocks.iter().filter_map(|(k, b)| Some((k, b.as_ref()?)));
    present.collect()
}

/// `kvbench.totals` adds the runs' totals, field by field.
fn verify_file_totals(f: &ShardFile) -> Result<(), UsageError> {
    let Some(totals) = &f.kvbench.totals else {
        return Ok(());
    };
    for (command, t) in totals.iter() {
        let runs: Vec<_> = f
            .kvbench
            .runs
            .iter()
            .filter_map(|r| r.totals.get(command))
            .collect();
        let fields = [
            ("count", t.count, runs.iter().map(|r| r.count).sum::<u64>()),
            ("hits", t.hits, runs.iter().map(|r| r.hits).sum()),
            ("misses", t.misses, runs.iter().map(|r| r.misses).sum()),
            ("errors", t.errors, runs.iter().map(|r| r.errors).sum()),
            (
                "bytes_tx",
                t.bytes_tx,
                runs.iter().map(|r| r.bytes_tx).sum(),
            ),
            (
                "bytes_rx",
                t.bytes_rx,
                runs.iter().map(|r| r.bytes_rx).sum(),
            ),
        ];
        if let Some((name, file, sum)) = fields.into_iter().find(|(_, a, b)| a != b) {
            return Err(UsageError::new(
                &f.path,
                format!(
                    "kvbench.totals.{command}.{name} {file} but its runs add up to {sum}: the file was edited or is damaged"
                ),
            ));
        }
    }
    Ok(())
}
