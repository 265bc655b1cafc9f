//! A connection's socket I/O: completing a non-blocking connect, writing what is
//! queued, reading until the socket is drained, and decoding every complete
//! reply — handshake replies first, then the replies to requests, each timed at
//! the read that delivered its last byte and handed to the worker's
//! [`Recorder`].

use std::io::{self, Read, Write};
use std::time::Instant;

use crate::engine::stats::errors::ProtocolFault;
use crate::engine::worker::conn::{
    CloseReason, Closed, Conn, ConnState, Recorder, Reply, transaction,
};
use crate::protocol::handshake::Handshake;
use crate::protocol::memcache::text::Asked;
use crate::protocol::wire::{self, Awaited, Outcome};

fn would_block(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::WouldBlock
}

fn interrupted(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Interrupted
}

/// Why reading stopped short: the connection is to be closed for this
/// reason, after the fault (if any) is recorded.
struct Stop {
    reason: CloseReason,
    fault: Option<ProtocolFault>,
}

impl From<CloseReason> for Stop {
    fn from(reason: CloseReason) -> Self {
        Stop {
            reason,
            fault: None,
        }
    }
}

impl From<ProtocolFault> for Stop {
    fn from(fault: ProtocolFault) -> Self {
        Stop {
            reason: CloseReason::Protocol,
            fault: Some(fault),
        }
    }
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
    /// kernel took what the last write could not. Says whether that closed
    /// the connection.
    pub fn on_writable(&mut self) -> Option<Closed> {
        if self.state == ConnState::Connecting {
            match self.stream.connect_outcome() {
                // A wire without a handshake (memcached) is ready at once.
                Ok(true) if self.expects_handshake => self.state = ConnState::Handshaking(0),
                Ok(true) => {
                    self.became_ready = true;
                    self.state = ConnState::Ready;
                }
                Ok(false) => return None,
                Err(_) => return self.close(CloseReason::Refused),
            }
        }
        if matches!(self.state, ConnState::Ready | ConnState::Handshaking(_)) {
            return self.flush().err().and_then(|reason| self.close(reason));
        }
        None
    }

    /// Reads until the socket is drained, checking handshake replies and
    /// decoding and timing every reply to a request. `peer_closed` is the event's
    /// read-closed flag: then the socket is read to its end, because the close
    /// raises no further edge once it has been reported.
    pub fn on_readable(
        &mut self,
        rec: &mut impl Recorder,
        handshake: &Handshake,
        peer_closed: bool,
    ) {
        if let Err(stop) = self.read_all(rec, handshake, peer_closed) {
            if let Some(fault) = stop.fault {
                rec.fault(fault);
            }
            if let Some(closed) = self.close(stop.reason) {
                rec.closed(closed);
            }
        }
    }

    fn read_all(
        &mut self,
        rec: &mut impl Recorder,
        handshake: &Handshake,
        peer_closed: bool,
    ) -> Result<(), Stop> {
        while matches!(self.state, ConnState::Ready | ConnState::Handshaking(_)) {
            if self.rend == self.rbuf.len() {
                self.make_room()?;
            }
            let space = self.rbuf.len() - self.rend;
            match self.stream.read(&mut self.rbuf[self.rend..]) {
                Ok(0) => return Err(CloseReason::Connection.into()),
                Ok(n) => {
                    self.rend += n;
                    // The time at which this read delivered the last bytes of the
                    // replies it completes.
                    let now = Instant::now();
                    self.consume(now, rec, handshake)?;
                    // A short read emptied the socket's receive queue: on Linux,
                    // data arriving later raises a new edge, so the read that
                    // would only return WouldBlock is saved (one system call per
                    // wake-up, a third of them at pipeline 1).
                    if n < space && !peer_closed {
                        return Ok(());
                    }
                }
                Err(e) if would_block(&e) => return Ok(()),
                Err(e) if interrupted(&e) => {}
                Err(_) => return Err(CloseReason::Connection.into()),
            }
        }
        Ok(())
    }

    /// Moves unread bytes to the front, or grows the buffer when one reply fills
    /// it — up to `max_reply`, past which the reply is refused.
    fn make_room(&mut self) -> Result<(), ProtocolFault> {
        if self.rstart > 0 {
            self.rbuf.copy_within(self.rstart..self.rend, 0);
            self.rend -= self.rstart;
            self.rstart = 0;
            return Ok(());
        }
        if self.rbuf.len() >= self.max_reply {
            return Err(ProtocolFault::TooLarge {
                limit: self.max_reply,
            });
        }
        let bigger = (self.rbuf.len() * 2).min(self.max_reply);
        self.rbuf.resize(bigger, 0);
        Ok(())
    }

    fn consume(
        &mut self,
        now: Instant,
        rec: &mut impl Recorder,
        handshake: &Handshake,
    ) -> Result<(), Stop> {
        loop {
            let window = &self.rbuf[self.rstart..self.rend];
            let used = if let ConnState::Handshaking(step) = self.state {
                // Handshake replies are in the handshake's protocol (RESP in
                // its dialect, or memcached's SASL response), and their
                // contents are checked, so they are decoded apart.
                let answer = match handshake.read_reply(step, window) {
                    Ok(Some(answer)) => answer,
                    Ok(None) => break,
                    Err(_) => return Err(ProtocolFault::Handshake.into()),
                };
                if let Some(kind) = answer.error_kind {
                    // e.g. -LOADING after a restart: counted, then retried.
                    rec.handshake_error(kind);
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
                        if attributes > 0 {
                            // Attributes annotate a reply and answer nothing
                            // themselves, so they are counted beside pushes.
                            rec.attributes(attributes);
                        }
                        self.answer(outcome, used, now, rec)?;
                        used
                    }
                    Ok(None) => break,
                    Err(e) => return Err(ProtocolFault::Malformed(e).into()),
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

    /// Matches one decoded reply, `used` bytes at the read position, to the
    /// oldest request in flight and hands it to `rec`.
    fn answer(
        &mut self,
        outcome: Outcome,
        used: usize,
        now: Instant,
        rec: &mut impl Recorder,
    ) -> Result<(), ProtocolFault> {
        if outcome == Outcome::Push {
            // Out-of-band data (an invalidation, a pub/sub message) answers no
            // request: matching it would shift every later reply by one.
            rec.push();
            return Ok(());
        }
        let bytes = &self.rbuf[self.rstart..self.rstart + used];
        let Some(request) = self.inflight.front().copied() else {
            // A reply nobody asked for: the stream is out of step, and every
            // later match would be wrong.
            return Err(ProtocolFault::Unsolicited);
        };
        let q = request.queued;
        let value = matches!(outcome, Outcome::Value | Outcome::Nil);
        if (outcome == Outcome::Other && q.counts_hits() && !bytes.starts_with(b"+QUEUED"))
            || (value && q.answers_status)
        {
            // A value or nil was due (a GET inside MULTI is answered
            // +QUEUED), or a status and a value or nil came: this reply
            // answers some other request, so the stream is out of step.
            return Err(ProtocolFault::WrongType);
        }
        self.inflight.pop_front();
        self.opaque_due = self.opaque_due.wrapping_add(1);
        if q.asking {
            rec.asking(outcome);
            return Ok(());
        }
        let transaction = transaction::follow(&mut self.queued, q, outcome, bytes);
        rec.reply(Reply {
            request,
            outcome,
            bytes,
            at: now,
            transaction: if q.ends_transaction {
                &self.queued
            } else {
                &[]
            },
        });
        if transaction == transaction::Step::Ended {
            self.queued.clear();
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
}
