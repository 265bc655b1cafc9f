//! A connection's socket I/O: completing a non-blocking connect, writing what is
//! queued, reading until the socket is drained, and decoding every complete
//! reply — handshake replies first, then the replies to requests, each timed at
//! the read that delivered its last byte.

use std::io::{self, Read, Write};
use std::time::Instant;

use crate::engine::cluster::redirect;
use crate::engine::conn::{
    Bounce, CloseReason, Conn, ConnState, InFlight, micros_between, transaction,
};
use crate::engine::request::{Hits, Queued, ScanReply};
use crate::engine::stats::Stats;
use crate::engine::stats::errors::ProtocolFault;
use crate::protocol::handshake::Handshake;
use crate::protocol::memcache::text::Asked;
use crate::protocol::resp::ServerErrorKind;
use crate::protocol::wire::{self, Awaited, Outcome, Protocol};

fn would_block(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::WouldBlock
}

fn interrupted(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Interrupted
}

impl Conn {
    /// Writes pending bytes until done or the socket is full.
    pub(super) fn flush(&mut self) -> Result<(), CloseReason> {
        while self.wpos < self.wbuf.len() {
            match self.stream.write(&self.wbuf[self.wpos..]) {
                Ok(0) => return Err(CloseReason::Connection),
                Ok(n) => self.wpos += n,
                Err(e) if would_block(&e) => return Ok(()),
                Err(e) if interrupted(&e) => {}
                Err(_) => return Err(CloseReason::Connection),
            }
        }
        // A TLS stream may still hold encrypted bytes the socket did not take;
        // plain sockets have nothing to flush.
        match self.stream.flush() {
            Err(e) if !would_block(&e) => Err(CloseReason::Connection),
            _ => Ok(()),
        }
    }

    /// The socket is writable: a pending connect completed (or failed), or the
    /// kernel took what the last write could not.
    pub fn on_writable(&mut self, stats: &mut Stats) {
        if self.state == ConnState::Connecting {
            match self.stream.connect_outcome() {
                // A wire without a handshake (memcached) is ready at once.
                Ok(true) if self.expects_handshake => self.state = ConnState::Handshaking(0),
                Ok(true) => {
                    self.became_ready = true;
                    self.state = ConnState::Ready;
                }
                Ok(false) => return,
                Err(_) => return self.close(CloseReason::Refused, stats),
            }
        }
        if matches!(self.state, ConnState::Ready | ConnState::Handshaking(_))
            && let Err(reason) = self.flush()
        {
            self.close(reason, stats);
        }
    }

    /// Reads until the socket is drained, checking handshake replies and
    /// decoding and timing every reply to a request. `peer_closed` is the event's
    /// read-closed flag: then the socket is read to its end, because the close
    /// raises no further edge once it has been reported.
    pub fn on_readable(&mut self, stats: &mut Stats, handshake: &Handshake, peer_closed: bool) {
        while matches!(self.state, ConnState::Ready | ConnState::Handshaking(_)) {
            if self.rend == self.rbuf.len()
                && let Err(reason) = self.make_room(stats)
            {
                return self.close(reason, stats);
            }
            let space = self.rbuf.len() - self.rend;
            match self.stream.read(&mut self.rbuf[self.rend..]) {
                Ok(0) => return self.close(CloseReason::Connection, stats),
                Ok(n) => {
                    self.rend += n;
                    // The time at which this read delivered the last bytes of the
                    // replies it completes.
                    let now = Instant::now();
                    if let Err(reason) = self.consume(now, stats, handshake) {
                        return self.close(reason, stats);
                    }
                    // A short read emptied the socket's receive queue: on Linux,
                    // data arriving later raises a new edge, so the read that
                    // would only return WouldBlock is saved (one system call per
                    // wake-up, a third of them at pipeline 1).
                    if n < space && !peer_closed {
                        return;
                    }
                }
                Err(e) if would_block(&e) => return,
                Err(e) if interrupted(&e) => {}
                Err(_) => return self.close(CloseReason::Connection, stats),
            }
        }
    }

    /// Moves unread bytes to the front, or grows the buffer when one reply fills
    /// it — up to `max_reply`, past which the reply is refused.
    fn make_room(&mut self, stats: &mut Stats) -> Result<(), CloseReason> {
        if self.rstart > 0 {
            self.rbuf.copy_within(self.rstart..self.rend, 0);
            self.rend -= self.rstart;
            self.rstart = 0;
            return Ok(());
        }
        if self.rbuf.len() >= self.max_reply {
            stats.errors.count_protocol(ProtocolFault::TooLarge {
                limit: self.max_reply,
            });
            return Err(CloseReason::Protocol);
        }
        let bigger = (self.rbuf.len() * 2).min(self.max_reply);
        self.rbuf.resize(bigger, 0);
        Ok(())
    }

    fn consume(
        &mut self,
        now: Instant,
        stats: &mut Stats,
        handshake: &Handshake,
    ) -> Result<(), CloseReason> {
        loop {
            let window = &self.rbuf[self.rstart..self.rend];
            let used = if let ConnState::Handshaking(step) = self.state {
                // Handshake replies are in the handshake's protocol (RESP in
                // its dialect, or memcached's SASL response), and their
                // contents are checked, so they are decoded apart.
                let answer = match handshake.read_reply(step, window) {
                    Ok(Some(answer)) => answer,
                    Ok(None) => break,
                    Err(_) => {
                        stats.errors.count_protocol(ProtocolFault::Handshake);
                        return Err(CloseReason::Protocol);
                    }
                };
                if let Some(kind) = answer.error_kind {
                    // e.g. -LOADING after a restart: counted, then retried.
                    stats.errors.count_server(kind);
                }
                answer.verdict.map_err(|_| CloseReason::Refused)?;
                let used = answer.used;
                self.state = if step + 1 >= handshake.replies() {
                    self.became_ready = true;
                    ConnState::Ready
                } else {
                    ConnState::Handshaking(step + 1)
                };
                used
            } else {
                match wire::decode_counted(self.protocol, window, self.awaited()) {
                    Ok(Some((outcome, used, attributes))) => {
                        // Attributes annotate a reply and answer nothing
                        // themselves, so they are counted beside pushes.
                        stats.errors.attributes += attributes;
                        let reply = &self.rbuf[self.rstart..self.rstart + used];
                        let due = self.inflight.front().map(|r| r.queued);
                        let value = matches!(outcome, Outcome::Value | Outcome::Nil);
                        if due.is_some_and(|q| {
                            (outcome == Outcome::Other
                                && q.counts_hits()
                                && !reply.starts_with(b"+QUEUED"))
                                || (value && q.answers_status)
                        }) {
                            // A value or nil was due (a GET inside MULTI is
                            // answered +QUEUED), or a status and a value or nil
                            // came: this reply answers some other request, so
                            // the stream is out of step.
                            stats.errors.count_protocol(ProtocolFault::WrongType);
                            return Err(CloseReason::Protocol);
                        }
                        if self.reads_scan_cursors && outcome != Outcome::Push {
                            self.scan_reply = Some(scan_reply(self.protocol, outcome, reply));
                        }
                        let bounce = (self.node.is_some() && bounces(outcome))
                            || matches!(outcome, Outcome::Error(k) if self.hand_back.wants(k));
                        let to = bounce.then(|| redirect_target(reply)).flatten();
                        if let Some(q) = due.filter(|q| !q.asking) {
                            let counters = transaction::Counters {
                                stats,
                                tally: &mut self.tally,
                                node: self.node,
                            };
                            let protocol = self.protocol;
                            transaction::follow(
                                protocol,
                                q,
                                (outcome, reply),
                                &mut self.queued,
                                counters,
                            );
                        }
                        let found = due.map_or((0, 0), |q| found(self.protocol, q, outcome, reply));
                        self.record_reply(outcome, found, used, now, stats, bounce.then_some(to))?;
                        used
                    }
                    Ok(None) => break,
                    Err(e) => {
                        stats.errors.count_protocol(ProtocolFault::Malformed(e));
                        return Err(CloseReason::Protocol);
                    }
                }
            };
            self.rstart += used;
        }
        if self.rstart == self.rend {
            self.rstart = 0;
            self.rend = 0;
        }
        Ok(())
    }

    /// What the oldest request in flight asked, for the decoder to check its
    /// reply against (memcached's text replies name the key; its binary ones
    /// echo the opaque; RESP needs neither).
    fn awaited(&self) -> Awaited<'_> {
        let asked = match self.inflight.front() {
            Some(r) if r.queued.counts_hits() => Asked::Get {
                prefix: &self.key_prefix,
                key: r.queued.key,
            },
            Some(_) => Asked::NoValue,
            // Nothing in flight: the reply is unsolicited, which matching says.
            None => Asked::Anything,
        };
        Awaited {
            opaque: self.opaque_due,
            asked,
        }
    }

    /// Matches a reply to the oldest request in flight and records it; a
    /// redirect (`bounce`, cluster runs only) goes back to the client instead.
    fn record_reply(
        &mut self,
        reply: Outcome,
        (hits, misses): (u64, u64),
        used: usize,
        now: Instant,
        stats: &mut Stats,
        bounce: Option<Option<(u16, String)>>,
    ) -> Result<(), CloseReason> {
        if reply == Outcome::Push {
            // Out-of-band data (an invalidation, a pub/sub message) answers no
            // request: matching it would shift every later reply by one.
            stats.errors.pushes += 1;
            return Ok(());
        }
        let Some(request) = self.inflight.pop_front() else {
            // A reply nobody asked for: the stream is out of step, and every
            // later match would be wrong.
            stats.errors.count_protocol(ProtocolFault::Unsolicited);
            return Err(CloseReason::Protocol);
        };
        self.opaque_due = self.opaque_due.wrapping_add(1);
        if request.queued.asking {
            // ASKING's own +OK answers no request of the workload. An error
            // means the node will not serve the asked request as migrating:
            // it is counted on the node, so the warning can name it.
            if let (Outcome::Error(_), Some(node)) =
                (reply, self.node.and_then(|n| stats.nodes.get_mut(n)))
            {
                node.asking_refused += 1;
            }
            return Ok(());
        }
        if let (Outcome::Error(kind), Some(to)) = (reply, bounce) {
            self.bounces.push(Bounce {
                request,
                kind,
                to,
                bytes: used,
            });
            return Ok(());
        }
        let queued = request.queued;
        let latency = record(stats, &request, reply, used, now);
        let op = stats.op_mut(usize::from(queued.row));
        op.hits += hits;
        op.misses += misses;
        if let Some(t) = self.tally.get_mut(usize::from(queued.row)) {
            t.count += 1;
            t.latency_sum_us += latency;
            t.bytes_tx += u64::from(queued.len);
            t.bytes_rx += used as u64;
            t.hits += hits;
            t.misses += misses;
        }
        if let Some(node) = self.node.and_then(|n| stats.nodes.get_mut(n)) {
            node.record(latency);
            node.replica_reads += u64::from(self.replica);
            node.hits += hits;
            node.misses += misses;
            if let Outcome::Error(_) = reply {
                node.errors += 1;
            }
        }
        Ok(())
    }
}

/// Counts one reply to `request` in its op's row; returns the headline
/// latency recorded. Also used for a redirect past `--max-redirects`, which
/// counts as the error reply it is.
pub(crate) fn record(
    stats: &mut Stats,
    request: &InFlight,
    reply: Outcome,
    used: usize,
    now: Instant,
) -> u64 {
    let service_us = micros_between(request.sent_at, now);
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
fn scan_reply(protocol: wire::Protocol, outcome: Outcome, reply: &[u8]) -> ScanReply {
    match outcome {
        Outcome::Error(_) => ScanReply::Restart,
        _ => wire::scan_cursor(protocol, reply).map_or(ScanReply::Restart, ScanReply::Cursor),
    }
}

/// The error replies a cluster client acts on rather than counts.
fn bounces(outcome: Outcome) -> bool {
    matches!(
        outcome,
        Outcome::Error(
            ServerErrorKind::Moved
                | ServerErrorKind::Ask
                | ServerErrorKind::TryAgain
                | ServerErrorKind::ClusterDown
        )
    )
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
