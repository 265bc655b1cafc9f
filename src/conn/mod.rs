//! One benchmark connection: its buffers, its queue of requests in flight, and the
//! states Connecting → Handshaking → Ready → Closed (and, after a fault, back to
//! Connecting when the worker reconnects it). Socket reads and writes live in
//! `conn/io.rs`.
//!
//! Requests are encoded into the write buffer and written in one `write` per
//! wake-up, as many as the pipeline window allows. Each request's send time is
//! taken just before that write, and its reply is timed at the `read` that
//! delivered the reply's last byte: service time = reply fully read − request
//! handed to the socket. With `--rate`, requests are sent only once their intended
//! time (from the connection's [`Schedule`]) has come, and the headline latency is
//! the response time = reply fully read − intended send time. Replies arrive in
//! order (RESP and memcached text have no request ids), so the reply at the
//! front of the read buffer answers the request at the front of the queue —
//! except a RESP3 push, which answers none and is counted apart. memcached's
//! binary responses echo the request's opaque (its number since the connect),
//! which is checked against the front of the queue.

use std::collections::VecDeque;
use std::time::Instant;

use crate::net::Stream;
use crate::protocol::wire::Protocol;
use crate::request::{Queued, RequestSource};
use crate::schedule::Schedule;
use crate::stats::{Stats, record_into};
use crate::workload::values::ValuePool;

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

/// The deepest `--pipeline` accepted. The in-flight queue holds one entry per
/// request in the window, so this bounds it at `MAX_PIPELINE` × [`IN_FLIGHT_BYTES`]
/// per connection (3.5 MiB).
pub const MAX_PIPELINE: usize = 65_536;

/// The memory of one in-flight queue entry.
pub const IN_FLIGHT_BYTES: usize = std::mem::size_of::<InFlight>();

/// A request written (or about to be) and not yet answered.
#[derive(Debug, Clone, Copy)]
struct InFlight {
    /// Its op, row, first key and length: the row and hit semantics count its
    /// reply, the length is added to the row's bytes sent when the reply comes
    /// (memtier's accounting), op and key let a redirect send it again.
    queued: Queued,
    /// When the schedule meant it to be sent (the send time in a closed loop).
    intended_at: Instant,
    sent_at: Instant,
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

/// One connection of a worker.
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
    /// The request stream of the current phase.
    pub source: Option<RequestSource>,
    /// With `--rate`: the intended send times of the current phase.
    pub schedule: Option<Schedule>,
    /// True while the worker holds a wake-up for this connection's next due time.
    pub timer_queued: bool,
    /// Reconnect attempts since the connection was last ready.
    pub reconnect_attempts: u32,
    /// True while the worker holds a reconnect for this connection.
    pub reconnect_queued: bool,
    /// Why it was last closed.
    pub closed_by: Option<CloseReason>,
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
}

mod io;

/// Whole microseconds from `earlier` to `later`, 0 if `later` is not later.
#[inline]
fn micros_between(earlier: Instant, later: Instant) -> u64 {
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
            source: None,
            schedule: None,
            timer_queued: false,
            reconnect_attempts: 0,
            reconnect_queued: false,
            closed_by: None,
            sent_since_connect: 0,
            recycle_after,
            max_reply,
            unsolicited: false,
            protocol: Protocol::Redis,
            expects_handshake: true,
            opaque_sent: 0,
            opaque_due: 0,
        }
    }

    /// Sets the wire its requests and replies use (RESP2 unless told).
    #[must_use]
    pub fn with_protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// Starts over on a new, still-connecting stream: everything in flight on the
    /// old one is already counted as lost. The handshake bytes go out first.
    pub fn reconnect(&mut self, stream: Stream, handshake: &[u8]) {
        self.stream = stream;
        self.state = ConnState::Connecting;
        self.inflight.clear();
        self.wbuf.clear();
        self.wbuf.extend_from_slice(handshake);
        // Every handshake step sends a command, so no bytes means no replies to await.
        self.expects_handshake = !handshake.is_empty();
        self.opaque_sent = 0;
        self.opaque_due = 0;
        self.wpos = 0;
        self.rstart = 0;
        self.rend = 0;
        self.sent_since_connect = 0;
        self.reconnect_queued = false;
        self.timer_queued = false;
    }

    /// Send time of the oldest request still unanswered.
    pub fn oldest_sent_at(&self) -> Option<Instant> {
        self.inflight.front().map(|r| r.sent_at)
    }

    /// `--reconnect-interval`: the connection has sent its share and every reply
    /// is in; the worker closes and reconnects it.
    pub fn wants_recycle(&self) -> bool {
        self.state == ConnState::Ready
            && self.recycle_after > 0
            && self.sent_since_connect >= self.recycle_after
            && self.inflight.is_empty()
            // A connection with nothing left to send has no use for a new one.
            && self.source.as_ref().is_some_and(|s| !s.exhausted())
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

    /// Requests awaiting replies.
    pub fn in_flight(&self) -> usize {
        self.inflight.len()
    }

    /// True when this connection has nothing more to do in the phase: closed, or
    /// nothing in flight and nothing more to send (`sending` is false once the
    /// phase's deadline has passed).
    pub fn is_done(&self, sending: bool) -> bool {
        match self.state {
            // A reconnect in progress has work to do while the phase is sending.
            ConnState::Closed if self.reconnect_queued => return !sending,
            ConnState::Closed => return true,
            ConnState::Connecting | ConnState::Handshaking(_) => return !sending,
            ConnState::Ready => {}
        }
        let idle = self.inflight.is_empty() && self.wpos >= self.wbuf.len();
        idle && (!sending || self.source.as_ref().is_none_or(RequestSource::exhausted))
    }

    /// Tops the pipeline window up with new requests (when `sending`) and writes
    /// whatever is pending. Errors close the connection and are counted in `stats`.
    pub fn refill(&mut self, sending: bool, values: &ValuePool, prefix: &[u8], stats: &mut Stats) {
        if self.state != ConnState::Ready {
            return;
        }
        if sending && self.inflight.len() < self.pipeline {
            self.queue_requests(values, prefix, stats);
        }
        if let Err(reason) = self.flush() {
            self.close(reason, stats);
        }
    }

    fn queue_requests(&mut self, values: &ValuePool, prefix: &[u8], stats: &mut Stats) {
        let Some(source) = self.source.as_mut() else {
            return;
        };
        // Bytes the socket already took are dropped before more are added, so the
        // buffer holds only what is still to be written; the copy is at most
        // WRITE_BUDGET bytes, and only when the socket was full.
        if self.wpos > 0 {
            self.wbuf.drain(..self.wpos);
            self.wpos = 0;
        }
        // One timestamp for the whole batch: they are handed to the socket by the
        // same write, immediately after this.
        let sent_at = Instant::now();
        while self.inflight.len() < self.pipeline
            && self.wbuf.len() < WRITE_BUDGET
            && (self.recycle_after == 0 || self.sent_since_connect < self.recycle_after)
        {
            // Open loop: only requests whose intended time has come; a request that
            // is late keeps its intended time.
            let intended_at = match &self.schedule {
                Some(schedule) if schedule.next_due() > sent_at => break,
                Some(schedule) => schedule.next_due(),
                None => sent_at,
            };
            let Some(queued) = source.encode_next(&mut self.wbuf, prefix, values, self.opaque_sent)
            else {
                break;
            };
            self.opaque_sent = self.opaque_sent.wrapping_add(1);
            if let Some(schedule) = self.schedule.as_mut() {
                schedule.advance();
                if let Some(lag) = stats.lag_us.as_mut() {
                    record_into(lag, micros_between(intended_at, sent_at));
                }
            }
            self.sent_since_connect += 1;
            self.inflight.push_back(InFlight {
                queued,
                intended_at,
                sent_at,
            });
        }
    }

    /// The next intended send time the worker should wake this connection for:
    /// only when the schedule has requests left and the pipeline window has room
    /// (otherwise a reply will wake it), and no wake-up is already queued.
    pub fn next_timer(&self, sending: bool) -> Option<Instant> {
        let ready = self.state == ConnState::Ready && sending && !self.timer_queued;
        let room = self.inflight.len() < self.pipeline;
        let more = self.source.as_ref().is_some_and(|s| !s.exhausted());
        match &self.schedule {
            Some(schedule) if ready && room && more => Some(schedule.next_due()),
            _ => None,
        }
    }

    /// Requests due by `until` and not sent (the open-loop backlog). A closed or
    /// reconnecting connection keeps its schedule, so what fell due while it was
    /// down is backlog too.
    pub fn backlog(&self, until: Instant) -> u64 {
        let more = self.source.as_ref().is_some_and(|s| !s.exhausted());
        match &self.schedule {
            Some(schedule) if more => schedule.due_by(until),
            _ => 0,
        }
    }

    /// Closes the connection, counting why and what was lost; the worker decides
    /// whether to reconnect it.
    pub fn close(&mut self, reason: CloseReason, stats: &mut Stats) {
        if self.state == ConnState::Closed {
            return;
        }
        self.state = ConnState::Closed;
        self.closed_by = Some(reason);
        self.stream.shutdown();
        match reason {
            CloseReason::Connection => stats.errors.connection += 1,
            CloseReason::Refused => stats.errors.refused += 1,
            CloseReason::Timeout => stats.errors.timeouts += 1,
            // Counted where the bad bytes were found; a recycle is no error.
            CloseReason::Protocol | CloseReason::Recycle => {}
        }
        stats.errors.lost_requests += self.inflight.len() as u64;
        self.inflight.clear();
        self.wbuf.clear();
        self.wpos = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_formula_of_the_design_doc_holds() {
        // docs/design.md, "Memory": 56 B per request in flight, at most
        // MAX_PIPELINE of them (3.5 MiB), and a 256 KiB write budget.
        assert_eq!(IN_FLIGHT_BYTES, 56);
        const { assert!(MAX_PIPELINE * IN_FLIGHT_BYTES <= 7 * 1024 * 1024 / 2) };
        assert_eq!(WRITE_BUDGET, 256 * 1024);
    }
}
