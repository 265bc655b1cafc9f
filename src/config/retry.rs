//! memtier 2.4's retries, validated: `--retry-on-error`, `--max-retries`,
//! `--retry-on` made into one [`RetryPolicy`], and `--failed-keys-file`
//! checked before any connection opens (kvbench appends only to a file that
//! is new, empty, or one it wrote itself).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

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

/// `--retry-on-error` and its options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// `--max-retries`.
    pub budget: RetryBudget,
    /// `--retry-on`: the error kinds that are retried.
    pub on: KindSet,
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
    Ok(Some(RetryPolicy { budget, on }))
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
mod tests {
    use super::*;
    use clap::Parser;

    fn args(extra: &[&str]) -> Args {
        let mut all = vec!["kvbench"];
        all.extend_from_slice(extra);
        Args::try_parse_from(all).unwrap()
    }

    #[test]
    fn retries_are_off_without_the_switch_and_its_options_say_so() {
        assert_eq!(build_retry(&args(&[]), Protocol::Redis), Ok(None));
        let e = build_retry(&args(&["--max-retries", "2"]), Protocol::Redis).unwrap_err();
        assert_eq!(e.flag, "--max-retries");
    }

    #[test]
    fn the_default_policy_retries_transient_kinds_three_times() {
        let p = build_retry(&args(&["--retry-on-error"]), Protocol::Redis)
            .unwrap()
            .unwrap();
        assert_eq!(p.budget, RetryBudget::AtMost(3));
        assert!(p.retries(ServerErrorKind::Oom, 2));
        assert!(!p.retries(ServerErrorKind::Oom, 3));
        assert!(!p.retries(ServerErrorKind::WrongType, 0));
        assert!(!p.retries(ServerErrorKind::Err, 0));
    }

    #[test]
    fn minus_one_retries_without_limit() {
        let a = args(&["--retry-on-error", "--max-retries", "-1"]);
        let p = build_retry(&a, Protocol::Redis).unwrap().unwrap();
        assert!(p.retries(ServerErrorKind::Busy, u16::MAX));
        let a = args(&["--retry-on-error", "--max-retries", "-2"]);
        assert_eq!(
            build_retry(&a, Protocol::Redis).unwrap_err().flag,
            "--max-retries"
        );
    }

    #[test]
    fn retry_on_takes_prefixes_and_refuses_permanent_ones() {
        let a = args(&["--retry-on-error", "--retry-on", "oom,-BUSY"]);
        let p = build_retry(&a, Protocol::Redis).unwrap().unwrap();
        assert_eq!(
            p.on.kinds().collect::<Vec<_>>(),
            [ServerErrorKind::Oom, ServerErrorKind::Busy]
        );
        for bad in ["WRONGTYPE", "MOVED", "NOPE"] {
            let a = args(&["--retry-on-error", "--retry-on", bad]);
            let e = build_retry(&a, Protocol::Redis).unwrap_err();
            assert_eq!(e.flag, "--retry-on", "{bad}");
            assert!(e.message.contains(bad), "{e:?}");
        }
    }

    #[test]
    fn memcached_refuses_retries() {
        let a = args(&["--retry-on-error"]);
        assert!(build_retry(&a, Protocol::MemcacheText).is_err());
    }

    #[test]
    fn a_foreign_file_is_never_appended_to() {
        let dir = std::env::temp_dir().join(format!("kvbench-failed-keys-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ours = dir.join("ours.csv");
        std::fs::write(&ours, format!("{FAILED_KEYS_HEADER}\n")).unwrap();
        let theirs = dir.join("theirs.csv");
        std::fs::write(&theirs, "precious\n").unwrap();
        let empty = dir.join("empty.csv");
        std::fs::write(&empty, "").unwrap();
        for (path, ok) in [
            (&ours, true),
            (&empty, true),
            (&theirs, false),
            (&dir, false),
        ] {
            let a = args(&["--failed-keys-file", path.to_str().unwrap()]);
            assert_eq!(build_failed_keys(&a).is_ok(), ok, "{}", path.display());
        }
        assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "precious\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
