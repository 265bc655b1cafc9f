//! The master: preflight, spawning and pinning workers, and the schedule of phases.
//!
//! Each phase starts when every worker has been told its common start instant and
//! ends when every worker has sent its last report for it, so no run contains
//! another's traffic: the master's receive loop is the barrier. Per-second reports
//! are merged into the phase's totals with `+=` and into the per-second series.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crate::config::{Config, Stop, UsageError};
use crate::crew::{self, Crew};
use crate::interrupt::Interrupt;
use crate::net::{self, ConnectError};
use crate::report::hdr::{self, IntervalLogs};
use crate::report::progress::Progress;
use crate::results::{Phase, PhaseResult, Results, ServerContext};
use crate::server::{Control, Info, PhaseEvidence};
use crate::stats::series::SeriesBuilder;
use crate::stats::{ErrorCounts, Stats};
use crate::sysinfo;
use crate::target::Endpoint;
use crate::worker::{Command, Report};

/// Why a benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Something the user can fix (exit code 2).
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// Anything else (exit code 1).
    #[error("{0}")]
    Failed(String),
}

/// Turns a connection failure into advice that names the flag to change.
pub fn connect_advice(e: &ConnectError, endpoint: &Endpoint) -> UsageError {
    let place = match endpoint {
        Endpoint::Unix(_) => "--unix-socket",
        Endpoint::Tcp { .. } => "--server/--port",
    };
    match e {
        ConnectError::Resolve(_) | ConnectError::Io { .. } => UsageError::new(
            place,
            format!("{e}; is the server running there? check {place}"),
        ),
        ConnectError::Auth(_) | ConnectError::AuthRequired(_) => UsageError::new(
            "--authenticate",
            format!("{e}; check -a/--authenticate (PASSWORD or USER:PASSWORD) or KVBENCH_AUTH"),
        ),
        ConnectError::Select(_) => UsageError::new(
            "--select-db",
            format!("{e}; choose a database the server has"),
        ),
        ConnectError::Refused(_) => UsageError::new(
            "--clients",
            format!(
                "{e}; the server may limit connections (maxclients): lower --threads or --clients"
            ),
        ),
        ConnectError::Protocol(_) => UsageError::new(
            "--protocol",
            format!("{e}; is {endpoint} a Redis-protocol server? kvbench speaks --protocol redis"),
        ),
    }
}

/// Runs the whole schedule: prefill (if asked), warm-up (if any), then each
/// measured run, with the server's evidence around each. After each phase
/// `on_phase` sees the results so far, so they can be saved at once.
/// `prefill` says whether to run the prefill phase (a sweep runs it in its first
/// cell only; `config.prefill` keeps saying the range was prefilled).
pub fn run(
    config: Config,
    prefill: bool,
    interrupt: &Interrupt,
    progress: &mut Progress,
    on_phase: &mut dyn FnMut(&Results),
) -> Result<Results, RunError> {
    // One connection first, so that a wrong address or password is one clear
    // error rather than a failure in every thread.
    net::connect(&config.target).map_err(|e| connect_advice(&e, &config.target.endpoint))?;
    check_fd_limit(&config)?;
    let config = Arc::new(config);
    let empty = Stats::for_config(&config)
        .map_err(|e| RunError::Failed(format!("cannot create histograms: {e}")))?;
    let crew = crew::spawn(&config, interrupt)?;
    if let Err(e) = crew::await_ready(&crew, &config) {
        crew.shutdown();
        return Err(e);
    }
    let mut master = Master {
        budget: ErrorBudget {
            max: config.faults.max_errors,
            seen: 0,
            interrupt: interrupt.clone(),
        },
        control: Control::open(&config.target).ok(),
        crew,
        config,
        empty,
    };
    let mut results = Results {
        planned_runs: master.config.run_count,
        server: master.server_context(),
        ..Results::default()
    };
    for (phase, stop) in schedule(&master.config, prefill) {
        let mut result = master.phase(phase, stop, progress);
        result.interrupted = interrupt.stop_requested();
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
        on_phase(&results);
        if results.interrupted.is_some() {
            break;
        }
    }
    master.crew.shutdown();
    Ok(results)
}

/// Every connection, each worker's poll and timer, the control connection and
/// some slack for files must fit under the open-file limit; raise the soft
/// limit if that is enough, otherwise say which number to change.
fn check_fd_limit(config: &Config) -> Result<(), UsageError> {
    let needed = (config.connections() + 2 * config.threads + 64) as u64;
    sysinfo::ensure_fd_limit(needed).map_err(|(soft, hard)| {
        UsageError::new(
            "--clients",
            format!(
                "{} connections need about {needed} open files, but the limit is {soft} (hard limit {hard}); raise it (ulimit -n {needed}, or LimitNOFILE for a service) or lower --threads/--clients",
                config.connections()
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
    /// The control connection for server evidence; `None` if it could not open.
    control: Option<Control>,
    /// `--max-errors`, counted over all phases.
    budget: ErrorBudget,
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

impl Master {
    /// What the server is, read once before the first phase.
    fn server_context(&mut self) -> Option<ServerContext> {
        let control = self.control.as_mut()?;
        let info = control.info()?;
        Some(ServerContext {
            appendfsync: control.config_get("appendfsync"),
            save: control.config_get("save"),
            info,
        })
    }

    /// INFO from the control connection, reopening it once if the server went
    /// away (a restart during the phase breaks it like any other connection).
    fn info(&mut self) -> Option<Info> {
        if let Some(info) = self.control.as_mut().and_then(Control::info) {
            return Some(info);
        }
        self.control = Control::open(&self.config.target).ok();
        self.control.as_mut().and_then(Control::info)
    }

    /// One phase, with INFO read before and after it (and the slow log, for
    /// measured runs with `--slowlog`).
    fn phase(&mut self, phase: Phase, stop: Stop, progress: &mut Progress) -> PhaseResult {
        let slowlog = self.config.output.slowlog && matches!(phase, Phase::Run(_));
        let before = self.info();
        if slowlog && let Some(c) = self.control.as_mut() {
            c.slowlog_reset();
        }
        let mut result = run_phase(
            &self.crew,
            &self.config,
            phase,
            stop,
            &self.empty,
            &mut self.budget,
            progress,
        );
        // The slow log first, so that the INFO below is not in it.
        let slowlog = match self.control.as_mut() {
            Some(c) if slowlog => c.slowlog_get(SLOWLOG_ENTRIES),
            _ => None,
        };
        let after = self.info();
        result.server = before.zip(after).map(|(before, after)| PhaseEvidence {
            before,
            after,
            slowlog,
        });
        result
    }
}

/// How many slow-log entries are read after a run.
const SLOWLOG_ENTRIES: usize = 128;

/// The master's side of one phase: start every worker, merge their per-second
/// reports, and return when each has sent its last one.
fn run_phase(
    crew: &Crew,
    config: &Config,
    phase: Phase,
    stop: Stop,
    empty: &Stats,
    budget: &mut ErrorBudget,
    progress: &mut Progress,
) -> PhaseResult {
    let index = phase.seed_index();
    let started_wall = SystemTime::now();
    let started_at = Instant::now();
    for tx in &crew.commands {
        let _ = tx.send(Command::Phase {
            index,
            stop,
            started_at,
            prefill: phase == Phase::Prefill,
        });
    }
    progress.start_phase(phase, stop);
    let mut hlogs = open_interval_logs(config, phase, started_wall);
    let mut log_second = |second: u64, merged: &Stats| {
        if let Some(logs) = hlogs.as_mut()
            && let Err(e) = logs.write_second(second, merged)
        {
            eprintln!(
                "kvbench: cannot write the interval log of {phase}: {e}; no more intervals are written"
            );
            hlogs = None;
        }
    };
    let mut series = SeriesBuilder::new(config.threads, &config.output.percentiles);
    let mut total = empty.clone();
    let mut finished = 0;
    let mut ended_at = started_at;
    let mut open = vec![config.clients; config.threads];
    let mut thread_cpu = vec![Duration::ZERO; config.threads];
    let mut unsent = 0;
    while finished < crew.handles.len() {
        let Ok(report) = crew.reports.recv() else {
            break;
        };
        let Report::Second {
            thread,
            second,
            stats,
            last,
            finished_at,
            open_connections,
            backlog,
            end,
        } = report
        else {
            continue;
        };
        total += &*stats;
        budget.add(&stats.errors);
        if let Some(slot) = open.get_mut(thread) {
            *slot = open_connections;
        }
        if let (Some(end), Some(cpu)) = (end, thread_cpu.get_mut(thread)) {
            *cpu = end.cpu_time;
            unsent += end.unsent;
        }
        let completed = series.add(second, &stats, backlog, &mut log_second);
        // The final, partial second is summed up by `end_phase` instead.
        if let (Some(done), false) = (completed, last) {
            progress.second(done, &total, started_at.elapsed(), open.iter().sum());
        }
        if last {
            finished += 1;
            ended_at = ended_at.max(finished_at);
        }
    }
    let result = PhaseResult {
        phase,
        started_wall,
        duration: ended_at.saturating_duration_since(started_at),
        stats: total,
        series: series.finish(&mut log_second),
        thread_cpu,
        unsent,
        server: None,
        interrupted: false,
    };
    finish_hdr_files(config, hlogs, &result);
    progress.end_phase(&result);
    result
}

/// The interval logs of a measured run, when `--hdr-file-prefix` asks for them. A
/// file that cannot be created is reported and skipped: the benchmark goes on.
fn open_interval_logs(config: &Config, phase: Phase, started: SystemTime) -> Option<IntervalLogs> {
    let prefix = config.output.hdr_file_prefix.as_ref()?;
    if !matches!(phase, Phase::Run(_)) {
        return None;
    }
    IntervalLogs::create(prefix, phase, started)
        .map_err(|e| eprintln!("kvbench: cannot create the interval logs for {phase} under --hdr-file-prefix {}: {e}", prefix.display()))
        .ok()
}

/// Closes the interval logs and writes the run's percentile distributions.
fn finish_hdr_files(config: &Config, logs: Option<IntervalLogs>, result: &PhaseResult) {
    let Some(prefix) = &config.output.hdr_file_prefix else {
        return;
    };
    if !matches!(result.phase, Phase::Run(_)) {
        return;
    }
    let written = logs
        .map_or(Ok(()), IntervalLogs::finish)
        .and_then(|()| hdr::write_distributions(prefix, result));
    if let Err(e) = written {
        eprintln!(
            "kvbench: cannot write the HdrHistogram files of {} under --hdr-file-prefix {}: {e}",
            result.phase,
            prefix.display()
        );
    }
}
