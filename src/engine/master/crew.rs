//! The crew: worker threads spawned, pinned and ready, with their channels.
//!
//! Spawning does every fallible step before the first phase: the CPU plan
//! ([`plan`], decided in [`crate::engine::master::placement`]), thread creation, and each
//! worker's connections. A worker that cannot connect reports
//! it, and the master turns that into a usage error naming the flag to change.

use std::sync::Arc;
use std::thread::{self, JoinHandle};

use crossbeam_channel::{Receiver, Sender, unbounded};

use crate::config::{Config, Pinning};
use crate::engine::cluster::topology::WorkerCluster;
use crate::engine::interrupt::Interrupt;
use crate::engine::master::advice::connect_advice;
use crate::engine::master::placement::{self, Facts, Placement, ServerCpus};
use crate::engine::master::server::Info;
use crate::engine::master::sysinfo;
use crate::engine::master::warmup::EarlyEnd;
use crate::engine::worker::retry::open_failed_keys;
use crate::engine::worker::{Command, Report, WorkerBuilder};
use crate::error::RunError;
use crate::error::UsageError;

/// Workers and their channels.
pub struct Crew {
    /// One command channel per worker.
    pub commands: Vec<Sender<Command>>,
    /// Every worker's reports.
    pub reports: Receiver<Report>,
    /// The threads.
    pub handles: Vec<JoinHandle<()>>,
    /// Ends the phase in progress before its deadline (`--warmup-time auto`).
    pub early_end: EarlyEnd,
}

impl Crew {
    /// Tells every worker to exit and joins them.
    pub fn shutdown(self) {
        for tx in &self.commands {
            let _ = tx.send(Command::Exit);
        }
        drop(self.commands);
        for h in self.handles {
            let _ = h.join();
        }
    }
}

/// The CPU plan: `--cpus` checked against the CPUs this process may use, then
/// [`placement::decide`] with where a local server may run (learned from its
/// `INFO server` `process_id` when kvbench is left to choose).
pub fn plan(config: &Config, server_info: Option<&Info>) -> Result<Placement, UsageError> {
    let mut available: Vec<usize> = core_affinity::get_core_ids()
        .unwrap_or_default()
        .into_iter()
        .map(|c| c.id)
        .collect();
    available.sort_unstable();
    if let Pinning::Cpus(list) = &config.pinning
        && let Some(cpu) = list.iter().find(|cpu| !available.contains(cpu))
    {
        return Err(UsageError::new(
            "--cpus",
            format!(
                "CPU {cpu} is not available to this process (available: {})",
                placement::cpu_list(&available)
            ),
        ));
    }
    let local_server = sysinfo::is_this_machine(&config.target.endpoint);
    // Learned whatever the flags, so that the report says where the server was.
    let server = server_info.filter(|_| local_server).and_then(|info| {
        let pid = u32::try_from(info.u64("process_id")?).ok()?;
        ServerCpus::of_process(pid, info.get("executable"))
    });
    Ok(placement::decide(&Facts {
        pinning: &config.pinning,
        threads: config.threads,
        available: &available,
        local_server,
        server: server.as_ref(),
    }))
}

/// Spawns and pins the workers; each opens its connections.
/// `cluster` holds one entry per thread for `--cluster-mode`, none otherwise.
pub fn spawn(
    config: &Arc<Config>,
    placement: &Placement,
    interrupt: &Interrupt,
    cluster: Vec<WorkerCluster>,
) -> Result<Crew, RunError> {
    let cpus = placement.threads.clone();
    let mut cluster = cluster.into_iter();
    let (report_tx, reports) = unbounded();
    let mut commands = Vec::new();
    let mut handles = Vec::new();
    let failed_keys = config.failed_keys_file.as_deref().and_then(|path| {
        // memtier's rule: an unwritable file does not stop the benchmark.
        open_failed_keys(path)
            .map_err(|e| {
                crate::error::note(format_args!(
                    "kvbench: --failed-keys-file {}: {e}; the run goes on without it",
                    path.display()
                ));
            })
            .ok()
    });
    let early_end = EarlyEnd::default();
    for (thread, cpu) in cpus.into_iter().enumerate() {
        let (tx, rx) = unbounded();
        let builder = WorkerBuilder {
            interrupt: interrupt.clone(),
            early_end: early_end.clone(),
            thread,
            config: Arc::clone(config),
            commands: rx,
            reports: report_tx.clone(),
            cluster: cluster.next(),
            failed_keys: failed_keys.clone(),
        };
        let handle = thread::Builder::new()
            .name(format!("kvbench-{thread}"))
            .spawn(move || {
                if let Some(id) = cpu {
                    // A refusal (a cgroup that changed since the plan) leaves the
                    // thread where the kernel puts it, which is still correct.
                    core_affinity::set_for_current(core_affinity::CoreId { id });
                }
                let reports = builder.reports.clone();
                match builder.build() {
                    Ok(worker) => worker.run(),
                    Err(error) => {
                        let _ = reports.send(Report::SetupFailed { thread, error });
                    }
                }
            })
            .map_err(|source| RunError::Spawn { thread, source })?;
        commands.push(tx);
        handles.push(handle);
    }
    Ok(Crew {
        commands,
        reports,
        handles,
        early_end,
    })
}

/// Waits until every worker has its connections ready.
pub fn await_ready(crew: &Crew, config: &Config) -> Result<(), RunError> {
    let mut ready = 0;
    while ready < crew.handles.len() {
        match crew.reports.recv() {
            Ok(Report::Ready { .. }) => ready += 1,
            Ok(Report::SetupFailed { error, .. }) => {
                return Err(connect_advice(error, &config.target.endpoint));
            }
            Ok(Report::Second { .. } | Report::Unwritten(_)) => {}
            Err(_) => {
                return Err(RunError::WorkerLost);
            }
        }
    }
    Ok(())
}
