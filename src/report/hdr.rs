//! HdrHistogram files (`--hdr-file-prefix P`), per measured run *n*, under
//! memtier_benchmark's names: `P_FULL_RUN_<n>` and one `P_<NAME>_command_run_<n>`
//! per row of the op table (`SET` and `GET` for the default pair, `HSET` for
//! `--command "HSET ..."`), each with
//!
//! - `.txt`: the percentile distribution in memtier's layout (HdrHistogram's
//!   classic percentile output, values in ms), which HdrHistogram's plotter reads;
//! - `.hgrm`: a histogram log with one interval spanning the run, line for line
//!   as memtier writes it through HdrHistogram_c (its log format 1.2: title,
//!   version, start time with its GMT date, column names, then
//!   `start,end,max.0,histogram` with absolute timestamps, values in µs);
//! - `.hlog`: kvbench's own interval log with one histogram per second, tagged
//!   with the op, which HdrHistogram's log processor reads (µs, `Interval_Max`
//!   in µs too).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hdrhistogram::Histogram;
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};

use crate::engine::master::results::{Phase, PhaseResult};
use crate::engine::stats::{OpStats, Stats, max_us};
use crate::report::json::compressed;
use crate::workload::ops::OpTable;

mod distribution;

pub use distribution::percentile_distribution;

/// The files' ops: each row of the table by its name, and every row together
/// (`TOTALS`, memtier's "full run").
fn file_ops(table: &OpTable) -> Vec<(String, Option<usize>)> {
    let rows = table.rows.iter().enumerate();
    rows.map(|(i, r)| (r.name_key.clone(), Some(i)))
        .chain([("TOTALS".to_string(), None)])
        .collect()
}

fn op_stats(stats: &Stats, row: Option<usize>) -> OpStats {
    match row.and_then(|r| stats.op(r)) {
        Some(op) => op.clone(),
        None => stats.totals(),
    }
}

/// memtier's name for the files of one op and phase: `FULL_RUN_<n>` for both
/// ops together, `<OP>_command_run_<n>` for one; the warm-up and prefill (which
/// memtier lacks) use `WARMUP` and `PREFILL` in place of `RUN_<n>`.
pub fn file_stem(phase: Phase, op: &str) -> String {
    let (upper, lower) = match phase {
        Phase::Prefill => ("PREFILL".to_string(), "prefill".to_string()),
        Phase::Warmup => ("WARMUP".to_string(), "warmup".to_string()),
        Phase::Run(n) => (format!("RUN_{n}"), format!("run_{n}")),
    };
    match op {
        "TOTALS" => format!("FULL_{upper}"),
        op => format!("{op}_command_{lower}"),
    }
}

/// The extensions of an op's files, each described in this module's docs.
pub const EXTENSIONS: [&str; 3] = ["txt", "hgrm", "hlog"];

/// Every file measured run `n` writes under `prefix`: each [`EXTENSIONS`]
/// for each row of `table` and for all rows together. The same-file check
/// ([`crate::report::files`]) holds the outputs and inputs off these names.
pub fn run_files(prefix: &Path, table: &OpTable, n: u32) -> Vec<PathBuf> {
    let ops = file_ops(table);
    ops.iter()
        .flat_map(|(op, _)| EXTENSIONS.map(|ext| file_name(prefix, Phase::Run(n), op, ext)))
        .collect()
}

/// `P_<stem>.<ext>`, see [`file_stem`].
pub fn file_name(prefix: &Path, phase: Phase, op: &str, ext: &str) -> PathBuf {
    let mut name = prefix.as_os_str().to_os_string();
    name.push(format!("_{}.{ext}", file_stem(phase, op)));
    PathBuf::from(name)
}

/// memtier's title of an op's files, as the first line of its `.hgrm`.
fn title(op: &str) -> &str {
    match op {
        "TOTALS" => "Full Run",
        op => op,
    }
}

/// The interval logs of one run, written as each second completes.
pub struct IntervalLogs {
    files: Vec<(String, Option<usize>, BufWriter<File>)>,
    serializer: V2DeflateSerializer,
}

impl IntervalLogs {
    /// Creates the run's `.hlog` files and writes their headers.
    pub fn create(
        prefix: &Path,
        table: &OpTable,
        phase: Phase,
        started: SystemTime,
    ) -> io::Result<IntervalLogs> {
        let mut serializer = V2DeflateSerializer::new();
        let mut files = Vec::new();
        for (op, row) in file_ops(table) {
            let mut file = BufWriter::new(File::create(file_name(prefix, phase, &op, "hlog"))?);
            IntervalLogWriterBuilder::new()
                .add_comment(&format!(
                    "kvbench {} {phase} {op} latencies in microseconds",
                    env!("CARGO_PKG_VERSION")
                ))
                .with_start_time(started)
                .with_base_time(started)
                .begin_log_with(&mut file, &mut serializer)?;
            files.push((op, row, file));
        }
        Ok(IntervalLogs { files, serializer })
    }

    /// Appends second `second` (all threads merged) to every op's log.
    pub fn write_second(&mut self, second: u64, merged: &Stats) -> io::Result<()> {
        for (op, row, file) in &mut self.files {
            // A builder with no headers configured writes nothing but the entry.
            let mut log =
                IntervalLogWriterBuilder::new().begin_log_with(file, &mut self.serializer)?;
            let h = op_stats(merged, *row).latency_us;
            log.write_histogram(
                &h,
                Duration::from_secs(second),
                Duration::from_secs(1),
                Tag::new(op),
            )
            .map_err(|e| io::Error::other(format!("{e:?}")))?;
        }
        Ok(())
    }

    /// Flushes every log to disk.
    pub fn finish(mut self) -> io::Result<()> {
        for (_, _, file) in &mut self.files {
            file.flush()?;
        }
        Ok(())
    }
}

/// Writes the run's `.txt` distributions and `.hgrm` whole-run logs.
pub fn write_distributions(prefix: &Path, table: &OpTable, run: &PhaseResult) -> io::Result<()> {
    for (op, row) in file_ops(table) {
        let op = op.as_str();
        let h = op_stats(&run.stats, row).latency_us;
        for (ext, text) in [
            ("txt", percentile_distribution(&h)),
            (
                "hgrm",
                whole_run_log(op, run.started_wall, run.duration, &h),
            ),
        ] {
            let mut file = BufWriter::new(File::create(file_name(prefix, run.phase, op, ext))?);
            file.write_all(text.as_bytes())?;
            file.flush()?;
        }
    }
    Ok(())
}

/// memtier's `.hgrm`: what HdrHistogram_c's `hdr_log_write_header` and
/// `hdr_log_write` print for one interval spanning the run. Its columns are
/// C's, not the Java format's: the second is the interval's *end* timestamp,
/// and the max is printed as an integer with `.0`. (HdrHistogram's Rust and
/// Java readers take the second column for a length, so kvbench's `.hlog`
/// files are the ones to feed them.)
pub fn whole_run_log(
    op: &str,
    started: SystemTime,
    duration: Duration,
    h: &Histogram<u64>,
) -> String {
    let start = started.duration_since(UNIX_EPOCH).unwrap_or_default();
    let end = start + duration;
    format!(
        "#[{} command HDR latency histogram results]\n\
         #[Histogram log format version 1.2]\n\
         #[StartTime: {:.3} (seconds since epoch), {}]\n\
         \"StartTimestamp\",\"EndTimestamp\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n\
         {:.3},{:.3},{}.0,{}\n",
        title(op),
        start.as_secs_f64(),
        gmt_date(start.as_secs()),
        start.as_secs_f64(),
        end.as_secs_f64(),
        max_us(h),
        compressed(h),
    )
}

/// A time as C's `strftime("%a %b %X %Z %Y")` of `gmtime` writes it in the
/// C locale, as HdrHistogram_c's log header does: `Tue Dec 06:06:56 GMT 2026`
/// (no day of the month: that is the format).
pub fn gmt_date(epoch_secs: u64) -> String {
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = epoch_secs / 86_400;
    let secs = epoch_secs % 86_400;
    let (year, month) = civil_year_month(days);
    format!(
        "{} {} {:02}:{:02}:{:02} GMT {year}",
        WEEKDAYS[(days % 7) as usize],
        MONTHS[month as usize - 1],
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// The proleptic Gregorian year and month (1–12) of a day counted from
/// 1970-01-01 (Howard Hinnant's `civil_from_days`, for days on or after it).
fn civil_year_month(days: u64) -> (u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month)
}

#[cfg(test)]
mod tests;
