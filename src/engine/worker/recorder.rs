//! The worker's accounting of what its connections report
//! ([`crate::engine::worker::conn::Recorder`]): each reply counted in its op's row
//! (latency, bytes, errors, hits and misses), on its cluster node and in
//! `--client-stats`' tally; a redirect, or an error reply
//! `--retry-on-error` or `--failed-keys-file` wants, handed back to the
//! client; the cursor of a SCAN reply kept for it; a transaction's hits and
//! misses counted from its `EXEC`; the faults and the closes counted.
//!
//! What the worker keeps per connection for this is its [`Book`]; a
//! [`Recording`] joins it to the thread's counters for one wake-up. Nothing
//! here allocates per reply: the bounce list keeps its memory.

use std::time::Instant;

use crate::config::Config;
use crate::engine::cluster::redirect;
use crate::engine::stats::Stats;
use crate::engine::stats::errors::ProtocolFault;
use crate::engine::worker::client_stats::Tally;
use crate::engine::worker::conn::{CloseReason, Closed, InFlight, Recorder, Reply, micros_between};
use crate::engine::worker::request::{Hits, Queued, ScanReply};
use crate::engine::worker::retry::HandBack;
use crate::protocol::resp::ServerErrorKind;
use crate::protocol::wire::{self, Outcome, Protocol};

/// A reply that sends its request elsewhere (`--cluster-mode`), or an error
/// reply that `--retry-on-error` or `--failed-keys-file` asks the client to
/// settle: the worker's recorder hands the request back instead of counting it.
#[derive(Debug, Clone)]
pub struct Bounce {
    /// The request, as it was in flight.
    pub request: InFlight,
    /// MOVED, ASK, TRYAGAIN or CLUSTERDOWN; any kind when handed back.
    pub kind: ServerErrorKind,
    /// For MOVED and ASK: the slot and the node (`host:port`) named.
    pub to: Option<(u16, String)>,
    /// Reply bytes, for the row's bytes received.
    pub bytes: usize,
}

/// What the worker keeps about one connection's replies.
#[derive(Debug, Clone, Default)]
pub struct Book {
    /// `--cluster-mode`, `--read-server`: the index of its node in the
    /// worker's node list, for the per-node counters; `None` for one server.
    pub node: Option<usize>,
    /// A connection to a replica serving reads (`--read-from`, or the
    /// `--read-server` endpoint), whose replies count as replica reads.
    pub replica: bool,
    /// `--client-stats`: this second's replies per report row (empty when
    /// off); the worker takes them once a second.
    pub tally: Box<[Tally]>,
    /// Replies that send their request elsewhere or that the client
    /// settles, for the client to take after each wake-up.
    pub bounces: Vec<Bounce>,
    /// `--scan-incremental-iteration`: the cursor of the last SCAN reply,
    /// until the client takes it.
    pub scan_reply: Option<ScanReply>,
}

impl Book {
    /// A book for a connection of `config`'s run to node `node`.
    pub fn new(config: &Config, node: Option<usize>, replica: bool) -> Book {
        let rows = if config.ramp.client_stats.is_some() {
            config.ops.rows.len()
        } else {
            0
        };
        Book {
            node,
            replica,
            tally: vec![Tally::default(); rows].into_boxed_slice(),
            bounces: Vec::new(),
            scan_reply: None,
        }
    }
}

/// How replies are read, the same for every connection of a run.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// The wire.
    pub protocol: Protocol,
    /// The error replies handed back to the client.
    pub hand_back: HandBack,
    /// `--scan-incremental-iteration`: every reply is a SCAN's, whose
    /// cursor is read.
    pub reads_scan_cursors: bool,
}

impl Rules {
    /// `config`'s.
    pub fn for_config(config: &Config) -> Rules {
        Rules {
            protocol: config.target.protocol,
            hand_back: HandBack::for_config(config),
            reads_scan_cursors: config.ops.scan.is_some(),
        }
    }
}

/// One connection's book joined to the thread's counters.
pub struct Recording<'a> {
    /// The thread's counters.
    pub stats: &'a mut Stats,
    /// The connection's book.
    pub book: &'a mut Book,
    /// The run's rules.
    pub rules: Rules,
}

impl Recorder for Recording<'_> {
    #[inline]
    fn reply(&mut self, r: Reply<'_>) {
        let Reply {
            request,
            outcome,
            bytes,
            at,
            transaction,
        } = r;
        let Rules {
            protocol,
            hand_back,
            reads_scan_cursors,
        } = self.rules;
        if reads_scan_cursors {
            self.book.scan_reply = Some(scan_reply(protocol, outcome, bytes));
        }
        let queued = request.queued;
        if queued.ends_transaction {
            self.count_transaction(protocol, transaction, bytes);
        }
        if let Outcome::Error(kind) = outcome
            && ((self.book.node.is_some() && kind.routes()) || hand_back.wants(kind))
        {
            self.book.bounces.push(Bounce {
                request,
                kind,
                to: redirect_target(bytes),
                bytes: bytes.len(),
            });
            return;
        }
        let (hits, misses) = found(protocol, queued, outcome, bytes);
        let latency = record(
            self.stats,
            &request,
            (outcome, hits, misses),
            bytes.len(),
            at,
        );
        if let Some(t) = self.book.tally.get_mut(usize::from(queued.row)) {
            t.count += 1;
            t.latency_sum_us += latency;
            t.bytes_tx += u64::from(queued.len);
            t.bytes_rx += bytes.len() as u64;
            t.hits += hits;
            t.misses += misses;
        }
        if let Some(node) = self.book.node.and_then(|n| self.stats.nodes.get_mut(n)) {
            node.record(latency);
            node.replica_reads += u64::from(self.book.replica);
            node.hits += hits;
            node.misses += misses;
            if let Outcome::Error(_) = outcome {
                node.errors += 1;
            }
        }
    }

    fn asking(&mut self, outcome: Outcome) {
        // An error means the node will not serve the asked request as
        // migrating: it is counted on the node, so the warning can name it.
        if let (Outcome::Error(_), Some(node)) = (
            outcome,
            self.book.node.and_then(|n| self.stats.nodes.get_mut(n)),
        ) {
            node.asking_refused += 1;
        }
    }

    fn push(&mut self) {
        self.stats.errors.pushes += 1;
    }

    fn attributes(&mut self, count: u64) {
        self.stats.errors.attributes += count;
    }

    fn handshake_error(&mut self, kind: ServerErrorKind) {
        self.stats.errors.count_server(kind);
    }

    fn fault(&mut self, fault: ProtocolFault) {
        self.stats.errors.count_protocol(fault);
    }

    fn closed(&mut self, closed: Closed) {
        count_closed(self.stats, closed);
    }
}

impl Recording<'_> {
    /// The hits and misses of the GET-like commands a transaction queued,
    /// `rows`, said by the elements of its `EXEC` reply `bytes`: a value is
    /// a hit, a nil a miss. An `EXEC` aborted by `WATCH` (a nil) or refused
    /// (`-EXECABORT`) ran nothing, and an array of another length than the
    /// commands queued would pair replies with the wrong commands: neither
    /// counts.
    fn count_transaction(&mut self, protocol: Protocol, rows: &[Option<u16>], bytes: &[u8]) {
        if wire::exec_outcomes(protocol, bytes, |_, _| {}) != Some(rows.len()) {
            return;
        }
        let (stats, book) = (&mut *self.stats, &mut *self.book);
        wire::exec_outcomes(protocol, bytes, |index, element| {
            let Some(Some(row)) = rows.get(index).copied() else {
                return;
            };
            let row = usize::from(row);
            let hit = match element {
                Outcome::Value => true,
                Outcome::Nil => false,
                _ => return,
            };
            let op = stats.op_mut(row);
            count(&mut op.hits, &mut op.misses, hit);
            if let Some(t) = book.tally.get_mut(row) {
                count(&mut t.hits, &mut t.misses, hit);
            }
            if let Some(n) = book.node.and_then(|n| stats.nodes.get_mut(n)) {
                count(&mut n.hits, &mut n.misses, hit);
            }
        });
    }
}

fn count(hits: &mut u64, misses: &mut u64, hit: bool) {
    if hit {
        *hits += 1;
    } else {
        *misses += 1;
    }
}

/// Counts a close: why, and the requests lost with it.
pub fn count_closed(stats: &mut Stats, closed: Closed) {
    match closed.reason {
        CloseReason::Connection => stats.errors.connection += 1,
        CloseReason::Refused => stats.errors.refused += 1,
        CloseReason::Timeout => stats.errors.timeouts += 1,
        // Counted where the bad bytes were found; a recycle is no error.
        CloseReason::Protocol | CloseReason::Recycle => {}
    }
    stats.errors.lost_requests += closed.lost;
}

/// Counts one reply to `request`, `(outcome, hits, misses)`, `used` bytes
/// long, in its op's row; returns the headline latency recorded. Also used
/// for a redirect past `--max-redirects`, or a handed-back error that is
/// final, which count as the error reply they are.
pub fn record(
    stats: &mut Stats,
    request: &InFlight,
    (reply, hits, misses): (Outcome, u64, u64),
    used: usize,
    now: Instant,
) -> u64 {
    let service_us = micros_between(request.sent(), now);
    let queued = request.queued;
    let op = stats.op_mut(usize::from(queued.row));
    let headline = if op.service_us.is_some() {
        // Open loop only: a closed loop's intended time is its send time.
        let response_us = micros_between(request.intended_at, now);
        op.record_open_loop(response_us, service_us);
        if op.response_us.is_some() {
            service_us
        } else {
            response_us
        }
    } else {
        op.record(service_us);
        service_us
    };
    op.bytes_rx += used as u64;
    op.bytes_tx += u64::from(queued.len);
    op.hits += hits;
    op.misses += misses;
    if let Outcome::Error(kind) = reply {
        op.count_error(kind);
        stats.errors.count_server(kind);
    }
    headline
}

/// The hits and misses of `reply` to `queued`, its outcome `outcome`: a
/// GET-like command's nil is a miss and its value a hit; a multi-key or
/// collection command's reply says its own ([`wire::found`]); others count
/// neither.
#[inline]
fn found(protocol: Protocol, queued: Queued, outcome: Outcome, reply: &[u8]) -> (u64, u64) {
    match (outcome, queued.hits) {
        (Outcome::Nil, Hits::Single) => (0, 1),
        (Outcome::Value, Hits::Single) => (1, 0),
        (Outcome::Error(_) | Outcome::Push, _) | (_, Hits::None | Hits::Single) => (0, 0),
        (_, Hits::Shape(lookup)) => wire::found(protocol, reply, lookup).unwrap_or((0, 0)),
    }
}

/// What a reply to a SCAN says of the iteration: an error restarts it (its
/// text could hold digits), any other reply gives its cursor, if it has one.
fn scan_reply(protocol: Protocol, outcome: Outcome, reply: &[u8]) -> ScanReply {
    match outcome {
        Outcome::Error(_) => ScanReply::Restart,
        _ => wire::scan_cursor(protocol, reply).map_or(ScanReply::Restart, ScanReply::Cursor),
    }
}

/// The slot and node a `-MOVED`/`-ASK` reply names (`None` for other
/// replies, or one that does not parse).
fn redirect_target(reply: &[u8]) -> Option<(u16, String)> {
    // `-MOVED 3999 127.0.0.1:6381\r\n`, or RESP3's blob error `!<len>\r\n…\r\n`.
    let body = match reply.first()? {
        b'-' => &reply[1..],
        b'!' => {
            let start = reply.iter().position(|&b| b == b'\n')? + 1;
            &reply[start..]
        }
        _ => return None,
    };
    let body = body.strip_suffix(b"\r\n").unwrap_or(body);
    let redirect = redirect::parse(body)?;
    Some((redirect.slot, redirect.node))
}
