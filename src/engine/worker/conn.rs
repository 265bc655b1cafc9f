//! One benchmark connection: its socket, its buffers, its queue of requests in
//! flight, its protocol state (the handshake step, memcached's opaques, the
//! commands a transaction queued) and the states Connecting → Handshaking →
//! Ready → Closed (and, after a fault, back to Connecting when the worker
//! reconnects it). It only talks: what to send and when belongs to its client
//! (`crate::engine::worker::client`), and what a reply changes — the counters, a
//! cluster node's figures, `--client-stats`, a redirect or retry handed back,
//! a SCAN cursor — to the [`Recorder`] its worker gives it
//! (`crate::engine::worker::recorder`). Socket reads and writes live in
//! `conn/io.rs`.
//!
//! Requests are encoded into the write buffer and written in one `write` per
//! wake-up, as many as the pipeline window allows. Each new request's send
//! time is taken just before that write ([`Conn::send`]), and its reply is
//! timed at the `read` that delivered the reply's last byte: service time =
//! reply fully read − request handed to the socket. With `--rate`, requests are queued only once their intended
//! time (from its client's [`crate::engine::worker::schedule::Schedule`]) has come, and the headline latency is
//! the response time = reply fully read − intended send time. Replies arrive in
//! order (RESP and memcached text have no request ids), so the reply at the
//! front of the read buffer answers the request at the front of the queue —
//! except a RESP3 push, which answers none and is counted apart. memcached's
//! binary responses echo the request's opaque (its number since the connect),
//! which is checked against the front of the queue.

use std::collections::VecDeque;
use std::time::Instant;

use crate::engine::stats::errors::ProtocolFault;
use crate::engine::worker::net::Stream;
use crate::engine::worker::request::Queued;
use crate::protocol::resp::ServerErrorKind;
use crate::protocol::wire::{Outcome, Protocol};

/// The smallest read buffer; it grows when a single reply needs more.
const MIN_READ_BUFFER: usize = 4096;

/// The largest read buffer a connection starts with, however deep its pipeline:
/// one `read` of this size already drains a socket for thousands of small
/// replies, and a larger reply grows the buffer to fit it (up to `max_reply`).
const MAX_START_READ_BUFFER: usize = 256 * 1024;

/// Encoded bytes not yet taken by the socket past which no further request is
/// encoded. The write buffer is bounded by these bytes, not by the pipeline
/// depth: a deep pipeline of large values would otherwise hold
/// pipeline × value size in memory per connection. Requests the socket has
/// taken are in flight and cost only their in-flight queue entry.
pub const WRITE_BUDGET: usize = 256 * 1024;

/// The memory of one in-flight queue entry.
pub const IN_FLIGHT_BYTES: usize = std::mem::size_of::<InFlight>();

/// A request written (or about to be) and not yet answered.
#[derive(Debug, Clone, Copy)]
pub struct InFlight {
    /// Its op, row, first key and length: the row and hit semantics count its
    /// reply, the length is added to the row's bytes sent when the reply comes
    /// (memtier's accounting), op and key let a redirect send it again.
    pub queued: Queued,
    /// When the schedule meant it to be sent (the send time in a closed loop).
    pub intended_at: Instant,
    /// When it was first handed to a socket: a redirected request keeps it,
    /// so its latency runs from its first send. `None` only between its
    /// queueing and the write that sends it ([`Conn::send`]).
    pub sent_at: Option<Instant>,
}

impl InFlight {
    /// When it was first handed to a socket (its intended time, before that).
    #[inline]
    pub fn sent(&self) -> Instant {
        self.sent_at.unwrap_or(self.intended_at)
    }
}

/// A reply to a request of the workload, as the connection hands it over.
#[derive(Debug)]
pub struct Reply<'a> {
    /// The request it answers, taken off the in-flight queue.
    pub request: InFlight,
    /// What the reply is.
    pub outcome: Outcome,
    /// Its bytes.
    pub bytes: &'a [u8],
    /// The read that delivered its last byte.
    pub at: Instant,
    /// `--transaction`: for the reply to a rotation's `EXEC` (or `DISCARD`),
    /// the commands answered `+QUEUED` before it, in order: the row of each
    /// GET-like one, whose hit or miss the reply's elements say.
    pub transaction: &'a [Option<u16>],
}

/// What a connection tells its worker: every reply, and every fault it
/// met. The worker does all the accounting.
pub trait Recorder {
    /// A reply to a request of the workload.
    fn reply(&mut self, reply: Reply<'_>);
    /// The reply to an `ASKING` sent ahead of a redirected request, which
    /// answers no request of the workload.
    fn asking(&mut self, outcome: Outcome);
    /// A RESP3 push, which answers no request.
    fn push(&mut self);
    /// RESP3 attributes that annotated a reply.
    fn attributes(&mut self, count: u64);
    /// An error reply to a handshake step (e.g. `-LOADING`).
    fn handshake_error(&mut self, kind: ServerErrorKind);
    /// Bytes that are not what the protocol allows here.
    fn fault(&mut self, fault: ProtocolFault);
    /// The connection closed.
    fn closed(&mut self, closed: Closed);
}

/// A connection closed: why, and the requests it lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed {
    /// Why.
    pub reason: CloseReason,
    /// Requests of the workload in flight, never answered.
    pub lost: u64,
}

/// Where a connection is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnState {
    /// A non-blocking connect is in progress (reconnecting during a run).
    Connecting,
    /// Connected; waiting for handshake reply number `.0`.
    Handshaking(usize),
    /// Connected and prepared; sending and receiving.
    Ready,
    /// Broken, refused or shut; the worker may reconnect it.
    Closed,
}

/// Why a connection was closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseReason {
    /// The peer closed or reset it, or I/O failed.
    Connection,
    /// The connect failed, or the handshake got an error reply.
    Refused,
    /// A reply did not come within `--request-timeout`.
    Timeout,
    /// The peer sent something that is not a valid reply, or a reply nobody asked for.
    Protocol,
    /// `--reconnect-interval`: closed on purpose to reconnect.
    Recycle,
}

/// One connection of a client.
pub struct Conn {
    stream: Stream,
    state: ConnState,
    pipeline: usize,
    inflight: VecDeque<InFlight>,
    wbuf: Vec<u8>,
    wpos: usize,
    rbuf: Vec<u8>,
    rstart: usize,
    rend: usize,
    /// Why it was last closed.
    closed_by: Option<CloseReason>,
    /// Set when the connection became ready (handshake done) and not yet
    /// taken: the worker then resets its reconnect attempts.
    became_ready: bool,
    /// Requests sent since the connection was (re)established.
    sent_since_connect: u64,
    /// `--reconnect-interval`: reconnect after this many requests (0 = never).
    recycle_after: u64,
    /// The most a single reply may occupy; a larger one is a protocol error.
    max_reply: usize,
    /// The server sent bytes nobody asked for with the handshake replies; the
    /// first phase counts that as a protocol error and resets the connection.
    pub unsolicited: bool,
    /// The wire its replies are decoded as.
    protocol: Protocol,
    /// True when a fresh connection sends a handshake and awaits its replies
    /// (false for memcached, which has none).
    expects_handshake: bool,
    /// The opaque of the next request encoded, and of the oldest one awaiting a
    /// reply: requests are numbered from 0 on each (re)connect, so memcached's
    /// binary responses can be checked against the order they must come in.
    opaque_sent: u32,
    opaque_due: u32,
    /// Requests queued since the last write, whose send time that write
    /// sets (the newest entries of `inflight`).
    unstamped: usize,
    /// `--key-prefix`, for checking the key a memcached text `VALUE` names
    /// (the other protocols' replies name no key).
    key_prefix: Box<[u8]>,
    /// `--transaction`: the commands answered `+QUEUED` since the last
    /// `EXEC`, in order (see [`transaction`]).
    queued: Vec<Option<u16>>,
}

mod io;
mod transaction;

/// Whole microseconds from `earlier` to `later`, 0 if `later` is not later.
#[inline]
pub(crate) fn micros_between(earlier: Instant, later: Instant) -> u64 {
    later.saturating_duration_since(earlier).as_micros() as u64
}

impl Conn {
    /// Wraps a prepared stream. `request_hint` (typical bytes of a request or
    /// reply) sizes the read buffer so that a pipeline window of typical replies
    /// fits, up to 256 KiB; `max_reply` caps its growth, so a
    /// hostile or broken server cannot make kvbench allocate without bound.
    /// `max_request` (the largest request the workload encodes) sizes the write
    /// buffer once: it never holds more than [`WRITE_BUDGET`] + one request.
    pub fn new(
        stream: Stream,
        pipeline: usize,
        request_hint: usize,
        max_request: usize,
        max_reply: usize,
        recycle_after: u64,
    ) -> Self {
        let size = pipeline
            .saturating_mul(request_hint)
            .clamp(MIN_READ_BUFFER, MAX_START_READ_BUFFER)
            .min(max_reply);
        Conn {
            stream,
            state: ConnState::Ready,
            pipeline,
            inflight: VecDeque::with_capacity(pipeline),
            wbuf: Vec::with_capacity(WRITE_BUDGET + max_request),
            wpos: 0,
            rbuf: vec![0; size],
            rstart: 0,
            rend: 0,
            closed_by: None,
            became_ready: false,
            sent_since_connect: 0,
            recycle_after,
            max_reply,
            unsolicited: false,
            protocol: Protocol::Redis,
            expects_handshake: true,
            opaque_sent: 0,
            opaque_due: 0,
            unstamped: 0,
            key_prefix: Box::default(),
            queued: Vec::new(),
        }
    }

    /// Sets the wire its requests and replies use (RESP2 unless told).
    #[must_use]
    pub fn with_protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// `--key-prefix` of the keys its requests name (memcached text checks
    /// each `VALUE` against the key asked).
    #[must_use]
    pub fn with_key_prefix(mut self, prefix: &[u8]) -> Self {
        self.key_prefix = prefix.into();
        self
    }

    /// Starts over on a new, still-connecting stream: everything in flight on the
    /// old one is already counted as lost. The handshake bytes go out first.
    pub fn reconnect(&mut self, stream: Stream, handshake: &[u8]) {
        self.stream = stream;
        self.restart(handshake);
    }

    /// A connection whose stream is still connecting (a node first met during
    /// the run): the handshake goes out once it connects.
    #[must_use]
    pub fn connecting(mut self, handshake: &[u8]) -> Self {
        self.restart(handshake);
        self
    }

    fn restart(&mut self, handshake: &[u8]) {
        self.state = ConnState::Connecting;
        self.inflight.clear();
        // A transaction does not outlive its connection.
        self.queued.clear();
        self.wbuf.clear();
        self.wbuf.extend_from_slice(handshake);
        // Every handshake step sends a command, so no bytes means no replies to await.
        self.expects_handshake = !handshake.is_empty();
        self.opaque_sent = 0;
        self.opaque_due = 0;
        self.unstamped = 0;
        self.wpos = 0;
        self.rstart = 0;
        self.rend = 0;
        self.sent_since_connect = 0;
    }

    /// Send time of the oldest request still unanswered.
    pub fn oldest_sent_at(&self) -> Option<Instant> {
        self.inflight.front().map(InFlight::sent)
    }

    /// `--reconnect-interval`: the connection has sent its share and every reply
    /// is in; the worker closes and reconnects it (when its client has more to send).
    pub fn wants_recycle(&self) -> bool {
        self.state == ConnState::Ready
            && self.recycle_after > 0
            && self.sent_since_connect >= self.recycle_after
            && self.inflight.is_empty()
    }

    /// The mio source, for registration.
    pub fn stream_mut(&mut self) -> &mut Stream {
        &mut self.stream
    }

    /// Changes the pipeline window for the next phase (the prefill uses a deeper
    /// one); requests already in flight are unaffected.
    pub fn set_pipeline(&mut self, pipeline: usize) {
        self.pipeline = pipeline.max(1);
    }

    /// Current state.
    pub fn state(&self) -> ConnState {
        self.state
    }

    /// Why it was last closed.
    pub fn closed_by(&self) -> Option<CloseReason> {
        self.closed_by
    }

    /// True once after the connection became ready (connect and handshake done).
    pub fn take_became_ready(&mut self) -> bool {
        std::mem::take(&mut self.became_ready)
    }

    /// Requests awaiting replies.
    pub fn in_flight(&self) -> usize {
        self.inflight.len()
    }

    /// Nothing in flight and nothing left to write.
    pub fn is_idle(&self) -> bool {
        self.inflight.is_empty() && self.wpos >= self.wbuf.len()
    }

    /// True when one more request may be queued now: ready, the pipeline
    /// window not full, the write budget not spent and no recycle due.
    pub fn has_room(&self) -> bool {
        self.state == ConnState::Ready
            && self.inflight.len() < self.pipeline
            && self.wbuf.len() - self.wpos < WRITE_BUDGET
            && (self.recycle_after == 0 || self.sent_since_connect < self.recycle_after)
    }

    /// Queues one request: `encode` appends it to the write buffer (given the
    /// opaque memcached's binary protocol echoes) and says what to keep of it,
    /// or `None` when there was nothing to send. `sent_at`: a request sent
    /// before (a redirect, a retry) keeps its first send time; a new one
    /// (`None`) is timed by the write that sends it. Allocation-free apart
    /// from the buffer's first growth.
    #[inline]
    pub fn queue(
        &mut self,
        encode: impl FnOnce(&mut Vec<u8>, u32) -> Option<Queued>,
        intended_at: Instant,
        sent_at: Option<Instant>,
    ) -> Option<Queued> {
        // Bytes the socket already took are dropped before more are added, so the
        // buffer holds only what is still to be written; the copy is at most
        // WRITE_BUDGET bytes, and only when the socket was full.
        if self.wpos > 0 {
            self.wbuf.drain(..self.wpos);
            self.wpos = 0;
        }
        let queued = encode(&mut self.wbuf, self.opaque_sent)?;
        self.opaque_sent = self.opaque_sent.wrapping_add(1);
        self.sent_since_connect += 1;
        self.unstamped += 1;
        self.inflight.push_back(InFlight {
            queued,
            intended_at,
            sent_at,
        });
        Some(queued)
    }

    /// Writes what is queued, its new requests timed just before the write;
    /// an error closes the connection.
    pub fn send(&mut self) -> Option<Closed> {
        if self.state != ConnState::Ready {
            return None;
        }
        if self.unstamped > 0 {
            let now = Instant::now();
            let from = self.inflight.len().saturating_sub(self.unstamped);
            for r in self.inflight.range_mut(from..) {
                r.sent_at.get_or_insert(now);
            }
            self.unstamped = 0;
        }
        self.flush().err().and_then(|reason| self.close(reason))
    }

    /// Closes the connection; says why and what was lost (`None` when it
    /// was closed already). The worker counts it and decides whether to
    /// reconnect it.
    pub fn close(&mut self, reason: CloseReason) -> Option<Closed> {
        if self.state == ConnState::Closed {
            return None;
        }
        self.state = ConnState::Closed;
        self.closed_by = Some(reason);
        self.stream.shutdown();
        // ASKING markers are no requests of the workload.
        let lost = self.inflight.iter().filter(|r| !r.queued.asking).count();
        self.inflight.clear();
        self.unstamped = 0;
        self.wbuf.clear();
        self.wpos = 0;
        Some(Closed {
            reason,
            lost: lost as u64,
        })
    }
}

#[cfg(test)]
mod tests;
