//! The crew: worker threads spawned, pinned and ready, with their channels.
//!
//! Spawning does every fallible step before the first phase: CPU choice, thread
//! creation, and each worker's connections. A worker that cannot connect reports
//! it, and the master turns that into a usage error naming the flag to change.

use std::sync::Arc;
use std::thread::{self, JoinHandle};

use crossbeam_channel::{Receiver, Sender, unbounded};

use crate::config::{Config, Pinning, UsageError};
use crate::interrupt::Interrupt;
use crate::run::{RunError, connect_advice};
use crate::worker::{Command, Report, WorkerBuilder};

/// Workers and their channels.
pub struct Crew {
    /// One command channel per worker.
    pub commands: Vec<Sender<Command>>,
    /// Every worker's reports.
    pub reports: Receiver<Report>,
    /// The threads.
    pub handles: Vec<JoinHandle<()>>,
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

/// Spawns and pins the workers; each opens its connections.
pub fn spawn(config: &Arc<Config>, interrupt: &Interrupt) -> Result<Crew, RunError> {
    let cpus = cpu_plan(config)?;
    let (report_tx, reports) = unbounded();
    let mut commands = Vec::new();
    let mut handles = Vec::new();
    for (thread, cpu) in cpus.into_iter().enumerate() {
        let (tx, rx) = unbounded();
        let builder = WorkerBuilder {
            interrupt: interrupt.clone(),
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
pub fn await_ready(crew: &Crew, config: &Config) -> Result<(), RunError> {
    let mut ready = 0;
    while ready < crew.handles.len() {
        match crew.reports.recv() {
            Ok(Report::Ready { .. }) => ready += 1,
            Ok(Report::SetupFailed { error, .. }) => {
                return Err(connect_advice(&error, &config.target.endpoint));
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
