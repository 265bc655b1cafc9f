//! `--cluster-mode` and its options: how many redirects one request may
//! follow, and which nodes serve reads; and the checks that refuse them
//! where they cannot work (without `--cluster-mode`, with memcached, over a
//! Unix socket).

use crate::cli::Args;
use crate::config::target::{Endpoint, Target};
use crate::error::UsageError;
use crate::protocol::options::Setting;

/// Redirects one request may follow before it counts as an error. redis-cli
/// follows without bound, which for a load generator risks a request that
/// circles forever; 16 is ioredis's `maxRedirections`, enough for a reshard
/// that moves a slot twice while the request is in flight.
pub const DEFAULT_MAX_REDIRECTS: u32 = 16;

/// The most redirects `--max-redirects` accepts: a request that needs more
/// is circling between nodes that disagree, not following a reshard.
pub const MAX_MAX_REDIRECTS: u32 = 1000;

/// Which nodes serve read commands (`--read-from`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadFrom {
    /// Every request goes to the slot's master (the default, memtier's only mode).
    #[default]
    Primary,
    /// Reads go to the slot's replicas (after `READONLY`), writes to its master.
    Replica,
    /// Reads go to the master or a replica, spread by connection.
    Any,
    /// Reads go to the node of the slot's shard (master or replica) that
    /// answered PING fastest when the run started (memtier 2.4's `nearest`).
    Nearest,
}

impl ReadFrom {
    /// The name as typed.
    pub fn as_str(self) -> &'static str {
        match self {
            ReadFrom::Primary => "primary",
            ReadFrom::Replica => "replica",
            ReadFrom::Any => "any",
            ReadFrom::Nearest => "nearest",
        }
    }

    /// The value of `--read-from`, as typed.
    pub fn parse(text: &str) -> Option<ReadFrom> {
        [
            ReadFrom::Primary,
            ReadFrom::Replica,
            ReadFrom::Any,
            ReadFrom::Nearest,
        ]
        .into_iter()
        .find(|r| r.as_str() == text)
    }
}

/// What `--cluster-mode` adds to a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClusterOptions {
    /// `--max-redirects`: MOVED/ASK one request may follow.
    pub max_redirects: u32,
    /// `--read-from`.
    pub read_from: ReadFrom,
}

impl Default for ClusterOptions {
    fn default() -> Self {
        ClusterOptions {
            max_redirects: DEFAULT_MAX_REDIRECTS,
            read_from: ReadFrom::Primary,
        }
    }
}

/// `--cluster-mode`, `--max-redirects` and `--read-from`, checked against
/// each other and against the target: `None` without `--cluster-mode`.
pub(crate) fn build_cluster(
    a: &Args,
    target: &Target,
) -> Result<Option<ClusterOptions>, UsageError> {
    if !a.cluster_mode {
        // `--read-from` also spreads the reads of a `--read-server` run.
        let read_server = a.read_server.as_ref().is_some_and(|s| !s.is_empty());
        for (flag, given, fix) in [
            (
                "--max-redirects",
                a.max_redirects.is_some(),
                "applies only to a Redis Cluster; add --cluster-mode or remove it",
            ),
            (
                "--read-from",
                a.read_from.is_some() && !read_server,
                "routes reads to replicas: add --cluster-mode (a Redis Cluster's replicas) or --read-server HOST:PORT (a standalone read endpoint), or remove it",
            ),
        ] {
            if given {
                return Err(UsageError::new(flag, fix));
            }
        }
        return Ok(None);
    }
    super::connection::refused(target.protocol, [Setting::Cluster])?;
    if let Endpoint::Unix(path) = &target.endpoint {
        return Err(UsageError::new(
            "--cluster-mode",
            format!(
                "needs TCP: cluster nodes announce host:port addresses, so a Unix socket ({}) cannot reach them; give the seed with --server/--port",
                path.display()
            ),
        ));
    }
    let max_redirects = a.max_redirects.unwrap_or(DEFAULT_MAX_REDIRECTS);
    if !(1..=MAX_MAX_REDIRECTS).contains(&max_redirects) {
        return Err(UsageError::new(
            "--max-redirects",
            format!(
                "must be 1 to {MAX_MAX_REDIRECTS} (got {max_redirects}); the default is {DEFAULT_MAX_REDIRECTS}"
            ),
        ));
    }
    let read_from = match a.read_from.as_deref() {
        None => ReadFrom::Primary,
        Some(text) => ReadFrom::parse(text).ok_or_else(|| {
            UsageError::new(
                "--read-from",
                format!("'{text}' is not a choice; use primary, replica, any or nearest"),
            )
        })?,
    };
    Ok(Some(ClusterOptions {
        max_redirects,
        read_from,
    }))
}
