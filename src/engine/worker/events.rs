//! The event side of a worker's phase loop: wake-ups that are due (sends,
//! retries, reconnects), the reactor told of the next one, and readiness
//! dispatched to connections, whose clients then send what they can.

use std::cmp::Reverse;
use std::time::{Duration, Instant};

use crate::engine::worker::client::retry::Settle;
use crate::engine::worker::conn::ConnState;
use crate::engine::worker::phase::PhaseClock;
use crate::engine::worker::recorder::{Recording, count_closed};
use crate::engine::worker::{Wake, Worker};

impl Worker {
    /// Sends for every client whose next intended time or retry has come, and
    /// starts the reconnects that are due.
    pub(super) fn fire_wakeups(&mut self, now: Instant, sending: bool, prefix: &[u8]) {
        while let Some(&Reverse((due, i, wake))) = self.wakeups.peek() {
            if due > now {
                break;
            }
            self.wakeups.pop();
            match wake {
                Wake::Send | Wake::Retry => {
                    if let Some(client) = self.clients.get_mut(i) {
                        match wake {
                            Wake::Send => client.timer_queued = false,
                            _ => client.retry_wake = None,
                        }
                    }
                    self.fill(i, sending, prefix);
                }
                Wake::Reconnect => self.start_reconnect(i, now, sending),
            }
        }
    }

    /// Tells the reactor the earliest queued wake-up, when one is needed: while
    /// sending, or while retries are still to come.
    pub(super) fn arm_timer(&mut self, sending: bool) {
        let due = match self.wakeups.peek() {
            Some(&Reverse((due, _, _))) if sending || !self.all_retries_done() => Some(due),
            _ => None,
        };
        self.reactor.wake_at(due);
    }

    /// True when no client waits to retry (retries go on during the drain).
    fn all_retries_done(&self) -> bool {
        self.clients.iter().all(|c| c.next_retry().is_none())
    }

    /// Waits for readiness at most `timeout` and dispatches it.
    pub(super) fn poll_once(&mut self, timeout: Duration, clock: &PhaseClock, prefix: &[u8]) {
        let mut ready = std::mem::take(&mut self.ready);
        ready.clear();
        if self
            .reactor
            .wait(timeout, &mut self.conns, &mut ready)
            .is_err()
        {
            self.ready = ready;
            return;
        }
        // The wait may return after the deadline: decide afresh whether to send.
        let now = Instant::now();
        let sending = clock.sending(now);
        // Reused across waits: the connections that had events, handled after
        // the dispatch.
        let mut touched = std::mem::take(&mut self.touched);
        touched.clear();
        for r in &ready {
            let (Some(conn), Some(link)) =
                (self.conns.get_mut(r.index), self.links.get_mut(r.index))
            else {
                continue;
            };
            if r.writable
                && let Some(closed) = conn.on_writable()
            {
                count_closed(&mut self.stats, closed);
            }
            if r.readable {
                let handshake = self.handshakes.pick(link.readonly);
                let waiting = conn.in_flight();
                let mut rec = Recording {
                    stats: &mut self.stats,
                    book: &mut link.book,
                    rules: self.rules,
                };
                conn.on_readable(&mut rec, handshake, r.closed);
                // Replies came (a close empties the queue without any).
                if conn.in_flight() < waiting && conn.state() != ConnState::Closed {
                    self.gaps.replied(r.index, now);
                }
            }
            touched.push(r.index);
        }
        self.ready = ready;
        let mut clients = std::mem::take(&mut self.touched_clients);
        clients.clear();
        for &i in &touched {
            self.take_bounces(i, now);
            if let Some(link) = self.links.get(i)
                && !clients.contains(&link.client)
            {
                clients.push(link.client);
            }
        }
        for &c in &clients {
            self.fill(c, sending, prefix);
        }
        for &i in &touched {
            self.after_io(i, now, sending);
        }
        self.touched = touched;
        self.touched_clients = clients;
    }

    /// Hands the requests connection `i` bounced back to its client.
    fn take_bounces(&mut self, i: usize, now: Instant) {
        let Some(link) = self.links.get_mut(i) else {
            return;
        };
        if link.book.bounces.is_empty() {
            return;
        }
        let from = link.book.node;
        let mut bounces = std::mem::take(&mut link.book.bounces);
        if let Some(client) = self.clients.get_mut(link.client) {
            let mut cx = Settle {
                stats: &mut self.stats,
                policy: self.config.retry,
                log: self.failed_keys.as_mut(),
                prefix: self.config.keys.prefix.as_bytes(),
            };
            for bounce in bounces.drain(..) {
                client.settle(bounce, from, &mut self.router, &mut cx, now);
            }
        }
        bounces.clear();
        // The memory goes back to the book.
        self.links[i].book.bounces = bounces;
        crate::engine::worker::build::sync_node_stats(&self.router, &mut self.stats);
    }
}
