//! What a worker does about faults: a connection that breaks (reset, refused,
//! timed out, garbled) is reconnected with exponential backoff, while the others
//! carry on; a request unanswered for `--request-timeout` resets its connection;
//! `--reconnect-interval` recycles connections on purpose. Every case is counted.

use std::cmp::Reverse;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crate::config::target::Endpoint;
use crate::engine::worker::conn::{CloseReason, Conn, ConnState};
use crate::engine::worker::net;
use crate::engine::worker::recorder::{Book, count_closed};
use crate::engine::worker::{Wake, Worker};

/// The first reconnect waits this long; each further attempt multiplies it by
/// `--reconnect-backoff-factor`, up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// The longest wait between two reconnect attempts.
pub const MAX_BACKOFF: Duration = Duration::from_secs(5);

impl Worker {
    /// After I/O on connection `i`: recycle it if `--reconnect-interval` says so,
    /// and queue a reconnect if it closed and may come back.
    pub(super) fn after_io(&mut self, i: usize, now: Instant, sending: bool) {
        let policy = &self.config.faults;
        let (Some(conn), Some(link)) = (self.conns.get_mut(i), self.links.get_mut(i)) else {
            return;
        };
        if conn.take_became_ready() {
            link.reconnect_attempts = 0;
        }
        let has_more = self.clients.get(link.client).is_some_and(|c| c.has_more());
        if conn.wants_recycle() && has_more {
            if let Some(closed) = conn.close(CloseReason::Recycle) {
                count_closed(&mut self.stats, closed);
            }
        }
        if conn.state() == ConnState::Closed
            && !link.reconnect_queued
            && conn.closed_by() != Some(CloseReason::Recycle)
            && self.router.ask_refresh()
        {
            // A cluster node that broke may be failing over: the refresh finds
            // the replica that takes its slots (asks coalesce, one a second).
            self.stats.errors.refreshes += 1;
        }
        if conn.state() != ConnState::Closed
            || link.reconnect_queued
            || !sending
            || !policy.reconnect
            // A client above the staircase's step stays closed until it comes.
            || link.client >= self.active
        {
            return;
        }
        let attempts = link.reconnect_attempts;
        if policy.max_reconnect_attempts > 0 && attempts >= policy.max_reconnect_attempts {
            return;
        }
        let delay = if conn.closed_by() == Some(CloseReason::Recycle) {
            Duration::ZERO
        } else {
            backoff(attempts, policy.backoff_factor)
        };
        link.reconnect_queued = true;
        self.wakeups
            .push(Reverse((now + delay, i, Wake::Reconnect)));
    }

    /// Starts a non-blocking connect for connection `i`; its outcome arrives as a
    /// writable event.
    pub(super) fn start_reconnect(&mut self, i: usize, now: Instant, sending: bool) {
        let (Some(conn), Some(link)) = (self.conns.get_mut(i), self.links.get_mut(i)) else {
            return;
        };
        link.reconnect_queued = false;
        if !sending || conn.state() != ConnState::Closed {
            return;
        }
        link.reconnect_attempts += 1;
        self.stats.errors.reconnects += 1;
        let handshake = self.handshakes.pick(link.readonly);
        let stream = self
            .reactor
            .start_connect(&self.config.target, link.addr, i);
        match stream {
            Ok(stream) => conn.reconnect(stream, &handshake.request),
            // Refused, or the reactor would not take it: the connection stays
            // closed, and its next attempt is queued.
            Err(e) => {
                self.stats.errors.refused += 1;
                self.note_connect_error(&e);
            }
        }
        self.after_io(i, now, sending);
    }

    /// `--cluster-mode` (or `--read-server`): opens a connection from client
    /// `c` to `node`, a node first met during the run (after a MOVED, an ASK
    /// or a refresh), or one the staircase opens. The
    /// connect completes in the event loop; until then the client's request
    /// for that node waits.
    pub(super) fn open_link(&mut self, c: usize, node: usize) {
        let Some(n) = self.router.nodes().get(node) else {
            return;
        };
        let family = match &self.config.target.endpoint {
            Endpoint::Tcp { family, .. } => *family,
            Endpoint::Unix(_) => return,
        };
        let Ok(addr) = net::resolve(&n.host, n.port, family) else {
            self.stats.errors.refused += 1;
            return;
        };
        let index = self.conns.len();
        let stream = self
            .reactor
            .start_connect(&self.config.target, Some(addr), index);
        let stream = match stream {
            Ok(stream) => stream,
            Err(e) => {
                self.stats.errors.refused += 1;
                self.note_connect_error(&e);
                return;
            }
        };
        let readonly = self.router.needs_readonly(node);
        let handshake = self.handshakes.pick(readonly);
        let conn = super::build::new_conn(&self.config, stream).connecting(&handshake.request);
        let book = Book::new(&self.config, Some(node), self.router.is_replica(node));
        self.adopt(c, node, (conn, book), Some(addr), readonly);
    }

    /// Keeps `conn`, connecting, its stream attached to the reactor as the
    /// next connection, as client `c`'s link to `node`: its link and the
    /// client's pointer to it recorded.
    pub(super) fn adopt(
        &mut self,
        c: usize,
        node: usize,
        (mut conn, book): (Conn, Book),
        addr: Option<SocketAddr>,
        readonly: bool,
    ) {
        let index = self.conns.len();
        conn.set_pipeline(self.pipeline);
        self.conns.push(conn);
        self.links.push(super::Link {
            client: c,
            addr,
            reconnect_attempts: 0,
            reconnect_queued: false,
            readonly,
            book,
        });
        if let Some(client) = self.clients.get_mut(c) {
            client.link(node, index);
        }
    }

    /// `--request-timeout`: resets every connection whose oldest request has
    /// waited longer (replies are ordered, so one lost reply blocks the rest).
    pub(super) fn expire_requests(&mut self, now: Instant, sending: bool) {
        let Some(timeout) = self.config.faults.request_timeout else {
            return;
        };
        for i in 0..self.conns.len() {
            let expired = self.conns[i]
                .oldest_sent_at()
                .is_some_and(|t| now.saturating_duration_since(t) > timeout);
            if expired {
                if let Some(closed) = self.conns[i].close(CloseReason::Timeout) {
                    count_closed(&mut self.stats, closed);
                }
                self.after_io(i, now, sending);
            }
        }
    }
}

impl Worker {
    /// A connect that failed for lack of file descriptors is this machine's
    /// fault: the load gap it leaves is named for it.
    fn note_connect_error(&mut self, e: &std::io::Error) {
        const EMFILE: i32 = 24;
        const ENFILE: i32 = 23;
        if matches!(e.raw_os_error(), Some(EMFILE | ENFILE)) {
            self.gaps.no_descriptors();
        }
    }
}

/// The wait before reconnect attempt `attempts` (0-based).
pub fn backoff(attempts: u32, factor: f64) -> Duration {
    let scale = factor.max(1.0).powi(attempts.min(64) as i32);
    FIRST_BACKOFF.mul_f64(scale.min(1e6)).min(MAX_BACKOFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_by_the_factor_and_is_capped() {
        assert_eq!(backoff(0, 2.0), Duration::from_millis(100));
        assert_eq!(backoff(1, 2.0), Duration::from_millis(200));
        assert_eq!(backoff(3, 2.0), Duration::from_millis(800));
        assert_eq!(backoff(30, 2.0), MAX_BACKOFF);
        assert_eq!(backoff(5, 1.0), FIRST_BACKOFF);
    }
}
