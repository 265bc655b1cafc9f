//! Each machine's histograms of each second, read back from the `.hlog`
//! interval logs its measured runs wrote under `--hdr-file-prefix`.
//!
//! A report keeps no histogram per second: kept in memory and in the JSON
//! for the whole run, they grew both with its length (7 KB a second at the
//! whitepaper's `-t 20 -c 100`). The interval log gets each second as it
//! ends instead, so merge finds them there: the prefix the file names in
//! `kvbench.config.hdr_file_prefix`, as written (absolute, or relative to
//! the current directory), else its file name beside the JSON file. Each
//! second read is checked against the row's `Time-Serie` before it is
//! added; a log that contradicts the file refuses the file, as a field
//! edited in the file itself does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hdrhistogram::Histogram;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};

use crate::engine::master::results::Phase;
use crate::error::UsageError;
use crate::report::hdr::file_name;
use crate::report::model::histogram::{CompressedHistogram, HistogramError};
use crate::report::model::section::OpRow;
use crate::tools::merge::check::ShardFile;

/// One row's histograms, by the second (from 0) as in `Time-Serie`.
pub type Seconds = BTreeMap<u64, Histogram<u64>>;

/// The interval log of row `op` in measured run `run` (from 1) of `f`, when
/// its run wrote one and it is found.
pub fn locate(f: &ShardFile, run: u32, op: &str) -> Option<PathBuf> {
    let prefix = f.kvbench.config.get("hdr_file_prefix")?.as_str()?;
    let as_written = file_name(Path::new(prefix), Phase::Run(run), op, "hlog");
    if as_written.is_file() {
        return Some(as_written);
    }
    let beside = Path::new(&f.path).parent()?.join(as_written.file_name()?);
    beside.is_file().then_some(beside)
}

/// Why an interval log cannot be read back (each text follows the log's path).
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The file could not be read.
    #[error("cannot be read: {0}")]
    Read(#[from] std::io::Error),
    /// A line is no interval log's.
    #[error("is not an interval log ({0})")]
    NotALog(String),
    /// An interval's histogram does not decode.
    #[error("second {second}: {source}")]
    Histogram {
        /// The interval's start second.
        second: u64,
        /// Why.
        source: HistogramError,
    },
    /// Two intervals start at one second.
    #[error("holds second {0} twice")]
    Twice(u64),
}

/// Reads the intervals tagged `op` of the log at `path`, keyed by their
/// start second.
pub fn read(path: &Path, op: &str) -> Result<Seconds, LogError> {
    let bytes = std::fs::read(path)?;
    let mut seconds = Seconds::new();
    for entry in IntervalLogIterator::new(&bytes) {
        let entry = entry.map_err(|e| LogError::NotALog(format!("{e:?}")))?;
        let LogEntry::Interval(interval) = entry else {
            continue;
        };
        if interval.tag().map(|t| t.as_str()) != Some(op) {
            continue;
        }
        let second = interval.start_timestamp().as_secs();
        let h = CompressedHistogram(interval.encoded_histogram().to_string())
            .decode()
            .map_err(|source| LogError::Histogram { second, source })?;
        if seconds.insert(second, h).is_some() {
            return Err(LogError::Twice(second));
        }
    }
    Ok(seconds)
}

/// Row `key` (command `op`) of measured run `run` of `f`, second by second,
/// from its interval log: `Ok(None)` when the run wrote none or it is not
/// found; refused when the log is unreadable or a second's samples are not
/// the row's `Count` of that second.
pub fn seconds_of(
    f: &ShardFile,
    run: u32,
    key: &str,
    op: &str,
    row: &OpRow,
) -> Result<Option<Seconds>, UsageError> {
    let Some(path) = locate(f, run, op) else {
        return Ok(None);
    };
    let shown = path.display();
    let refuse = |why: String| UsageError::new(&f.path, format!("RUN #{run} {key}: {shown} {why}"));
    let seconds = read(&path, op).map_err(|e| refuse(e.to_string()))?;
    for (second, h) in &seconds {
        let count = row
            .time_serie
            .get(&second.to_string())
            .map_or(0, |s| s.count);
        if h.len() != count {
            return Err(refuse(format!(
                "holds {} samples in second {second}, but the file's Time-Serie Count is {count}: the log is of another run, or was edited",
                h.len()
            )));
        }
    }
    for (second, s) in row.time_serie.iter() {
        let held = second
            .parse::<u64>()
            .ok()
            .is_some_and(|k| seconds.contains_key(&k));
        if s.count > 0 && !held {
            return Err(refuse(format!(
                "has no interval for second {second}, whose Time-Serie Count is {}: the log is of another run, or was cut",
                s.count
            )));
        }
    }
    Ok(Some(seconds))
}
