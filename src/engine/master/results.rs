//! Finished phases and the views the reports show of them: each run, the best and
//! the worst run, and the aggregate of all runs.
//!
//! BEST and WORST are chosen by total ops/sec (memtier prints run #1 for both). The
//! aggregate merges the histograms of the runs that ran to their end, so its
//! percentiles are those of every request of those runs; its ops/sec is all their
//! requests over all their run time, which is the mean of their rates weighted by
//! their durations. A run cut short is reported on its own, never merged.

use std::borrow::Cow;
use std::time::{Duration, SystemTime};

pub mod cluster;
pub mod median;
pub mod variance;

use crate::engine::master::host::HostPhase;
use crate::engine::master::placement::Placement;
use crate::engine::master::results::variance::Variance;
use crate::engine::master::server::latency::PhaseLatency;
use crate::engine::master::server::sample::ServerSeries;
use crate::engine::master::server::{Info, PhaseEvidence};
use crate::engine::master::warmup::Steadiness;
use crate::engine::stats::Stats;
use crate::engine::stats::precision::{Batches, PhasePrecision};
use crate::engine::stats::series::Second;
use crate::workload::ops::OpTable;

pub use cluster::{ClusterContext, ClusterNode, NodeEvidence, NodeRole};

/// Which part of the schedule a phase was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// `--prefill`: every key of the range written once, before anything else.
    Prefill,
    /// Traffic before the measured runs; reported apart, never mixed in.
    Warmup,
    /// Measured run n (1-based).
    Run(u32),
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Phase::Prefill => f.write_str("PREFILL"),
            Phase::Warmup => f.write_str("WARM-UP"),
            Phase::Run(n) => write!(f, "RUN #{n}"),
        }
    }
}

impl Phase {
    /// The number mixed into per-phase seeds, distinct for every phase.
    pub fn seed_index(self) -> u32 {
        match self {
            Phase::Prefill => u32::MAX,
            Phase::Warmup => 0,
            Phase::Run(n) => n,
        }
    }
}

/// What the server is, read once before the first phase.
#[derive(Debug, Clone)]
pub struct ServerContext {
    /// `INFO all` before anything ran.
    pub info: Info,
    /// `CONFIG GET appendfsync`, when CONFIG answers.
    pub appendfsync: Option<String>,
    /// `CONFIG GET save`, when CONFIG answers.
    pub save: Option<String>,
}

/// One completed phase.
#[derive(Debug, Clone)]
pub struct PhaseResult {
    /// Which phase.
    pub phase: Phase,
    /// Wall-clock start, for the reports' timestamps.
    pub started_wall: SystemTime,
    /// The run time: from the common start until the last thread stopped
    /// sending (the deadline, an interrupt, or its last reply when it ran out of
    /// requests). The drain after it is [`PhaseResult::drain`].
    pub duration: Duration,
    /// How long the replies still in flight when sending stopped were awaited
    /// (at most the drain limit); not part of the run time.
    pub drain: Duration,
    /// Connections that were not ready when sending stopped.
    pub connections_down: usize,
    /// Of those, connections closed for good (`--no-reconnect`, or the reconnect
    /// attempts spent): their share of the load was not offered, so the phase is
    /// incomplete.
    pub connections_given_up: usize,
    /// Worker threads that stopped the phase early because no reply came for
    /// the stall limit ([`crate::config::Config::stall_limit`]).
    pub stalled_workers: usize,
    /// The time load was due and none was applied ([`crate::engine::stats::gaps`]).
    pub load_gaps: crate::engine::stats::gaps::LoadGaps,
    /// Everything measured, all threads merged.
    pub stats: Stats,
    /// Per-second summaries.
    pub series: Vec<Second>,
    /// CPU time each worker thread used during the phase.
    pub thread_cpu: Vec<Duration>,
    /// Open loop: requests due before the deadline that were never sent.
    pub unsent: u64,
    /// What the server said before and after the phase, when it answers INFO.
    pub server: Option<PhaseEvidence>,
    /// A SIGINT/SIGTERM cut this phase short.
    pub interrupted: bool,
    /// Why `server` is missing although the server answers INFO: the control
    /// connection failed or could not be opened (maxclients full, a partition,
    /// a changed password). `None` when the evidence is there, or when the
    /// target never answers INFO (some proxies), which is no loss.
    pub evidence_lost: Option<String>,
    /// `--cluster-mode`: each node's own evidence (`server` then holds their
    /// sum); empty for one server.
    pub nodes: Vec<NodeEvidence>,
    /// This process's and this machine's CPU and the interface's bytes over
    /// the phase ([`crate::engine::master::host`]).
    pub host: Option<HostPhase>,
    /// The server's CPU and network second by second, read on the control
    /// connection ([`crate::engine::master::server::sample`]); `None` without INFO
    /// and in `--cluster-mode`.
    pub server_seconds: Option<ServerSeries>,
    /// `--cluster-mode`: each node's, by its address, read on its own
    /// control connection (nodes that gave no INFO left out).
    pub node_seconds: Vec<(String, ServerSeries)>,
    /// The warm-up: whether its throughput and p99 had settled
    /// ([`crate::engine::master::warmup`]); `None` for other phases.
    pub steadiness: Option<Steadiness>,
    /// A measured run's 95 % intervals (batch means); `None` for the other
    /// phases.
    pub precision: Option<PhasePrecision>,
    /// A measured run's seconds the intervals rest on, kept for figures
    /// the report does not print (a capacity step's SLO percentile);
    /// `None` for the other phases.
    pub batches: Option<Batches>,
    /// The server's own latency per command (`LATENCY HISTOGRAM` around the
    /// phase); `None` for a target without INFO (memcached).
    pub server_latency: Option<PhaseLatency>,
    /// `--watch`: what each component behind the target did (empty on
    /// machines that do not sample them).
    pub watched: Vec<crate::engine::master::watch::WatchedPhase>,
}

/// Why a phase that ran to its end still did not offer its whole load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Incomplete {
    /// Connections closed and were not reconnected by the end.
    ConnectionsLost {
        /// Connections closed for good when sending stopped.
        given_up: usize,
    },
}

impl Incomplete {
    /// A stable name for JSON.
    pub fn kind(self) -> &'static str {
        match self {
            Incomplete::ConnectionsLost { .. } => "connections_lost",
        }
    }
}

impl std::fmt::Display for Incomplete {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Incomplete::ConnectionsLost { given_up } => write!(
                f,
                "{given_up} connection(s) closed and not reconnected by the end (--no-reconnect, or --max-reconnect-attempts spent), so their share of the load was never offered"
            ),
        }
    }
}

impl PhaseResult {
    /// The op table this phase is reported with ([`OpTable::of_phase`]).
    pub fn ops<'a>(&self, run_ops: &'a OpTable) -> Cow<'a, OpTable> {
        run_ops.of_phase(self.phase == Phase::Prefill)
    }

    /// Why this phase did not offer its whole load, if it did not.
    pub fn incomplete(&self) -> Option<Incomplete> {
        (self.connections_given_up > 0).then_some(Incomplete::ConnectionsLost {
            given_up: self.connections_given_up,
        })
    }

    /// Total replies per second.
    pub fn ops_per_sec(&self) -> f64 {
        rate(self.stats.replies(), self.duration)
    }

    /// Replies that were not errors, per second.
    pub fn successes_per_sec(&self) -> f64 {
        rate(self.stats.successes(), self.duration)
    }

    /// Error replies per second.
    pub fn errors_per_sec(&self) -> f64 {
        rate(self.stats.error_replies(), self.duration)
    }

    /// The busiest worker thread's CPU use over the phase, as a percentage of
    /// one CPU (100 = saturated).
    pub fn busiest_thread_cpu_percent(&self) -> f64 {
        let secs = self.duration.as_secs_f64();
        let busiest = self.thread_cpu.iter().max().copied().unwrap_or_default();
        if secs > 0.0 {
            100.0 * busiest.as_secs_f64() / secs
        } else {
            0.0
        }
    }
}

#[cfg(test)]
impl PhaseResult {
    /// A phase of `stats` lasting `duration` in which nothing else happened
    /// (no fault, no interrupt, no evidence): the tests' starting point.
    pub(crate) fn of_stats(phase: Phase, stats: Stats, duration: Duration) -> PhaseResult {
        PhaseResult {
            phase,
            started_wall: SystemTime::UNIX_EPOCH,
            duration,
            drain: Duration::ZERO,
            connections_down: 0,
            connections_given_up: 0,
            stalled_workers: 0,
            load_gaps: Default::default(),
            stats,
            series: Vec::new(),
            thread_cpu: Vec::new(),
            unsent: 0,
            server: None,
            interrupted: false,
            evidence_lost: None,
            nodes: Vec::new(),
            host: None,
            server_seconds: None,
            node_seconds: Vec::new(),
            steadiness: None,
            precision: None,
            batches: None,
            server_latency: None,
            watched: Vec::new(),
        }
    }
}

/// Events per second, 0 for an empty span.
pub fn rate(count: u64, duration: Duration) -> f64 {
    let secs = duration.as_secs_f64();
    if secs > 0.0 { count as f64 / secs } else { 0.0 }
}

/// A titled view of one or more phases, as the reports print it.
#[derive(Debug, Clone)]
pub struct Section<'a> {
    /// `ALL STATS`, `RUN #2 RESULTS`, `BEST RUN RESULTS`, ...
    pub title: String,
    /// The merged stats.
    pub stats: Cow<'a, Stats>,
    /// The time the stats span.
    pub duration: Duration,
    /// Wall-clock start.
    pub started_wall: SystemTime,
    /// Wall-clock end (for an aggregate, the end of the last run).
    pub finished_wall: SystemTime,
    /// Per-second series (empty for aggregates).
    pub series: &'a [Second],
    /// A phase in it was cut short by a signal.
    pub interrupted: bool,
    /// The phases it shows (one, or every run for the aggregate), which its
    /// verdict judges.
    pub runs: Vec<&'a PhaseResult>,
}

impl<'a> Section<'a> {
    /// A view of a single phase under a title.
    pub fn of(title: String, p: &'a PhaseResult) -> Self {
        Section {
            title,
            stats: Cow::Borrowed(&p.stats),
            duration: p.duration,
            started_wall: p.started_wall,
            finished_wall: p.started_wall + p.duration,
            series: &p.series,
            interrupted: p.interrupted,
            runs: vec![p],
        }
    }
}

/// Everything a benchmark produced so far.
#[derive(Debug, Clone, Default)]
pub struct Results {
    /// The server, when it answers INFO.
    pub server: Option<ServerContext>,
    /// The prefill, if one ran.
    pub prefill: Option<PhaseResult>,
    /// The warm-up, if one ran.
    pub warmup: Option<PhaseResult>,
    /// Completed measured runs, in order.
    pub runs: Vec<PhaseResult>,
    /// How many runs were asked for (`-x`; with `-x auto`, the most).
    pub planned_runs: u32,
    /// `-x auto`: the runs after which the median run was known as well
    /// as asked, and no more were run; `None` otherwise.
    pub runs_met_after: Option<u32>,
    /// The phase a SIGINT/SIGTERM cut short, and the signal.
    pub interrupted: Option<(Phase, i32)>,
    /// Where the worker threads ran, and why.
    pub placement: Option<Placement>,
    /// `--cluster-mode`: the nodes found at the start.
    pub cluster: Option<ClusterContext>,
    /// A sharded or `--start-at` run: phase lags and clock offsets.
    pub timing: Option<crate::engine::master::run::Timing>,
    /// `--tls`: the session the preflight connection negotiated.
    pub tls: Option<crate::engine::worker::net::tls_session::TlsSession>,
    /// `--client-stats` files that could not be written (exit code 1).
    pub unwritten: Vec<crate::engine::worker::client_stats::Unwritten>,
}

impl Results {
    /// Index of the completed run with the highest total ops/sec.
    pub fn best(&self) -> Option<usize> {
        self.pick(|a, b| a > b)
    }

    /// Index of the completed run with the lowest total ops/sec.
    pub fn worst(&self) -> Option<usize> {
        self.pick(|a, b| a < b)
    }

    /// Runs that ran to their end; a run cut short by a signal or by
    /// `--max-errors` is reported but not counted here.
    pub fn completed_runs(&self) -> usize {
        self.runs.iter().filter(|r| !r.interrupted).count()
    }

    /// True when every planned run ran to its end and nothing was cut short.
    pub fn is_complete(&self) -> bool {
        let ran = self.completed_runs() as u32;
        self.interrupted.is_none()
            && (ran >= self.planned_runs || self.runs_met_after.is_some_and(|n| ran >= n))
    }

    /// A cut run is reported, never ranked: its rate covers a shorter, partial
    /// time and says nothing about the best or the worst of the runs.
    fn pick(&self, better: impl Fn(f64, f64) -> bool) -> Option<usize> {
        let mut chosen: Option<(usize, f64)> = None;
        for (i, run) in self.runs.iter().enumerate().filter(|(_, r)| !r.interrupted) {
            let r = run.ops_per_sec();
            if chosen.is_none_or(|(_, best)| better(r, best)) {
                chosen = Some((i, r));
            }
        }
        chosen.map(|(i, _)| i)
    }

    /// The runs that ran to their end merged, titled with how many they are
    /// (memtier's title, for the runs it has); `None` when none did. A run cut
    /// short covers a part of its time only: averaged in, it would lower the
    /// rate and hide its cause, so it is reported on its own.
    pub fn aggregate(&self) -> Option<Section<'_>> {
        let mut completed = self.runs.iter().filter(|r| !r.interrupted);
        let first = completed.next()?;
        let mut stats = first.stats.clone();
        let mut duration = first.duration;
        let mut last = first;
        let mut merged = 1;
        for run in completed {
            stats += &run.stats;
            duration += run.duration;
            last = run;
            merged += 1;
        }
        Some(Section {
            title: format!("AGGREGATED AVERAGE RESULTS ({merged} runs)"),
            stats: Cow::Owned(stats),
            duration,
            started_wall: first.started_wall,
            finished_wall: last.started_wall + last.duration,
            series: &[],
            interrupted: false,
            runs: self.runs.iter().filter(|r| !r.interrupted).collect(),
        })
    }

    /// The spread of the completed runs' total ops/sec (a run cut short by a
    /// signal is left out); `None` with fewer than two.
    pub fn variance(&self) -> Option<Variance> {
        let rates: Vec<f64> = self
            .runs
            .iter()
            .filter(|r| !r.interrupted)
            .map(PhaseResult::ops_per_sec)
            .collect();
        Variance::of(&rates)
    }

    /// All measured runs merged (empty counts when only the warm-up has ended);
    /// `None` before any phase ended.
    pub fn run_totals(&self) -> Option<Stats> {
        let mut all = self.warmup.as_ref().or(self.runs.first())?.stats.clone();
        all.reset();
        for run in &self.runs {
            all += &run.stats;
        }
        Some(all)
    }

    /// The sections in report order: `ALL STATS` for a single run; otherwise each
    /// run, BEST, WORST and AGGREGATED AVERAGE.
    pub fn sections(&self) -> Vec<Section<'_>> {
        if self.planned_runs <= 1 {
            return self
                .runs
                .first()
                .map(|r| vec![Section::of("ALL STATS".into(), r)])
                .unwrap_or_default();
        }
        let mut out: Vec<Section<'_>> = self
            .runs
            .iter()
            .enumerate()
            .map(|(i, r)| Section::of(format!("RUN #{} RESULTS", i + 1), r))
            .collect();
        if let (Some(best), Some(worst)) = (self.best(), self.worst()) {
            out.push(Section::of("BEST RUN RESULTS".into(), &self.runs[best]));
            out.push(Section::of("WORST RUN RESULTS".into(), &self.runs[worst]));
        }
        out.extend(self.aggregate());
        out
    }

    /// The section whose distribution and summary the text report shows last.
    pub fn headline(&self) -> Option<Section<'_>> {
        self.sections().pop()
    }
}

#[cfg(test)]
mod tests;
