//! HdrHistogram files (`--hdr-file-prefix P`), per measured run *n*, under
//! memtier_benchmark's names: `P_FULL_RUN_<n>` and one `P_<NAME>_command_run_<n>`
//! per row of the op table (`SET` and `GET` for the default pair, `HSET` for
//! `--command "HSET ..."`), each with
//!
//! - `.txt`: the percentile distribution in memtier's layout (HdrHistogram's
//!   classic percentile output, values in ms), which HdrHistogram's plotter reads;
//! - `.hgrm`: a histogram log with one interval spanning the run, as memtier
//!   writes it (absolute timestamps, values in µs);
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

use crate::results::{Phase, PhaseResult};
use crate::stats::{OpStats, Stats};
use crate::workload::ops::OpTable;

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
    let mut serializer = V2DeflateSerializer::new();
    let started = run
        .started_wall
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    for (op, row) in file_ops(table) {
        let op = op.as_str();
        let h = op_stats(&run.stats, row).latency_us;
        let mut file = BufWriter::new(File::create(file_name(prefix, run.phase, op, "txt"))?);
        file.write_all(percentile_distribution(&h).as_bytes())?;
        file.flush()?;
        let mut file = BufWriter::new(File::create(file_name(prefix, run.phase, op, "hgrm"))?);
        let mut log = IntervalLogWriterBuilder::new()
            .add_comment(&format!(
                "[{} command HDR latency histogram results]",
                title(op)
            ))
            .with_start_time(run.started_wall)
            .begin_log_with(&mut file, &mut serializer)?;
        // One interval for the whole run, at absolute times, as memtier writes it.
        log.write_histogram(&h, started, run.duration, None)
            .map_err(|e| io::Error::other(format!("{e:?}")))?;
        file.flush()?;
    }
    Ok(())
}

/// memtier's percentile distribution (HdrHistogram's classic output): values in
/// ms (the µs histogram scaled by 1000) with two decimals, five percentile steps
/// per halving distance, the last row at percentile 1 with `inf`, and a footer
/// with mean, standard deviation, max and total count.
pub fn percentile_distribution(h: &Histogram<u64>) -> String {
    use std::fmt::Write as _;
    let mut out = format!(
        "{:>12} {:>12} {:>12} {:>12}\n\n",
        "Value", "Percentile", "TotalCount", "1/(1-Percentile)"
    );
    let mut total = 0u64;
    if !h.is_empty() {
        for v in h.iter_quantiles(5) {
            total += v.count_since_last_iteration();
            let value = h.highest_equivalent(v.value_iterated_to()) as f64 / 1000.0;
            let q = v.quantile_iterated_to();
            let inverse = if q < 1.0 {
                1.0 / (1.0 - q)
            } else {
                f64::INFINITY
            };
            let _ = writeln!(out, "{value:12.2} {q:12.6} {total:12} {inverse:12.2}");
            if q >= 1.0 {
                break;
            }
        }
    }
    let (mean, stdev, max) = if h.is_empty() {
        (0.0, 0.0, 0.0)
    } else {
        (h.mean(), h.stdev(), h.max() as f64)
    };
    let _ = writeln!(
        out,
        "#[Mean    = {:12.3}, StdDeviation   = {:12.3}]",
        mean / 1000.0,
        stdev / 1000.0
    );
    let _ = writeln!(
        out,
        "#[Max     = {:12.3}, Total count    = {:12}]",
        max / 1000.0,
        h.len()
    );
    // The counts array holds (buckets + 1) half sub-buckets, so this is the
    // sub-bucket count HdrHistogram prints (2048 at 3 significant digits).
    let sub_buckets = 2 * h.distinct_values() / (usize::from(h.buckets()) + 1);
    let _ = writeln!(
        out,
        "#[Buckets = {:12}, SubBuckets     = {:12}]",
        h.buckets(),
        sub_buckets
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::latency_histogram;

    #[test]
    fn distribution_ends_with_the_total_count_and_footer() {
        let mut h = latency_histogram().unwrap();
        for v in 1..=1000u64 {
            h.record(v * 10).unwrap();
        }
        let text = percentile_distribution(&h);
        let last_row = text
            .lines()
            .rfind(|l| !l.starts_with('#') && !l.is_empty())
            .unwrap();
        assert!(
            last_row.ends_with("     1.000000         1000          inf"),
            "{last_row}"
        );
        assert!(text.contains("Total count    =         1000]"));
        assert!(text.contains("SubBuckets     =         2048]"), "{text}");
        // memtier's header, byte for byte (tests/data/memtier has none, but the
        // reference .txt files start with exactly this).
        assert!(text.starts_with("       Value   Percentile   TotalCount 1/(1-Percentile)\n\n"));
        let first = text.lines().nth(2).unwrap();
        assert_eq!(first, "        0.01     0.000000            1         1.00");
    }

    #[test]
    fn file_names_are_memtiers() {
        let name = |phase, op, ext| file_name(Path::new("out/x"), phase, op, ext);
        assert_eq!(
            name(Phase::Run(1), "TOTALS", "txt"),
            PathBuf::from("out/x_FULL_RUN_1.txt")
        );
        assert_eq!(
            name(Phase::Run(2), "SET", "hgrm"),
            PathBuf::from("out/x_SET_command_run_2.hgrm")
        );
        assert_eq!(
            name(Phase::Run(2), "GET", "hlog"),
            PathBuf::from("out/x_GET_command_run_2.hlog")
        );
        assert_eq!(
            name(Phase::Warmup, "TOTALS", "hlog"),
            PathBuf::from("out/x_FULL_WARMUP.hlog")
        );
    }
}
