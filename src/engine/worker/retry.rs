//! The engine's half of `--retry-on-error` and `--failed-keys-file`: which
//! error replies the worker's recorder hands back to the client ([`HandBack`]) instead
//! of counting them, and the per-thread writer of the failed-keys file
//! ([`FailedKeysLog`]). The client decides what a handed-back reply becomes
//! (`client/retry.rs`): a retry, or a final error that is counted and logged.
//!
//! The file is memtier's CSV, `timestamp,command,key,status,retries`: one
//! line per request that finally failed. Each thread formats its lines into
//! its own buffer (no lock, no allocation once the buffer has grown) and
//! appends the buffer with one `write` to a file opened with `O_APPEND`, when
//! it is full and at the end of every phase, so lines of different threads
//! never interleave.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::config::Config;
use crate::config::retry::{FAILED_KEYS_HEADER, KindSet};
use crate::protocol::resp::ServerErrorKind;

/// A thread's lines are appended once they pass this many bytes.
const FLUSH_AT: usize = 64 * 1024;

/// Which error replies the worker's recorder hands back to the client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HandBack {
    /// `--retry-on`: the kinds that may be retried.
    retry_on: KindSet,
    /// `--failed-keys-file`: every error reply, so its key can be logged.
    every_error: bool,
}

impl HandBack {
    /// What `config` asks for.
    pub fn for_config(config: &Config) -> HandBack {
        HandBack {
            retry_on: config.retry.map(|p| p.on).unwrap_or_default(),
            every_error: config.failed_keys_file.is_some(),
        }
    }

    /// True when an error reply of `kind` goes back to the client.
    #[inline]
    pub fn wants(self, kind: ServerErrorKind) -> bool {
        self.every_error || self.retry_on.contains(kind)
    }
}

/// Opens `path` for appending, creating it with its header line when it is
/// new or empty: done once, by the master, before the workers start.
pub fn open_failed_keys(path: &Path) -> io::Result<Arc<File>> {
    let mut file = OpenOptions::new().append(true).create(true).open(path)?;
    if file.metadata()?.len() == 0 {
        file.write_all(FAILED_KEYS_HEADER.as_bytes())?;
        file.write_all(b"\n")?;
    }
    Ok(Arc::new(file))
}

/// One thread's writer of the failed-keys file.
#[derive(Debug)]
pub struct FailedKeysLog {
    file: Arc<File>,
    lines: Vec<u8>,
    /// Lines recorded since the start, for the report.
    written: u64,
    /// Set once a write failed: the run goes on, and says so once.
    broken: bool,
}

/// One line of the file.
pub struct FailedKey<'a> {
    /// The command name (`SET`).
    pub command: &'a str,
    /// The key, as sent.
    pub key: &'a [u8],
    /// The final error's kind.
    pub status: ServerErrorKind,
    /// Retries the request had before it failed.
    pub retries: u16,
}

impl FailedKeysLog {
    /// A writer appending to `file`.
    pub fn new(file: Arc<File>) -> FailedKeysLog {
        FailedKeysLog {
            file,
            lines: Vec::with_capacity(FLUSH_AT + 1024),
            written: 0,
            broken: false,
        }
    }

    /// Adds one line, stamped with `at`.
    pub fn record(&mut self, at: SystemTime, line: &FailedKey<'_>) {
        let out = &mut self.lines;
        push_utc(out, at);
        out.push(b',');
        out.extend_from_slice(line.command.as_bytes());
        out.push(b',');
        push_quoted(out, line.key);
        out.push(b',');
        push_quoted(out, line.status.as_str().as_bytes());
        out.push(b',');
        out.extend_from_slice(itoa::Buffer::new().format(line.retries).as_bytes());
        out.push(b'\n');
        self.written += 1;
        if self.lines.len() >= FLUSH_AT {
            self.flush();
        }
    }

    /// Lines recorded so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Appends what is buffered.
    pub fn flush(&mut self) {
        if self.lines.is_empty() {
            return;
        }
        if !self.broken
            && let Err(e) = (&*self.file).write_all(&self.lines)
        {
            self.broken = true;
            crate::error::note(format_args!(
                "kvbench: --failed-keys-file: a write failed ({e}); the rest of the run's failed keys are not written"
            ));
        }
        self.lines.clear();
    }
}

impl Drop for FailedKeysLog {
    fn drop(&mut self) {
        self.flush();
    }
}

/// `bytes` as one CSV field: quoted, `"` doubled, and any byte outside
/// printable ASCII as `\xHH` (memtier's escaping), so a line stays one line.
fn push_quoted(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    for &b in bytes {
        match b {
            b'"' => out.extend_from_slice(b"\"\""),
            0x20..=0x7e => out.push(b),
            _ => out.extend_from_slice(&[
                b'\\',
                b'x',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 15)],
            ]),
        }
    }
    out.push(b'"');
}

/// `at` as ISO 8601 UTC with microseconds: `2026-05-15T10:20:30.123456Z`.
fn push_utc(out: &mut Vec<u8>, at: SystemTime) {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (year, month, day) = civil_from_days((secs / 86_400) as i64);
    let of_day = secs % 86_400;
    let two = |out: &mut Vec<u8>, n: u64| {
        out.extend_from_slice(&[b'0' + (n / 10) as u8, b'0' + (n % 10) as u8])
    };
    out.extend_from_slice(itoa::Buffer::new().format(year).as_bytes());
    out.push(b'-');
    two(out, month);
    out.push(b'-');
    two(out, day);
    out.push(b'T');
    two(out, of_day / 3600);
    out.push(b':');
    two(out, of_day / 60 % 60);
    out.push(b':');
    two(out, of_day % 60);
    out.push(b'.');
    let micros = u64::from(since.subsec_micros());
    let mut digits = [b'0'; 6];
    for (i, d) in digits.iter_mut().enumerate() {
        *d = b'0' + (micros / 10u64.pow(5 - i as u32) % 10) as u8;
    }
    out.extend_from_slice(&digits);
    out.push(b'Z');
}

/// The civil date of day `days` since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, "chrono-Compatible Low-Level Date Algorithms").
fn civil_from_days(days: i64) -> (i64, u64, u64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u64;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u64;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps_are_utc_with_microseconds() {
        let mut out = Vec::new();
        push_utc(
            &mut out,
            UNIX_EPOCH + Duration::from_micros(1_778_840_430_000_007),
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "2026-05-15T10:20:30.000007Z"
        );
        let mut out = Vec::new();
        push_utc(&mut out, UNIX_EPOCH + Duration::from_secs(951_782_400));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "2000-02-29T00:00:00.000000Z"
        );
    }

    #[test]
    fn fields_are_quoted_and_escaped_to_stay_on_one_line() {
        let mut out = Vec::new();
        push_quoted(&mut out, b"a\"b,c\n\xff");
        assert_eq!(out, b"\"a\"\"b,c\\x0a\\xff\"");
    }

    #[test]
    fn lines_reach_the_file_at_flush_after_the_header() {
        let path = std::env::temp_dir().join(format!("kvbench-fk-{}.csv", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mut log = FailedKeysLog::new(open_failed_keys(&path).unwrap());
        let line = FailedKey {
            command: "SET",
            key: b"memtier-7",
            status: ServerErrorKind::Oom,
            retries: 3,
        };
        log.record(UNIX_EPOCH, &line);
        drop(log);
        // Opening again appends, with no second header.
        drop(open_failed_keys(&path).unwrap());
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            format!(
                "{FAILED_KEYS_HEADER}\n1970-01-01T00:00:00.000000Z,SET,\"memtier-7\",\"OOM\",3\n"
            )
        );
        std::fs::remove_file(&path).unwrap();
    }
}
