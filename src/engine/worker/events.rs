//! The event side of a worker's phase loop: wake-ups that are due (sends,
//! retries, reconnects), the timerfd armed for the next one, and readiness
//! events dispatched to connections, whose clients then send what they can.

use std::cmp::Reverse;
use std::time::{Duration, Instant};

use crate::engine::client::retry::Settle;
use crate::engine::worker::phase::PhaseClock;
use crate::engine::worker::{TIMER, Wake, Worker};

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

    /// Arms the timerfd for the earliest queued wake-up (no system call when it is
    /// already armed for that instant, or when there is none and it is idle).
    pub(super) fn arm_timer(&mut self, sending: bool) {
        match self.wakeups.peek() {
            Some(&Reverse((due, _, _))) if sending || !self.all_retries_done() => {
                let _ = self.timer.arm(due);
            }
            _ if self.timer.armed_for().is_some() => {
                let _ = self.timer.disarm();
            }
            _ => {}
        }
    }

    /// True when no client waits to retry (retries go on during the drain).
    fn all_retries_done(&self) -> bool {
        self.clients.iter().all(|c| c.next_retry().is_none())
    }

    /// Waits for readiness at most `timeout` and dispatches the events.
    pub(super) fn poll_once(&mut self, timeout: Duration, clock: &PhaseClock, prefix: &[u8]) {
        // mio rounds the timeout up to whole milliseconds; sub-millisecond
        // wake-ups come from the timerfd instead.
        let timeout = timeout.max(Duration::from_millis(1));
        if self.poll.poll(&mut self.events, Some(timeout)).is_err() {
            return;
        }
        // The poll may return after the deadline: decide afresh whether to send.
        let now = Instant::now();
        let sending = clock.sending(now);
        // Reused across polls: the connections that had events, handled after the
        // event borrow ends.
        let mut touched = std::mem::take(&mut self.touched);
        touched.clear();
        for event in self.events.iter() {
            let token = event.token();
            if token == TIMER {
                self.timer.clear();
                continue;
            }
            let readonly = self.links.get(token.0).is_some_and(|l| l.readonly);
            let Some(conn) = self.conns.get_mut(token.0) else {
                continue;
            };
            if event.is_writable() {
                conn.on_writable(&mut self.stats);
            }
            if event.is_readable() || event.is_read_closed() || event.is_error() {
                let handshake = self.handshakes.pick(readonly);
                conn.on_readable(
                    &mut self.stats,
                    handshake,
                    event.is_read_closed() || event.is_error(),
                );
            }
            touched.push(token.0);
        }
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
        let Some(conn) = self.conns.get_mut(i) else {
            return;
        };
        if conn.bounces_mut().is_empty() {
            return;
        }
        let from = conn.node();
        let mut bounces = std::mem::take(conn.bounces_mut());
        if let Some(client) = self
            .links
            .get(i)
            .and_then(|l| self.clients.get_mut(l.client))
        {
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
        // The memory goes back to the connection.
        *self.conns[i].bounces_mut() = bounces;
        crate::engine::worker::sync_node_stats(&self.router, &mut self.stats);
    }
}
