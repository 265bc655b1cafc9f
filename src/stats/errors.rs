//! Failures that are not replies to a request, counted by kind and merged
//! with `+=` like the per-op counters.

use std::ops::AddAssign;

use crate::protocol::resp::ServerErrorKind;

/// Failures that are not a reply to a request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ErrorCounts {
    /// Server error replies, indexed like [`ServerErrorKind::ALL`].
    pub server: [u64; ServerErrorKind::ALL.len()],
    /// Connections closed by the peer or reset.
    pub connection: u64,
    /// Reconnects refused: the connect failed or the handshake got an error.
    pub refused: u64,
    /// Requests unanswered within `--request-timeout` (their connection is reset).
    pub timeouts: u64,
    /// Reconnects started (after a fault, or on purpose with `--reconnect-interval`).
    pub reconnects: u64,
    /// Replies that could not be decoded, or that nobody asked for.
    pub protocol: u64,
    /// Requests that were in flight on a connection that broke.
    pub lost_requests: u64,
    /// RESP3 push frames (invalidations, pub/sub messages): no error, and
    /// answering no request, so counted here rather than in any op's row.
    pub pushes: u64,
    /// RESP3 attribute frames (`|`) skipped before or inside replies: no
    /// error, and answering no request, so counted beside pushes.
    pub attributes: u64,
    /// `--cluster-mode`: requests sent again after `-TRYAGAIN` or
    /// `-CLUSTERDOWN`, after a bounded backoff. A retried reply is no error;
    /// one past `--max-redirects` is counted by kind in `server`.
    pub retries: u64,
    /// `--cluster-mode`: requests not sent because their node's connection
    /// was down (the node died or is being failed over); the other nodes'
    /// requests go on.
    pub node_down: u64,
    /// `--cluster-mode`: slot-map refreshes asked for after a MOVED.
    pub refreshes: u64,
}

impl ErrorCounts {
    /// Counts one server error reply by kind.
    pub fn count_server(&mut self, kind: ServerErrorKind) {
        if let Some(i) = ServerErrorKind::ALL.iter().position(|k| *k == kind) {
            self.server[i] += 1;
        }
    }

    /// All server error replies.
    pub fn server_total(&self) -> u64 {
        self.server.iter().sum()
    }

    /// Every failure, for `--max-errors`: error replies, lost connections,
    /// refused reconnects, timeouts and protocol errors.
    pub fn total(&self) -> u64 {
        self.server_total()
            + self.connection
            + self.refused
            + self.timeouts
            + self.protocol
            + self.node_down
    }

    /// True when nothing went wrong.
    pub fn is_clean(&self) -> bool {
        self.server_total() == 0
            && self.connection == 0
            && self.refused == 0
            && self.timeouts == 0
            && self.protocol == 0
            && self.lost_requests == 0
            && self.node_down == 0
    }
}

impl AddAssign<&ErrorCounts> for ErrorCounts {
    fn add_assign(&mut self, other: &ErrorCounts) {
        for (a, b) in self.server.iter_mut().zip(other.server) {
            *a += b;
        }
        self.connection += other.connection;
        self.refused += other.refused;
        self.timeouts += other.timeouts;
        self.reconnects += other.reconnects;
        self.protocol += other.protocol;
        self.lost_requests += other.lost_requests;
        self.pushes += other.pushes;
        self.attributes += other.attributes;
        self.retries += other.retries;
        self.node_down += other.node_down;
        self.refreshes += other.refreshes;
    }
}
