//! Reports: text and JSON exporters behind one trait, the progress line, and
//! atomic file writes.
//!
//! Exporters return bytes and never touch files, so the same bytes can go to
//! stdout, to `--out-file` or into a test. Files are written to a temporary name
//! and renamed into place, so a crash mid-write never leaves a truncated result.

pub mod evidence;
pub mod hdr;
pub mod json;
pub mod json_config;
pub mod open_loop;
pub mod progress;
pub mod sweep;
pub mod text;

use std::io::{self, Write};
use std::path::Path;

use hdrhistogram::Histogram;

use crate::config::Config;
use crate::results::Results;
use crate::stats::OpStats;

/// What every exporter gets.
pub struct ReportInput<'a> {
    /// The validated configuration.
    pub config: &'a Config,
    /// Everything measured so far.
    pub results: &'a Results,
    /// False while runs are still to come (or the run was cut short).
    pub complete: bool,
}

/// Renders results into a file format.
pub trait Exporter {
    /// The report's bytes.
    fn render(&self, input: &ReportInput<'_>) -> Vec<u8>;
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a
/// rename, so readers see the old file or the new one, never half of one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = dir.join(tmp_name);
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Writes the JSON report to `--json-out-file`, if one was asked for.
pub fn save_json(config: &Config, results: &Results, complete: bool) -> Result<(), String> {
    let input = ReportInput {
        config,
        results,
        complete,
    };
    write_json(config, &json::JsonExporter.render(&input))
}

/// Prints the text report to stdout, or writes it to `--out-file`.
pub fn emit_text(config: &Config, results: &Results, complete: bool) -> Result<(), String> {
    let input = ReportInput {
        config,
        results,
        complete,
    };
    write_text(config, &text::TextExporter.render(&input))
}

/// Writes JSON bytes to `--json-out-file` atomically; nothing without the flag.
pub fn write_json(config: &Config, bytes: &[u8]) -> Result<(), String> {
    let Some(path) = &config.output.json_out_file else {
        return Ok(());
    };
    write_atomically(path, bytes)
        .map_err(|e| format!("cannot write --json-out-file {}: {e}", path.display()))
}

/// Writes text bytes to `--out-file` atomically, or to stdout.
pub fn write_text(config: &Config, bytes: &[u8]) -> Result<(), String> {
    match &config.output.out_file {
        Some(path) => write_atomically(path, bytes)
            .map_err(|e| format!("cannot write --out-file {}: {e}", path.display())),
        None => {
            let mut out = io::stdout().lock();
            match out.write_all(bytes).and_then(|()| out.flush()) {
                // A closed pipe (`kvbench ... | head`) is the reader's choice, not a failure.
                Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
                    Err(format!("cannot write the report: {e}"))
                }
                _ => Ok(()),
            }
        }
    }
}

/// The effective configuration for `--show-config`, password redacted.
pub fn show_config(config: &Config) -> String {
    let value = json_config::kvbench_config(config);
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

/// GET hits as a percentage of GET replies that were hits or misses; `None`
/// when no GET was answered.
pub fn hit_rate_percent(get: &OpStats) -> Option<f64> {
    let answered = get.hits + get.misses;
    (answered > 0).then(|| 100.0 * get.hits as f64 / answered as f64)
}

/// memtier's latency distribution: `(latency ms, percent of requests at or
/// below it)` at percentile steps that halve towards 100 % (10 steps per halving).
pub fn distribution(h: &Histogram<u64>) -> Vec<(f64, f64)> {
    // The iterator starts at the lowest recorded value (0 %), as memtier's table does.
    let mut points = Vec::new();
    for v in h.iter_quantiles(10) {
        let percent = v.quantile_iterated_to() * 100.0;
        points.push((
            h.highest_equivalent(v.value_iterated_to()) as f64 / 1000.0,
            percent,
        ));
        if percent >= 100.0 {
            break;
        }
    }
    points
}

/// Formats a percentile for a column title: 50 → "50", 99.9 → "99.9".
pub fn percentile_label(p: f64) -> String {
    format!("{p}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::latency_histogram;

    #[test]
    fn atomic_write_replaces_the_file_and_leaves_no_temp() {
        let dir = std::env::temp_dir().join(format!("kvbench-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.json");
        write_atomically(&path, b"one").unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn distribution_ends_at_one_hundred_percent_and_rises() {
        let mut h = latency_histogram().unwrap();
        for v in 1..=10_000u64 {
            h.record(v).unwrap();
        }
        let d = distribution(&h);
        assert_eq!(d.first().unwrap().1, 0.0);
        assert_eq!(d.last().unwrap().1, 100.0);
        assert!(d.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1));
    }

    #[test]
    fn hit_rate_is_none_without_gets() {
        let mut get = OpStats::new().unwrap();
        assert_eq!(hit_rate_percent(&get), None);
        get.hits = 3;
        get.misses = 1;
        assert_eq!(hit_rate_percent(&get), Some(75.0));
    }
}
