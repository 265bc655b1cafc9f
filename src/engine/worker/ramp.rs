//! How a worker's connections come up during a phase: memtier's staircase
//! (`--clients-start`, `--clients-step`, `--step-duration`), which opens
//! `start` clients' connections when a phase starts and `step` more every
//! step duration on the phase's clock; the pause between the connections a
//! thread opens before the run (`--thread-conn-start-*-jitter-micros`);
//! `--client-stats`' per-second folding and files; and `-D`'s lines about
//! connections and phases (none per request: the hot path stays silent).
//!
//! A client past the staircase's current step is dormant: it draws nothing,
//! its connections stay closed and are not reconnected, and it is done for
//! the phase's bookkeeping. memtier's clients are fresh in every run, so each
//! phase climbs from `start` again: the connections of the clients above it
//! are closed (as a recycle, which is no error) when the phase starts.

use std::time::{Duration, Instant};

use rand::Rng;
use rand::rngs::SmallRng;

use crate::config::Config;
use crate::config::ramp::Jitter;
use crate::engine::worker::client_stats::{self, ClientSeries};
use crate::engine::worker::conn::{CloseReason, ConnState};
use crate::engine::worker::recorder::{Book, count_closed};
use crate::engine::worker::{Report, Worker};

/// `-D`: one debug line on stderr, in kvbench's form.
pub(super) fn debug(config: &Config, args: std::fmt::Arguments<'_>) {
    if config.ramp.debug > 0 {
        crate::error::note(format_args!("kvbench: debug: {args}"));
    }
}

/// memtier's pause after each connection a thread opens but the last.
pub(super) fn pause_between_connections(jitter: Jitter, rng: &mut SmallRng) {
    if !jitter.is_on() {
        return;
    }
    let micros = rng.random_range(jitter.min_us..=jitter.max_us);
    std::thread::sleep(Duration::from_micros(u64::from(micros)));
}

/// How many of a thread's clients connect before the run: `--clients-start`
/// with the staircase, else all of them.
pub(super) fn initial_clients(config: &Config) -> usize {
    config
        .ramp
        .staircase
        .map_or(config.clients, |s| s.start.min(config.clients))
}

impl Worker {
    /// At a phase's start: with the staircase, every client above its first
    /// step goes dormant, and its first step up is due one step duration in.
    pub(super) fn start_ramp(&mut self, started_at: Instant, prefill: bool) {
        self.phase_started = started_at;
        for s in &mut self.series {
            s.clear();
        }
        for link in &mut self.links {
            link.book
                .tally
                .iter_mut()
                .for_each(|t| *t = Default::default());
        }
        let Some(stair) = self.config.ramp.staircase.filter(|_| !prefill) else {
            self.active = self.clients.len();
            self.next_step = None;
            return;
        };
        self.active = stair.start.min(self.clients.len());
        for (conn, link) in self.conns.iter_mut().zip(&self.links) {
            if link.client >= self.active {
                // A recycle counts no error; the stats are reset after this.
                if let Some(closed) = conn.close(CloseReason::Recycle) {
                    count_closed(&mut self.stats, closed);
                }
            }
        }
        self.next_step = Some(started_at + stair.step_duration);
    }

    /// `-D`: which phase starts on this thread, with how many clients.
    pub(super) fn debug_phase(&self, index: u32, prefill: bool) {
        let phase = match (prefill, index) {
            (true, _) => "prefill".to_string(),
            (false, 0) => "warm-up".to_string(),
            (false, n) => format!("run {n}"),
        };
        debug(
            &self.config,
            format_args!(
                "thread {}: {phase} starts with {} of {} clients",
                self.thread,
                self.active,
                self.clients.len()
            ),
        );
    }

    /// In the phase loop: takes the staircase's step when it is due.
    pub(super) fn step_up(&mut self, now: Instant, sending: bool, prefix: &[u8]) {
        let (Some(due), Some(stair)) = (self.next_step, self.config.ramp.staircase) else {
            return;
        };
        if now < due {
            return;
        }
        if !sending {
            // memtier stops climbing at the deadline.
            self.next_step = None;
            return;
        }
        let elapsed = now.saturating_duration_since(self.phase_started);
        let target = stair.active_at(elapsed, self.clients.len());
        let from = self.active;
        for c in from..target {
            self.activate(c);
        }
        self.active = self.active.max(target);
        for c in from..self.active {
            self.fill(c, sending, prefix);
        }
        let steps = elapsed.as_nanos() / stair.step_duration.as_nanos().max(1);
        let next = u32::try_from(steps + 1).unwrap_or(u32::MAX);
        self.next_step = (self.active < self.clients.len())
            .then(|| self.phase_started + stair.step_duration * next);
        debug(
            &self.config,
            format_args!(
                "thread {}: staircase: activated {} clients, now at {}/{} per thread",
                self.thread,
                self.active - from,
                self.active,
                self.clients.len()
            ),
        );
    }

    /// Opens client `c`'s connections without blocking: those it had (closed
    /// when the phase started) again, or new ones.
    fn activate(&mut self, c: usize) {
        let Some(client) = self.clients.get(c) else {
            return;
        };
        let known: Vec<usize> = client.conns().collect();
        if known.is_empty() {
            if self.router.is_routed() {
                for node in self.router.first_nodes() {
                    self.open_link(c, node);
                }
            } else {
                self.open_single(c);
            }
            return;
        }
        for i in known {
            self.reopen(i);
        }
    }

    /// A first connection from client `c` to the one server.
    fn open_single(&mut self, c: usize) {
        let Ok(addr) = super::build::tcp_addr(&self.config.target) else {
            self.stats.errors.refused += 1;
            return;
        };
        let index = self.conns.len();
        let stream = self.reactor.start_connect(&self.config.target, addr, index);
        let Ok(stream) = stream else {
            self.stats.errors.refused += 1;
            return;
        };
        let conn =
            super::build::new_conn(&self.config, stream).connecting(&self.handshakes.plain.request);
        let book = Book::new(&self.config, None, false);
        self.adopt(c, 0, (conn, book), addr, false);
        debug(
            &self.config,
            format_args!(
                "thread {} client {c}: connecting to {}",
                self.thread, self.config.target.endpoint
            ),
        );
    }

    /// Connection `i` again, after the phase start closed it.
    fn reopen(&mut self, i: usize) {
        let (Some(conn), Some(link)) = (self.conns.get_mut(i), self.links.get_mut(i)) else {
            return;
        };
        if conn.state() != ConnState::Closed {
            return;
        }
        link.reconnect_attempts = 0;
        let handshake = self.handshakes.pick(link.readonly);
        let stream = self
            .reactor
            .start_connect(&self.config.target, link.addr, i);
        match stream {
            Ok(stream) => conn.reconnect(stream, &handshake.request),
            Err(_) => self.stats.errors.refused += 1,
        }
        debug(
            &self.config,
            format_args!(
                "thread {} client {}: connecting again to {}",
                self.thread, link.client, self.config.target.endpoint
            ),
        );
    }

    /// `--client-stats`: adds every connection's second to its client's
    /// series and starts its count afresh.
    pub(super) fn fold_second(&mut self, second: u64) {
        if self.series.is_empty() {
            return;
        }
        let second = usize::try_from(second).unwrap_or(usize::MAX);
        for link in &mut self.links {
            if let Some(series) = self.series.get_mut(link.client) {
                series.add(second, &link.book.tally);
            }
            link.book
                .tally
                .iter_mut()
                .for_each(|t| *t = Default::default());
        }
    }

    /// `--client-stats`: after measured run `run`, one file per client that
    /// took part (memtier skips clients that never started); a file that
    /// cannot be written is reported to the master.
    pub(super) fn write_client_stats(&self, run: u32) {
        let Some(prefix) = self.config.ramp.client_stats.as_deref() else {
            return;
        };
        for (c, series) in self.series.iter().enumerate().take(self.active) {
            if self
                .clients
                .get(c)
                .is_none_or(|cl| cl.conns().next().is_none())
            {
                continue;
            }
            let path = client_stats::file_name(prefix, run, self.thread, c);
            let csv = client_stats::render(&self.config.ops, series);
            if let Err(unwritten) = client_stats::write(path, &csv) {
                let _ = self.reports.send(Report::Unwritten(unwritten));
            }
        }
    }
}

/// One empty series per client when `--client-stats` is on, else none.
pub(super) fn series_for(config: &Config) -> Vec<ClientSeries> {
    if config.ramp.client_stats.is_some() {
        vec![ClientSeries::default(); config.clients]
    } else {
        Vec::new()
    }
}
