//! The master: preflight, spawning and pinning workers, and the schedule of phases.
//!
//! Each phase starts when every worker has been told its common start instant and
//! ends when every worker has sent its last report for it, so no run contains
//! another's traffic: the master's receive loop is the barrier. Per-second reports
//! are merged into the phase's totals with `+=` and into the per-second series.
//! With `--start-at`, a phase first waits for its planned start ([`start`]);
//! with `--start-at barrier` the shards first agree on it ([`barrier`]).
//! One phase's reports are collected by `collect`; the server's account
//! around each phase is read by `server_reads`.

use std::io;
use std::sync::Arc;

use crate::config::io_engine::IoEngine;
use crate::config::{Config, Stop};
use crate::engine::interrupt::Interrupt;
use crate::engine::master::advice::{cluster_node_without_mode, connect_advice, wrong_protocol};
use crate::engine::master::crew::{self, Crew};
use crate::engine::master::host::HostMeter;
use crate::engine::master::results::{Phase, Results};
use crate::engine::master::server::cluster::NodeLinks;
use crate::engine::master::server::{Control, ControlLink};
use crate::engine::master::sink::Sink;
use crate::engine::master::sysinfo;
use crate::engine::master::watch::Watchers;
use crate::engine::stats::{ErrorCounts, Stats};
use crate::error::{Before, RunError, UsageError};

pub mod barrier;
pub mod clock;
mod cluster;
mod collect;
mod server_reads;
pub mod start;

pub use start::{BarrierRecord, Late, Timing};
use start::{Go, Plan};

/// A setup failure, unless a signal caused it: an interrupted `connect` or
/// handshake read fails with `EINTR`, which is the user's Ctrl-C, not a fault.
fn unless_interrupted(interrupt: &Interrupt, e: RunError) -> RunError {
    if interrupt.stop_requested() {
        RunError::Interrupted(Before::Connecting)
    } else {
        e
    }
}

/// Runs the whole schedule: prefill (if asked), warm-up (if any), then each
/// measured run, with the server's evidence around each. After each phase
/// `on_phase` sees the results so far, so they can be saved at once (a
/// warm-up before an aligned run 1 is saved with that run).
/// `prefill` says whether to run the prefill phase (a sweep runs it in its first
/// cell only; `config.prefill` keeps saying the range was prefilled).
///
/// With `--start-at barrier`, a shard that fails or is stopped before it
/// reaches the barrier posts so on the board (`barrier::post_failure`),
/// and the shards waiting there stop at once.
pub fn run(
    config: Config,
    prefill: bool,
    interrupt: &Interrupt,
    live: &mut dyn Sink,
    on_phase: &mut dyn FnMut(&Results),
) -> Result<Results, RunError> {
    let barrier = config.start_at.as_ref().and_then(|s| s.barrier()).cloned();
    let Some(barrier) = barrier else {
        return run_schedule(config, prefill, interrupt, live, on_phase, &mut false);
    };
    let poster = config.clone();
    let mut reached = false;
    let result = run_schedule(config, prefill, interrupt, live, on_phase, &mut reached);
    if !reached {
        let why = match &result {
            Err(e) => Some(e.to_string()),
            Ok(r) => r.interrupted.map(|(phase, signal)| match signal {
                0 => format!("it stopped after more errors than --max-errors during {phase}"),
                _ => format!("it was stopped by signal {signal} during {phase}"),
            }),
        };
        if let Some(why) = why {
            barrier::post_failure(&poster, &barrier, &why);
        }
    }
    result
}

/// [`run`]'s schedule; `reached` is set once this shard comes to the
/// barrier (whatever the barrier then says).
fn run_schedule(
    config: Config,
    prefill: bool,
    interrupt: &Interrupt,
    live: &mut dyn Sink,
    on_phase: &mut dyn FnMut(&Results),
    reached: &mut bool,
) -> Result<Results, RunError> {
    // `--io-engine uring` on a kernel that refuses io_uring: told before any
    // connection opens, as the flag's error.
    if config.io_engine == IoEngine::Uring
        && let Err(why) = crate::engine::worker::reactor::uring_available()
    {
        return Err(RunError::Usage(UsageError::new(
            "--io-engine",
            format!("uring: this kernel refuses io_uring ({why}); use --io-engine epoll"),
        )));
    }
    // One connection first, so that a wrong address or password is one clear
    // error rather than a failure in every thread. It also reads where a local
    // server runs, for the CPU plan, and closes before the workers connect, so
    // it never takes a slot of a server that allows just enough clients.
    let mut preflight = Control::open(&config.target)
        .map_err(|e| unless_interrupted(interrupt, connect_advice(e, &config.target.endpoint)))?;
    let mut info_unanswered = None;
    let server_info = match preflight.info_checked() {
        Ok(info) => info,
        // A server that will not say is no reason to stop (the run's own
        // connections tell), unless what it said is another protocol; one
        // too slow to answer is asked nothing more, and every phase says so.
        Err(e) => {
            wrong_protocol(&config.target, preflight.last_bytes())?;
            crate::engine::master::advice::memcached_silent(
                &config.target,
                &e,
                preflight.last_bytes(),
            )?;
            if matches!(
                e.kind(),
                io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
            ) {
                info_unanswered = Some(format!("INFO before the run failed: {e}"));
            }
            None
        }
    };
    if let Some(info) = &server_info {
        cluster_node_without_mode(&config, info)?;
    }
    let tls = preflight.tls_session();
    if let Some(t) = &tls {
        // memtier 2.4's line, once per run rather than per connection: every
        // connection shares the configuration and the server.
        crate::error::note(format_args!(
            "kvbench: TLS connection established: protocol {}, cipher {}",
            t.version, t.cipher
        ));
    }
    // `--cluster-mode`: the slot map before any benchmark connection, so
    // that a seed that is no cluster node, or slots without a master, are
    // one clear error at once.
    // Lives until the run ends: it holds the topology refresher.
    // `--read-server`: the same router and per-node evidence over a fixed
    // topology of the target and its read endpoint.
    let mut cluster = match (config.cluster, &config.read_server) {
        (Some(options), _) => {
            let start = cluster::start(&config, options, &mut preflight);
            Some(start.map_err(|e| unless_interrupted(interrupt, e))?)
        }
        (None, Some(read)) => Some(cluster::start_read_server(&config, read)),
        (None, None) => None,
    };
    drop(preflight);
    // `--watch`: each component answers once before any load, or the run
    // stops here naming it.
    let watch = Watchers::open(&config.watch)?;
    // A cluster client holds a connection per node it talks to, and the
    // master a control connection per node.
    let nodes = cluster.as_ref().map_or(1, |c| c.nodes.len().max(1));
    check_fd_limit(&config, nodes)?;
    let config = Arc::new(config);
    let empty = Stats::for_config(&config).map_err(RunError::Histograms)?;
    let placement = crew::plan(&config, server_info.as_ref())?;
    let workers = cluster
        .as_mut()
        .map(|c| std::mem::take(&mut c.workers))
        .unwrap_or_default();
    let crew = crew::spawn(&config, &placement, interrupt, workers)
        .map_err(|e| unless_interrupted(interrupt, e))?;
    if let Err(e) = crew::await_ready(&crew, &config) {
        crew.shutdown();
        return Err(unless_interrupted(interrupt, e));
    }
    let mut master = Master {
        budget: ErrorBudget {
            max: config.faults.max_errors,
            seen: 0,
            interrupt: interrupt.clone(),
        },
        // Opened once the workers are connected: with maxclients exactly
        // full it is the one refused, and the report says the evidence is lost.
        control: ControlLink::open(&config.target),
        nodes: cluster
            .as_ref()
            .map(|c| NodeLinks::open(&config.target, &c.nodes)),
        meter: HostMeter::for_target(&config.target.endpoint),
        watch,
        target_info: server_info.is_some(),
        info_unanswered,
        unwritten: Vec::new(),
        crew,
        config,
        empty,
    };
    let mut results = Results {
        planned_runs: master.config.run_count,
        server: master.server_context(),
        placement: Some(placement),
        cluster: cluster.as_ref().map(|c| c.context.clone()),
        tls,
        ..Results::default()
    };
    let config = Arc::clone(&master.config);
    let mut plan = config
        .start_at
        .as_ref()
        .and_then(|s| s.given())
        .and_then(|t| Plan::new(&config, t));
    let mut reference = clock::Reference::open(&config);
    // A server that left INFO unanswered is asked for its clock no more.
    let answers = master.info_unanswered.is_none();
    results.timing = reference.begin(&config, master.control.get().filter(|_| answers));
    for (phase, stop) in schedule(&config, prefill) {
        // `--start-at barrier`: the shards meet once each is ready, after
        // its prefill, and the plan starts from the `T` they agree on.
        let barrier = config.start_at.as_ref().and_then(|s| s.barrier());
        if let (Some(barrier), None, false) = (barrier, plan, phase == Phase::Prefill) {
            let timing = results.timing.get_or_insert_with(Timing::default);
            let offset = timing.clock_start.map(|c| c.offset_ms);
            *reached = true;
            match barrier::meet(&config, barrier, offset, interrupt) {
                Ok(met) => {
                    timing.start_at = Some(met.published);
                    timing.barrier = Some(BarrierRecord {
                        run_id: barrier.run_id.clone(),
                        arrival: met.arrival,
                        waited: met.waited,
                    });
                    plan = Plan::new(&config, met.local);
                }
                // A signal at the barrier after a prefill keeps the prefill.
                Err(RunError::Interrupted(_)) if results.prefill.is_some() => {
                    results.interrupted = Some((phase, interrupt.signal().unwrap_or(0)));
                    break;
                }
                Err(e) => {
                    master.crew.shutdown();
                    return Err(e);
                }
            }
        }
        // The evidence before the last moments of the wait, so that the
        // phase starts at its planned instant, not one INFO later.
        let first = results.timing.as_ref().is_none_or(|t| t.lags.is_empty());
        start::approach(plan, phase, first, interrupt);
        let before = master.before(phase);
        match start::await_phase(plan, phase, &mut results, interrupt) {
            Go::Now => {}
            Go::Never => break,
            Go::Interrupted => {
                master.crew.shutdown();
                return Err(RunError::Interrupted(Before::Start));
            }
        }
        let stop = plan.map_or(stop, |p| p.stop(phase, stop));
        let mut result = master.phase(phase, stop, before, &mut *live);
        result.interrupted = interrupt.stop_requested();
        results.unwritten.append(&mut master.unwritten);
        match phase {
            Phase::Prefill => results.prefill = Some(result),
            Phase::Warmup => results.warmup = Some(result),
            Phase::Run(_) => results.runs.push(result),
        }
        if interrupt.stop_requested() {
            // 0 stands for the error budget, which is no signal.
            let signal = interrupt.signal().unwrap_or(0);
            // The phase in progress was cut short: keep what it measured, run no more.
            results.interrupted = Some((phase, signal));
        }
        // Writing the reports takes from milliseconds to half a second (a
        // cluster's per-node histograms): between a warm-up and an aligned
        // run 1 there is no gap for it, so the warm-up is written with run 1.
        let handoff = phase == Phase::Warmup
            && results.interrupted.is_none()
            && plan.is_some_and(|p| p.planned(Phase::Run(1)).is_some());
        if !handoff {
            on_phase(&results);
        }
        if results.interrupted.is_some() {
            break;
        }
        // -x auto: no more runs once the median run is known as asked.
        let precision = &config.precision;
        if precision.runs_auto
            && matches!(phase, Phase::Run(_))
            && results.medians_meet(&precision.targets)
        {
            results.runs_met_after = Some(results.runs.len() as u32);
            on_phase(&results);
            break;
        }
    }
    if let Some(timing) = results.timing.as_mut() {
        timing.clock_end = reference.measure(master.control.get().filter(|_| answers));
    }
    master.crew.shutdown();
    Ok(results)
}

/// Every connection, each worker's poll and timer, the control connection and
/// some slack for files must fit under the open-file limit; raise the soft
/// limit if that is enough, otherwise say which number to change.
fn check_fd_limit(config: &Config, nodes: usize) -> Result<(), UsageError> {
    let connections = config.connections() * nodes;
    // The metrics endpoint's table is reserved too: its idle connections
    // once took the descriptors the load's reconnects needed.
    let metrics = config
        .metrics
        .listen
        .map_or(0, |_| crate::config::metrics::MAX_METRICS_CONNECTIONS);
    let needed = (connections + nodes + 2 * config.threads + 64 + metrics) as u64;
    sysinfo::ensure_fd_limit(needed).map_err(|(soft, hard)| {
        UsageError::new(
            "--clients",
            format!(
                "{connections} connections{} need about {needed} open files, but the limit is {soft} (hard limit {hard}); raise it (ulimit -n {needed}, or LimitNOFILE for a service) or lower --threads/--clients",
                if metrics > 0 {
                    " and the --metrics-listen endpoint's connections"
                } else {
                    ""
                }
            ),
        )
    })
}

/// The phases in order: prefill, warm-up, runs 1..=N.
fn schedule(config: &Config, prefill: bool) -> Vec<(Phase, Stop)> {
    let mut phases = Vec::new();
    if prefill {
        phases.push((Phase::Prefill, Stop::AllKeys));
    }
    if !config.warmup.is_zero() {
        phases.push((Phase::Warmup, Stop::Time(config.warmup)));
    }
    for n in 1..=config.run_count {
        phases.push((Phase::Run(n), config.stop));
    }
    phases
}

/// The master's state across phases.
struct Master {
    crew: Crew,
    config: Arc<Config>,
    empty: Stats,
    /// The control connection for server evidence (the seed's, in
    /// `--cluster-mode`, where it serves the slow log).
    control: ControlLink,
    /// `--cluster-mode`: a control connection to every node.
    nodes: Option<NodeLinks>,
    /// `--max-errors`, counted over all phases.
    budget: ErrorBudget,
    /// This machine's CPU and network, read around and during each phase.
    meter: HostMeter,
    /// `--watch`: the components behind the target.
    watch: Watchers,
    /// The target answered INFO before the run. A proxy that does not
    /// (twemproxy closes the connection on it) has no evidence to lose:
    /// it is not asked again, and its phases say nothing is missing.
    target_info: bool,
    /// Why INFO is not asked again: the server did not answer it in time
    /// before the run (each phase's evidence is then lost, and says so).
    info_unanswered: Option<String>,
    /// `--client-stats` files the workers could not write, since the
    /// last phase's results took them.
    unwritten: Vec<crate::engine::worker::client_stats::Unwritten>,
}

/// `--max-errors`: once more errors than this were counted, the run stops the
/// way an interrupt stops it, and keeps what it measured.
struct ErrorBudget {
    max: Option<u64>,
    seen: u64,
    interrupt: Interrupt,
}

impl ErrorBudget {
    fn add(&mut self, errors: &ErrorCounts) {
        self.seen += errors.total();
        if self.max.is_some_and(|max| self.seen > max) {
            self.interrupt.abort();
        }
    }
}
