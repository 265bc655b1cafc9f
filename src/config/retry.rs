//! memtier 2.4's retries, validated: `--retry-on-error`, `--max-retries`,
//! `--retry-on` and the pacing flags (`--retry-backoff-ms`,
//! `--retry-backoff-factor`, `--max-retry-queue`) made into one
//! [`RetryPolicy`], and `--failed-keys-file`
//! checked before any connection opens (kvbench appends only to a file that
//! is new, empty, or one it wrote itself).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::Args;
use crate::error::UsageError;
use crate::protocol::resp::ServerErrorKind;
use crate::protocol::wire::Protocol;

/// `--max-retries` when not given: enough for a `LOADING` or `BUSY` that
/// clears within a few round trips, and bounded, so that a server that
/// refuses every write cannot hold a request-bound run for ever.
pub const DEFAULT_MAX_RETRIES: u16 = 3;

/// The most `--max-retries` takes (the count travels with each request in
/// a `u16`); beyond it, `-1` says "no limit" plainly.
pub const MAX_MAX_RETRIES: i64 = u16::MAX as i64 - 1;

/// The longest wait before one retry, however often `--retry-backoff-factor`
/// has multiplied `--retry-backoff-ms` (memtier caps its backoff at 60 s too).
pub const MAX_RETRY_BACKOFF: Duration = Duration::from_secs(60);

/// `--max-retry-queue` when not given: requests one client holds waiting for
/// their retry. Bounded so that a paced retry of every reply at a high rate
/// cannot grow without limit; far above what a pipeline window refills.
pub const DEFAULT_MAX_RETRY_QUEUE: usize = 10_000;

/// The first line of every `--failed-keys-file` (memtier's columns): a file
/// that starts otherwise was not written by kvbench, and is never touched.
pub const FAILED_KEYS_HEADER: &str = "timestamp,command,key,status,retries";

/// The error kinds a retry may fix when `--retry-on` does not say: every
/// kind that describes the server's state rather than the request.
pub const DEFAULT_RETRY_ON: [ServerErrorKind; 7] = [
    ServerErrorKind::Oom,
    ServerErrorKind::Loading,
    ServerErrorKind::Busy,
    ServerErrorKind::ReadOnly,
    ServerErrorKind::TryAgain,
    ServerErrorKind::ClusterDown,
    ServerErrorKind::Other,
];

/// Errors about the request or the credentials: sending the same bytes again
/// gets the same answer (memtier's permanent set).
const PERMANENT: [ServerErrorKind; 6] = [
    ServerErrorKind::NoAuth,
    ServerErrorKind::WrongPass,
    ServerErrorKind::WrongType,
    ServerErrorKind::NoPerm,
    ServerErrorKind::CrossSlot,
    ServerErrorKind::Moved,
];

/// A set of [`ServerErrorKind`]s, one bit per kind of [`ServerErrorKind::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KindSet(u32);

impl KindSet {
    /// The set of `kinds`.
    pub fn of(kinds: &[ServerErrorKind]) -> KindSet {
        KindSet(kinds.iter().fold(0, |bits, &k| bits | bit(k)))
    }

    /// True when `kind` is in the set.
    #[inline]
    pub fn contains(self, kind: ServerErrorKind) -> bool {
        self.0 & bit(kind) != 0
    }

    /// The kinds in the set, in [`ServerErrorKind::ALL`]'s order.
    pub fn kinds(self) -> impl Iterator<Item = ServerErrorKind> {
        ServerErrorKind::ALL
            .into_iter()
            .filter(move |&k| self.contains(k))
    }
}

fn bit(kind: ServerErrorKind) -> u32 {
    let index = ServerErrorKind::ALL.iter().position(|&k| k == kind);
    index.map_or(0, |i| 1 << i)
}

/// How many times one request may be sent again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryBudget {
    /// At most this many retries.
    AtMost(u16),
    /// `--max-retries -1`: until the reply is no longer a retried error.
    Unlimited,
}

/// When a retry is sent: `--retry-backoff-ms`, `--retry-backoff-factor`,
/// `--max-retry-queue`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPacing {
    /// The wait before a request's first retry; zero sends it at once.
    pub first: Duration,
    /// Each further retry of the same request waits this many times longer.
    pub factor: f64,
    /// The most requests one client holds waiting for a retry; an error
    /// reply beyond them is final.
    pub max_queue: usize,
}

impl RetryPacing {
    /// The wait before the retry of a request that has had `retries`
    /// retries already: `first × factor^retries`, at most [`MAX_RETRY_BACKOFF`].
    pub fn delay(&self, retries: u16) -> Duration {
        if self.first.is_zero() {
            return Duration::ZERO;
        }
        let scale = self.factor.powi(i32::from(retries));
        let secs = self.first.as_secs_f64() * scale;
        if secs.is_finite() && secs < MAX_RETRY_BACKOFF.as_secs_f64() {
            Duration::from_secs_f64(secs)
        } else {
            MAX_RETRY_BACKOFF
        }
    }
}

/// `--retry-on-error` and its options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// `--max-retries`.
    pub budget: RetryBudget,
    /// `--retry-on`: the error kinds that are retried.
    pub on: KindSet,
    /// When each retry goes out.
    pub pacing: RetryPacing,
}

impl RetryPolicy {
    /// True when a request that got `kind` after `retries` retries is sent again.
    #[inline]
    pub fn retries(&self, kind: ServerErrorKind, retries: u16) -> bool {
        let within = match self.budget {
            RetryBudget::AtMost(n) => retries < n,
            RetryBudget::Unlimited => true,
        };
        within && self.on.contains(kind)
    }
}

/// The retry policy, or `None` without `--retry-on-error`.
pub(super) fn build_retry(a: &Args, protocol: Protocol) -> Result<Option<RetryPolicy>, UsageError> {
    if !a.retry_on_error {
        for (flag, given) in [
            ("--max-retries", a.max_retries.is_some()),
            ("--retry-on", a.retry_on.is_some()),
            ("--retry-backoff-ms", a.retry_backoff_ms.is_some()),
            ("--retry-backoff-factor", a.retry_backoff_factor.is_some()),
            ("--max-retry-queue", a.max_retry_queue.is_some()),
        ] {
            if given {
                return Err(UsageError::new(
                    flag,
                    "applies to --retry-on-error, which is off; add --retry-on-error or drop it",
                ));
            }
        }
        return Ok(None);
    }
    if matches!(protocol, Protocol::MemcacheText | Protocol::MemcacheBinary) {
        return Err(UsageError::new(
            "--retry-on-error",
            format!(
                "is not supported yet with -P {}: memcached's errors carry no kind to retry on; drop it",
                protocol.name()
            ),
        ));
    }
    let budget = match a.max_retries {
        Some(-1) => RetryBudget::Unlimited,
        Some(n) if (0..=MAX_MAX_RETRIES).contains(&n) => RetryBudget::AtMost(n as u16),
        Some(n) => {
            return Err(UsageError::new(
                "--max-retries",
                format!(
                    "must be from 0 to {MAX_MAX_RETRIES}, or -1 for no limit (got {n}); e.g. --max-retries 3"
                ),
            ));
        }
        None if a.memtier_compat => RetryBudget::Unlimited,
        None => RetryBudget::AtMost(DEFAULT_MAX_RETRIES),
    };
    let on = match a.retry_on.as_deref() {
        None => KindSet::of(&DEFAULT_RETRY_ON),
        Some(list) => parse_retry_on(list)?,
    };
    let pacing = build_pacing(a)?;
    Ok(Some(RetryPolicy { budget, on, pacing }))
}

/// `--retry-backoff-ms`, `--retry-backoff-factor`, `--max-retry-queue`.
fn build_pacing(a: &Args) -> Result<RetryPacing, UsageError> {
    let most = MAX_RETRY_BACKOFF.as_millis() as i64;
    let first = match a.retry_backoff_ms {
        None => 0,
        Some(ms) if (0..=most).contains(&ms) => ms as u64,
        Some(ms) => {
            return Err(UsageError::new(
                "--retry-backoff-ms",
                format!("must be from 0 to {most} (60 s; got {ms}); e.g. --retry-backoff-ms 10"),
            ));
        }
    };
    let factor = match a.retry_backoff_factor {
        None => 1.0,
        Some(_) if first == 0 => {
            return Err(UsageError::new(
                "--retry-backoff-factor",
                "multiplies --retry-backoff-ms, which is 0 (retries go at once); add --retry-backoff-ms 10 or drop it",
            ));
        }
        Some(f) if f.is_finite() && (1.0..=100.0).contains(&f) => f,
        Some(f) => {
            return Err(UsageError::new(
                "--retry-backoff-factor",
                format!(
                    "must be from 1 to 100 (got {}); e.g. --retry-backoff-factor 2",
                    super::bounds::shown(f)
                ),
            ));
        }
    };
    let max_queue = match a.max_retry_queue {
        None => DEFAULT_MAX_RETRY_QUEUE,
        Some(n) if (1..=10_000_000).contains(&n) => n as usize,
        Some(n) => {
            return Err(UsageError::new(
                "--max-retry-queue",
                format!("must be from 1 to 10000000 (got {n}); e.g. --max-retry-queue 1000"),
            ));
        }
    };
    Ok(RetryPacing {
        first: Duration::from_millis(first),
        factor,
        max_queue,
    })
}

/// `--retry-on OOM,BUSY`: error prefixes, case-insensitive, each a kind a
/// retry may fix.
fn parse_retry_on(list: &str) -> Result<KindSet, UsageError> {
    let mut kinds = Vec::new();
    for word in list.split(',').map(str::trim) {
        let upper = word.to_ascii_uppercase();
        let upper = upper.strip_prefix('-').unwrap_or(&upper);
        let Some(kind) = ServerErrorKind::ALL
            .into_iter()
            .find(|k| k.as_str() == upper)
        else {
            let known: Vec<&str> = ServerErrorKind::ALL
                .iter()
                .filter(|k| !PERMANENT.contains(k) && **k != ServerErrorKind::Ask)
                .map(|k| k.as_str())
                .collect();
            return Err(UsageError::new(
                "--retry-on",
                format!(
                    "'{word}' is not an error kind kvbench tells apart; use some of {} (OTHER: any other first word)",
                    known.join(",")
                ),
            ));
        };
        if PERMANENT.contains(&kind) || kind == ServerErrorKind::Ask {
            let why = match kind {
                ServerErrorKind::Moved | ServerErrorKind::Ask => {
                    "a redirect, which --cluster-mode follows (see --max-redirects)"
                }
                _ => {
                    "about the request or the credentials, so sending it again gets the same answer"
                }
            };
            return Err(UsageError::new(
                "--retry-on",
                format!("{} is {why}; remove it from the list", kind.as_str()),
            ));
        }
        kinds.push(kind);
    }
    Ok(KindSet::of(&kinds))
}

/// `--failed-keys-file`: a path kvbench may append to. A file that exists
/// and holds anything but kvbench's own lines is refused.
pub(super) fn build_failed_keys(a: &Args) -> Result<Option<PathBuf>, UsageError> {
    let Some(path) = a.failed_keys_file.clone() else {
        return Ok(None);
    };
    if path.as_os_str().is_empty() || path.as_os_str() == "-" {
        return Err(UsageError::new(
            "--failed-keys-file",
            "names a file to append to; give a path such as failed-keys.csv",
        ));
    }
    check_ours(&path)?;
    Ok(Some(path))
}

/// Refuses a regular file that exists, is not empty, and does not begin with
/// [`FAILED_KEYS_HEADER`]: appending would mix kvbench's lines into a file
/// someone else wrote.
fn check_ours(path: &Path) -> Result<(), UsageError> {
    let fail =
        |why: String| UsageError::new("--failed-keys-file", format!("{}: {why}", path.display()));
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(fail(format!("{e}; choose a writable path"))),
    };
    if meta.is_dir() {
        return Err(fail("is a directory; name a file in it".into()));
    }
    if !meta.is_file() || meta.len() == 0 {
        return Ok(());
    }
    let file = File::open(path).map_err(|e| fail(format!("{e}; choose a readable path")))?;
    let mut first = String::new();
    // A file that is not text fails the read, which is the same answer.
    let _ = BufReader::new(file).read_line(&mut first);
    if first.trim_end() == FAILED_KEYS_HEADER {
        return Ok(());
    }
    Err(fail(format!(
        "exists and was not written by kvbench (its first line is not `{FAILED_KEYS_HEADER}`); name a new file or remove this one"
    )))
}

#[cfg(test)]
#[path = "retry_tests.rs"]
mod tests;
