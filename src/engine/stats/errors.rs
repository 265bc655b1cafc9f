//! Failures that are not replies to a request, counted by kind and merged
//! with `+=` like the per-op counters.

use std::ops::AddAssign;

use crate::protocol::resp::ServerErrorKind;
use crate::protocol::wire::WireError;

/// Why bytes from the server could not be taken as replies: the first such
/// fault of a phase is kept beside the count, so that a run that measured
/// nothing can say why in the server's own terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtocolFault {
    /// The bytes are not a reply of the protocol (a bad type byte, a length
    /// over the limit, nesting too deep, a line without CRLF).
    Malformed(WireError),
    /// A reply arrived with no request in flight: the stream is out of step.
    Unsolicited,
    /// One reply outgrew the reply buffer's cap.
    TooLarge {
        /// The cap, bytes.
        limit: usize,
    },
    /// A handshake reply (HELLO, AUTH, SELECT, SASL) could not be decoded.
    Handshake,
    /// A read of one value (GET, HGET, ...) was answered by a reply of
    /// another type (`+OK`, an integer, an array): the server's replies are
    /// not this request's, e.g. a server that sends a reply twice, so the
    /// stream is out of step.
    WrongType,
}

impl std::fmt::Display for ProtocolFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProtocolFault::Malformed(e) => write!(f, "{e}"),
            ProtocolFault::Unsolicited => f.write_str("a reply arrived that no request asked for"),
            ProtocolFault::TooLarge { limit } => {
                write!(
                    f,
                    "a reply grew past the {} MiB reply cap",
                    limit / (1024 * 1024)
                )
            }
            ProtocolFault::Handshake => f.write_str("a handshake reply could not be decoded"),
            ProtocolFault::WrongType => f.write_str(
                "a request was answered by a reply of another type (a read of one value by no value or nil, a SET by a value or nil): the replies are out of step with the requests",
            ),
        }
    }
}

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
    /// The first of those faults, for the verdict's message (merged: the
    /// first side's, else the other's).
    pub first_protocol_fault: Option<ProtocolFault>,
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

    /// Counts one protocol fault, keeping the first one's cause.
    pub fn count_protocol(&mut self, fault: ProtocolFault) {
        self.protocol += 1;
        self.first_protocol_fault.get_or_insert(fault);
    }

    /// Every failure counted, as the text report's `Errors:` line lists
    /// them: `ERR replies 3, request timeouts 1, requests lost in flight 1`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        for (kind, n) in ServerErrorKind::ALL.iter().zip(self.server) {
            if n > 0 {
                parts.push(format!("{} replies {n}", kind.as_str()));
            }
        }
        for (name, n) in [
            ("connections lost", self.connection),
            ("reconnects refused", self.refused),
            ("request timeouts", self.timeouts),
            ("protocol errors", self.protocol),
            ("requests lost in flight", self.lost_requests),
            ("requests not sent to a node that was down", self.node_down),
            ("reconnects", self.reconnects),
        ] {
            if n > 0 {
                parts.push(format!("{name} {n}"));
            }
        }
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
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
        if self.first_protocol_fault.is_none() {
            self.first_protocol_fault = other.first_protocol_fault;
        }
        self.lost_requests += other.lost_requests;
        self.pushes += other.pushes;
        self.attributes += other.attributes;
        self.retries += other.retries;
        self.node_down += other.node_down;
        self.refreshes += other.refreshes;
    }
}
