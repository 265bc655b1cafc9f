//! The HdrHistogram files of each measured run under `--hdr-file-prefix`, an
//! exporter on the live pipeline ([`Sink`]), added by whoever starts a run
//! (`tools::benchmark`, the sweep's per-cell outputs, the suite, the
//! capacity's confirmation run): the per-second interval logs are opened as a
//! run starts and get each second's merged histograms, the
//! distributions are written as it ends. A file that cannot be written is
//! reported in a [`FailureLog`] the caller reads at the end (exit code 1);
//! the benchmark goes on.

use std::cell::RefCell;
use std::io;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::config::{Config, Stop};
use crate::engine::master::results::{Phase, PhaseResult};
use crate::engine::master::sink::Sink;
use crate::engine::stats::Stats;
use crate::engine::stats::series::Second;
use crate::error::OutputError;
use crate::report::hdr::{self, IntervalLogs};

/// The HDR files that could not be written, shared by the [`HdrFiles`] of
/// one command (a sweep's cells each have their own): the caller takes them
/// for the exit code once the run is over.
#[derive(Debug, Clone, Default)]
pub struct FailureLog(Rc<RefCell<Vec<OutputError>>>);

impl FailureLog {
    /// The failures so far, each once.
    pub fn take(&self) -> Vec<OutputError> {
        std::mem::take(&mut *self.0.borrow_mut())
    }

    fn push(&self, path: Option<PathBuf>, source: io::Error) {
        self.0.borrow_mut().push(OutputError::Write {
            what: "--hdr-file-prefix",
            path,
            source,
        });
    }
}

/// The HDR files of the runs of one benchmark.
pub struct HdrFiles {
    config: Arc<Config>,
    /// The interval logs of the run in progress (none between runs, without
    /// the flag, or after a write failed).
    logs: Option<IntervalLogs>,
    failures: FailureLog,
}

impl HdrFiles {
    /// The HDR files `config` asks for (none without `--hdr-file-prefix`),
    /// their failures kept in `failures`.
    pub fn new(config: Arc<Config>, failures: &FailureLog) -> Self {
        HdrFiles {
            config,
            logs: None,
            failures: failures.clone(),
        }
    }

    fn prefix(&self) -> Option<&PathBuf> {
        self.config.output.hdr_file_prefix.as_ref()
    }
}

impl Sink for HdrFiles {
    fn start_phase(&mut self, phase: Phase, _: Stop) {
        self.logs = None;
        let Some(prefix) = self.prefix().filter(|_| matches!(phase, Phase::Run(_))) else {
            return;
        };
        match IntervalLogs::create(prefix, &self.config.ops, phase, SystemTime::now()) {
            Ok(logs) => self.logs = Some(logs),
            Err(e) => self.failures.push(Some(prefix.clone()), e),
        }
    }

    fn second(&mut self, _: &Second, _: &Stats, _: Duration, _: usize) {}

    fn interval(&mut self, second: u64, merged: &Stats) {
        if let Some(logs) = self.logs.as_mut()
            && let Err(e) = logs.write_second(second, merged)
        {
            // No more intervals are written to this run's logs.
            let prefix = self.prefix().cloned();
            self.failures.push(prefix, e);
            self.logs = None;
        }
    }

    /// Closes the interval logs and writes the run's percentile distributions.
    fn end_phase(&mut self, result: &PhaseResult) {
        let logs = self.logs.take();
        let Some(prefix) = self
            .prefix()
            .filter(|_| matches!(result.phase, Phase::Run(_)))
        else {
            return;
        };
        let written = logs
            .map_or(Ok(()), IntervalLogs::finish)
            .and_then(|()| hdr::write_distributions(prefix, &self.config.ops, result));
        if let Err(e) = written {
            self.failures.push(Some(prefix.clone()), e);
        }
    }
}
