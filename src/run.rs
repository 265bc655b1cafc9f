//! The master: preflight, spawning and pinning workers, and the schedule of phases.
//!
//! Each phase starts when every worker has been told its common start instant and
//! ends when every worker has sent its last report for it, so no run contains
//! another's traffic: the master's receive loop is the barrier. Per-second reports
//! are merged into the phase's totals with `+=` and into the per-second series.

use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime};

use crossbeam_channel::{Receiver, Sender, unbounded};

use crate::config::{Config, Pinning, Stop, UsageError};
use crate::net::{self, ConnectError};
use crate::report::hdr::{self, IntervalLogs};
use crate::report::progress::Progress;
use crate::results::{Phase, PhaseResult, Results};
use crate::stats::Stats;
use crate::stats::series::SeriesBuilder;
use crate::target::Endpoint;
use crate::worker::{Command, Report, WorkerBuilder};

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

/// Workers and their channels.
struct Crew {
    commands: Vec<Sender<Command>>,
    reports: Receiver<Report>,
    handles: Vec<JoinHandle<()>>,
}

impl Crew {
    fn shutdown(self) {
        for tx in &self.commands {
            let _ = tx.send(Command::Exit);
        }
        drop(self.commands);
        for h in self.handles {
            let _ = h.join();
        }
    }
}

/// The CPU each thread is pinned to, or `None` for no pinning.
fn cpu_plan(config: &Config) -> Result<Vec<Option<core_affinity::CoreId>>, UsageError> {
    let available = core_affinity::get_core_ids().unwrap_or_default();
    let chosen: Vec<core_affinity::CoreId> = match &config.pinning {
        Pinning::Off => return Ok(vec![None; config.threads]),
        Pinning::Auto => available,
        Pinning::Cpus(list) => {
            let mut chosen = Vec::new();
            for &cpu in list {
                match available.iter().find(|c| c.id == cpu) {
                    Some(c) => chosen.push(*c),
                    None => {
                        let ids: Vec<String> = available.iter().map(|c| c.id.to_string()).collect();
                        return Err(UsageError::new(
                            "--cpus",
                            format!(
                                "CPU {cpu} is not available to this process (available: {})",
                                ids.join(",")
                            ),
                        ));
                    }
                }
            }
            chosen
        }
    };
    if chosen.is_empty() {
        return Ok(vec![None; config.threads]);
    }
    Ok((0..config.threads)
        .map(|i| Some(chosen[i % chosen.len()]))
        .collect())
}

fn spawn(config: &Arc<Config>) -> Result<Crew, RunError> {
    let cpus = cpu_plan(config)?;
    let (report_tx, reports) = unbounded();
    let mut commands = Vec::new();
    let mut handles = Vec::new();
    for (thread, cpu) in cpus.into_iter().enumerate() {
        let (tx, rx) = unbounded();
        let builder = WorkerBuilder {
            thread,
            config: Arc::clone(config),
            commands: rx,
            reports: report_tx.clone(),
        };
        let handle = thread::Builder::new()
            .name(format!("kvbench-{thread}"))
            .spawn(move || {
                if let Some(core) = cpu {
                    core_affinity::set_for_current(core);
                }
                let reports = builder.reports.clone();
                match builder.build() {
                    Ok(worker) => worker.run(),
                    Err(error) => {
                        let _ = reports.send(Report::SetupFailed { thread, error });
                    }
                }
            })
            .map_err(|e| RunError::Failed(format!("cannot start worker thread {thread}: {e}")))?;
        commands.push(tx);
        handles.push(handle);
    }
    Ok(Crew {
        commands,
        reports,
        handles,
    })
}

/// Waits until every worker has its connections ready.
fn await_ready(crew: &Crew, config: &Config) -> Result<(), RunError> {
    let mut ready = 0;
    while ready < crew.handles.len() {
        match crew.reports.recv() {
            Ok(Report::Ready { .. }) => ready += 1,
            Ok(Report::SetupFailed { error, .. }) => {
                return Err(connect_advice(&error, &config.target.endpoint).into());
            }
            Ok(Report::Second { .. }) => {}
            Err(_) => {
                return Err(RunError::Failed(
                    "a worker thread ended during setup".into(),
                ));
            }
        }
    }
    Ok(())
}

/// Runs the whole schedule: warm-up (if any), then each measured run. After each
/// phase `on_phase` sees the results so far, so they can be saved at once.
pub fn run(
    config: Config,
    progress: &mut Progress,
    on_phase: &mut dyn FnMut(&Results),
) -> Result<Results, RunError> {
    // One connection first, so that a wrong address or password is one clear
    // error rather than a failure in every thread.
    net::connect(&config.target).map_err(|e| connect_advice(&e, &config.target.endpoint))?;
    let config = Arc::new(config);
    let empty = Stats::for_run(config.rate.is_some())
        .map_err(|e| RunError::Failed(format!("cannot create histograms: {e}")))?;
    let crew = spawn(&config)?;
    if let Err(e) = await_ready(&crew, &config) {
        crew.shutdown();
        return Err(e);
    }
    let mut results = Results {
        planned_runs: config.run_count,
        ..Results::default()
    };
    if !config.warmup.is_zero() {
        let phase = run_phase(
            &crew,
            &config,
            Phase::Warmup,
            Stop::Time(config.warmup),
            &empty,
            progress,
        );
        results.warmup = Some(phase);
        on_phase(&results);
    }
    for n in 1..=config.run_count {
        let phase = run_phase(&crew, &config, Phase::Run(n), config.stop, &empty, progress);
        results.runs.push(phase);
        on_phase(&results);
    }
    crew.shutdown();
    Ok(results)
}

/// The master's side of one phase: start every worker, merge their per-second
/// reports, and return when each has sent its last one.
fn run_phase(
    crew: &Crew,
    config: &Config,
    phase: Phase,
    stop: Stop,
    empty: &Stats,
    progress: &mut Progress,
) -> PhaseResult {
    let index = match phase {
        Phase::Warmup => 0,
        Phase::Run(n) => n,
    };
    let started_wall = SystemTime::now();
    let started_at = Instant::now();
    for tx in &crew.commands {
        let _ = tx.send(Command::Phase {
            index,
            stop,
            started_at,
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
    };
    finish_hdr_files(config, hlogs, &result);
    progress.end_phase(&result);
    result
}

/// The interval logs of a measured run, when `--hdr-file-prefix` asks for them. A
/// file that cannot be created is reported and skipped: the benchmark goes on.
fn open_interval_logs(config: &Config, phase: Phase, started: SystemTime) -> Option<IntervalLogs> {
    let prefix = config.output.hdr_file_prefix.as_ref()?;
    if phase == Phase::Warmup {
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
    if result.phase == Phase::Warmup {
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
