//! Live metrics: the `--metrics-listen` endpoint (Prometheus / OpenMetrics
//! text at `/metrics`) and memtier's StatsD feed (`--statsd-host`), both
//! [`Sink`]s fed by the master once a second. docs/metrics.md describes the
//! names, labels and choices.
//!
//! - [`board`]: the numbers shown: per phase, per op, replaced from the
//!   phase's running total, final once the phase ends.
//! - [`exposition`]: the board as Prometheus' text format or OpenMetrics.
//! - [`http`]: the endpoint's thread, which only hands out the last text,
//!   to many clients at once within fixed limits.
//! - [`statsd`]: memtier's StatsD lines over UDP.
//! - [`graphite`]: memtier's Graphite event annotations (`--graphite-port`).

pub mod board;
pub mod exposition;
pub mod graphite;
pub mod http;
pub mod statsd;

#[cfg(test)]
mod tests;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::{Config, Stop};
use crate::engine::interrupt::Interrupt;
use crate::engine::master::results::{Phase, PhaseResult};
use crate::engine::master::sink::Sink;
use crate::engine::stats::Stats;
use crate::engine::stats::series::Second;
use crate::error::UsageError;
use crate::error::note;
use crate::workload::ops::OpTable;
use board::Board;
use exposition::{Format, render};
use graphite::Graphite;
use http::{Published, Shared};
use statsd::Statsd;

use crate::report::realtime::Realtime;

/// The `/metrics` endpoint's side on the master: the board and the text
/// handed to the endpoint's thread.
pub struct Exporter {
    board: Board,
    empty: Stats,
    published: Shared,
    addr: SocketAddr,
}

impl Exporter {
    /// Binds `addr` and starts serving (empty counters until the first phase).
    pub fn start(addr: SocketAddr, config: &Config) -> Result<Exporter, UsageError> {
        let listener = http::bind(addr).map_err(|e| {
            UsageError::new(
                "--metrics-listen",
                format!(
                    "cannot listen on {addr}: {e}; choose a free port or an address of this machine"
                ),
            )
        })?;
        let addr = listener.local_addr().unwrap_or(addr);
        let empty = Stats::for_config(config).map_err(|e| {
            UsageError::new("--metrics-listen", format!("cannot create histograms: {e}"))
        })?;
        let names =
            |t: &OpTable| -> Vec<String> { t.rows.iter().map(|r| r.name_key.clone()).collect() };
        let run_rows = names(&config.ops);
        let prefill_rows = if config.ops.default_pair {
            run_rows.clone()
        } else {
            names(&OpTable::prefill())
        };
        let board = Board {
            shard: config.shard.map(|s| s.index),
            run_labels: config.metrics.run_labels.clone(),
            bucket_bounds_us: config.metrics.latency_buckets_us.clone(),
            run_rows,
            prefill_rows,
            ..Board::default()
        };
        let published = Shared::default();
        let mut exporter = Exporter {
            board,
            empty,
            published: Arc::clone(&published),
            addr,
        };
        exporter.publish();
        http::spawn(listener, published, http::LIMITS).map_err(|e| {
            UsageError::new(
                "--metrics-listen",
                format!("cannot start the endpoint's thread: {e}"),
            )
        })?;
        Ok(exporter)
    }

    /// The address served (with the port chosen, for port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Renders the board and swaps the text in.
    fn publish(&mut self) {
        let next = Published {
            prometheus: render(&self.board, Format::Prometheus).into(),
            openmetrics: render(&self.board, Format::OpenMetrics).into(),
        };
        match self.published.lock() {
            Ok(mut p) => *p = next,
            Err(poisoned) => *poisoned.into_inner() = next,
        }
    }

    /// The run is over: the values are final and no connection is open.
    fn finish(&mut self) {
        self.board.finished = true;
        self.board.open = 0;
        self.publish();
    }
}

impl Sink for Exporter {
    fn start_cell(&mut self, _: usize, label: &str) {
        self.board.cell = Some(label.to_string());
        self.publish();
    }

    fn start_phase(&mut self, phase: Phase, _: Stop) {
        self.board.start_phase(phase, &self.empty);
        self.publish();
    }

    fn second(&mut self, _: &Second, total: &Stats, _: Duration, open: usize) {
        if let Some(phase) = self.board.current {
            self.board.update(phase, total);
        }
        self.board.open = open;
        self.publish();
    }

    fn end_phase(&mut self, r: &PhaseResult) {
        self.board.end_phase(r.phase, &r.stats);
        self.publish();
    }
}

/// Every live output the configuration asks for (the endpoint, StatsD,
/// Graphite events, `--realtime-latencies`), as one sink, and what happens
/// after the run (linger, a count of failed StatsD sends).
pub struct Live {
    exporter: Option<Exporter>,
    statsd: Option<Statsd>,
    graphite: Option<Graphite>,
    realtime: Option<Realtime>,
    linger: Duration,
}

impl Live {
    /// Binds the endpoint and opens the StatsD socket, before any connection
    /// to the server: a port in use or a host that does not resolve is a
    /// usage error naming its flag.
    pub fn start(config: &Config) -> Result<Live, UsageError> {
        let m = &config.metrics;
        let exporter = m
            .listen
            .map(|addr| Exporter::start(addr, config))
            .transpose()?;
        if let Some(e) = &exporter {
            note(format_args!(
                "kvbench: metrics at http://{}/metrics",
                e.addr()
            ));
        }
        let statsd = m
            .statsd
            .as_ref()
            .map(|target| Statsd::open(target, config))
            .transpose()?;
        let graphite = m
            .statsd
            .as_ref()
            .and_then(|target| Graphite::new(target, config.threads, config.clients));
        Ok(Live {
            exporter,
            statsd,
            graphite,
            realtime: config.realtime_latencies.then(|| Realtime::new(config)),
            linger: m.linger,
        })
    }

    /// After the run: marks the values final, keeps serving them for
    /// `--metrics-linger` (cut short by a signal) and says how many StatsD
    /// sends failed.
    pub fn finish(&mut self, interrupt: &Interrupt) {
        if let Some(g) = self.graphite.as_mut() {
            g.finish();
        }
        if let Some(statsd) = &self.statsd {
            let (failed, tried) = statsd.failures();
            if failed > 0 {
                note(format_args!(
                    "kvbench: StatsD: {failed} of {tried} datagrams could not be sent"
                ));
            }
        }
        let Some(exporter) = self.exporter.as_mut() else {
            return;
        };
        exporter.finish();
        let until = Instant::now() + self.linger;
        // A signal ends the wait; an error-budget stop (`--max-errors`) does
        // not, since its final values are what a dashboard should show.
        while interrupt.signal().is_none() {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            std::thread::sleep(left.min(Duration::from_millis(50)));
        }
    }
}

impl Sink for Live {
    fn start_cell(&mut self, index: usize, label: &str) {
        if let Some(e) = self.exporter.as_mut() {
            e.start_cell(index, label);
        }
        if let Some(s) = self.statsd.as_mut() {
            s.start_cell(index, label);
        }
    }

    fn start_phase(&mut self, phase: Phase, stop: Stop) {
        if let Some(e) = self.exporter.as_mut() {
            e.start_phase(phase, stop);
        }
        if let Some(s) = self.statsd.as_mut() {
            s.start_phase(phase, stop);
        }
        if let (Some(g), Phase::Run(n)) = (self.graphite.as_mut(), phase) {
            g.started(n);
        }
        if let Some(r) = self.realtime.as_mut() {
            r.start_phase(phase, stop);
        }
    }

    fn second(&mut self, s: &Second, total: &Stats, elapsed: Duration, open: usize) {
        if let Some(e) = self.exporter.as_mut() {
            e.second(s, total, elapsed, open);
        }
        if let Some(st) = self.statsd.as_mut() {
            st.second(s, total, elapsed, open);
        }
        if let Some(r) = self.realtime.as_mut() {
            r.second(s, total, elapsed, open);
        }
    }

    fn end_phase(&mut self, r: &PhaseResult) {
        if let Some(e) = self.exporter.as_mut() {
            e.end_phase(r);
        }
        if let Some(s) = self.statsd.as_mut() {
            s.end_phase(r);
        }
        if let (Some(g), Phase::Run(n)) = (self.graphite.as_mut(), r.phase) {
            g.completed(n);
        }
    }
}
