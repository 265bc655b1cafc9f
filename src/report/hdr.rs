//! HdrHistogram files (`--hdr-file-prefix P`), per measured run and op:
//! `P_RUN<n>_<OP>.hgrm`, the percentile distribution in the text format that
//! HdrHistogram's plotter reads, and `P_RUN<n>_<OP>.hlog`, an interval log with one
//! histogram per second (tagged with the op) that HdrHistogram's log processor
//! reads. Values are latencies: milliseconds in `.hgrm`, microseconds in the
//! `.hlog` histograms (whose `Interval_Max` column is in microseconds too).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use hdrhistogram::Histogram;
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};

use crate::results::{Phase, PhaseResult};
use crate::stats::{OpStats, Stats};

/// The ops that get files: each op, and both together.
const OPS: [&str; 3] = ["SET", "GET", "TOTALS"];

fn op_stats(stats: &Stats, op: &str) -> OpStats {
    match op {
        "SET" => stats.set.clone(),
        "GET" => stats.get.clone(),
        _ => stats.totals(),
    }
}

/// `P_RUN<n>_<OP>.<ext>`.
pub fn file_name(prefix: &Path, phase: Phase, op: &str, ext: &str) -> PathBuf {
    let run = match phase {
        Phase::Prefill => "PREFILL".to_string(),
        Phase::Warmup => "WARMUP".to_string(),
        Phase::Run(n) => format!("RUN{n}"),
    };
    let mut name = prefix.as_os_str().to_os_string();
    name.push(format!("_{run}_{op}.{ext}"));
    PathBuf::from(name)
}

/// The interval logs of one run, written as each second completes.
pub struct IntervalLogs {
    files: Vec<(&'static str, BufWriter<File>)>,
    serializer: V2DeflateSerializer,
}

impl IntervalLogs {
    /// Creates the run's `.hlog` files and writes their headers.
    pub fn create(prefix: &Path, phase: Phase, started: SystemTime) -> io::Result<IntervalLogs> {
        let mut serializer = V2DeflateSerializer::new();
        let mut files = Vec::new();
        for op in OPS {
            let mut file = BufWriter::new(File::create(file_name(prefix, phase, op, "hlog"))?);
            IntervalLogWriterBuilder::new()
                .add_comment(&format!(
                    "kvbench {} {phase} {op} latencies in microseconds",
                    env!("CARGO_PKG_VERSION")
                ))
                .with_start_time(started)
                .with_base_time(started)
                .begin_log_with(&mut file, &mut serializer)?;
            files.push((op, file));
        }
        Ok(IntervalLogs { files, serializer })
    }

    /// Appends second `second` (all threads merged) to every op's log.
    pub fn write_second(&mut self, second: u64, merged: &Stats) -> io::Result<()> {
        for (op, file) in &mut self.files {
            // A builder with no headers configured writes nothing but the entry.
            let mut log =
                IntervalLogWriterBuilder::new().begin_log_with(file, &mut self.serializer)?;
            let h = op_stats(merged, op).latency_us;
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
        for (_, file) in &mut self.files {
            file.flush()?;
        }
        Ok(())
    }
}

/// Writes the run's `.hgrm` files.
pub fn write_distributions(prefix: &Path, run: &PhaseResult) -> io::Result<()> {
    for op in OPS {
        let h = op_stats(&run.stats, op).latency_us;
        let mut file = BufWriter::new(File::create(file_name(prefix, run.phase, op, "hgrm"))?);
        file.write_all(percentile_distribution(&h).as_bytes())?;
        file.flush()?;
    }
    Ok(())
}

/// HdrHistogram's `outputPercentileDistribution` text, values in ms (the µs
/// histogram scaled by 1000), five percentile steps per halving distance.
pub fn percentile_distribution(h: &Histogram<u64>) -> String {
    use std::fmt::Write as _;
    let mut out = format!(
        "{:>12} {:>14} {:>10} {:>14}\n\n",
        "Value", "Percentile", "TotalCount", "1/(1-Percentile)"
    );
    let mut total = 0u64;
    if !h.is_empty() {
        for v in h.iter_quantiles(5) {
            total += v.count_since_last_iteration();
            let value = h.highest_equivalent(v.value_iterated_to()) as f64 / 1000.0;
            let q = v.quantile_iterated_to();
            if q < 1.0 {
                let _ = writeln!(
                    out,
                    "{value:12.3} {q:2.12} {total:10} {:14.2}",
                    1.0 / (1.0 - q)
                );
            } else {
                let _ = writeln!(out, "{value:12.3} {q:2.12} {total:10}");
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
            last_row.contains(" 1.000000000000       1000"),
            "{last_row}"
        );
        assert!(text.contains("Total count    =         1000]"));
        assert!(text.contains("SubBuckets     =         2048]"), "{text}");
        assert!(text.starts_with("       Value     Percentile TotalCount 1/(1-Percentile)\n\n"));
    }

    #[test]
    fn file_names_carry_run_and_op() {
        let p = file_name(Path::new("out/x"), Phase::Run(2), "GET", "hlog");
        assert_eq!(p, PathBuf::from("out/x_RUN2_GET.hlog"));
    }
}
