//! `--cluster-mode` and its options: how many redirects one request may
//! follow, and which nodes serve reads.

/// Redirects one request may follow before it counts as an error. redis-cli
/// follows without bound, which for a load generator risks a request that
/// circles forever; 16 is ioredis's `maxRedirections`, enough for a reshard
/// that moves a slot twice while the request is in flight.
pub const DEFAULT_MAX_REDIRECTS: u32 = 16;

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
}

impl ReadFrom {
    /// The name as typed.
    pub fn as_str(self) -> &'static str {
        match self {
            ReadFrom::Primary => "primary",
            ReadFrom::Replica => "replica",
            ReadFrom::Any => "any",
        }
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
