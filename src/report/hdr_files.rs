//! The HdrHistogram files of each measured run under `--hdr-file-prefix`, an
//! exporter on the live pipeline ([`Sink`]), added by whoever starts a run
//! (`main`, the sweep's per-cell outputs, the suite): the per-second interval logs are
//! opened as a run starts and get each second's merged histograms, the
//! distributions are written as it ends. A file that cannot be written is
//! reported; the benchmark goes on.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::config::{Config, Stop};
use crate::engine::results::{Phase, PhaseResult};
use crate::engine::sink::Sink;
use crate::engine::stats::Stats;
use crate::engine::stats::series::Second;
use crate::report::hdr::{self, IntervalLogs};

/// The HDR files of the runs of one benchmark.
pub struct HdrFiles {
    config: Arc<Config>,
    /// The interval logs of the run in progress (none between runs, without
    /// the flag, or after a write failed).
    logs: Option<IntervalLogs>,
}

impl HdrFiles {
    /// The HDR files `config` asks for (none without `--hdr-file-prefix`).
    pub fn new(config: Arc<Config>) -> Self {
        HdrFiles { config, logs: None }
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
        self.logs = IntervalLogs::create(prefix, &self.config.ops, phase, SystemTime::now())
            .map_err(|e| crate::error::note(format_args!("kvbench: cannot create the interval logs for {phase} under --hdr-file-prefix {}: {e}", prefix.display())))
            .ok();
    }

    fn second(&mut self, _: &Second, _: &Stats, _: Duration, _: usize) {}

    fn interval(&mut self, second: u64, merged: &Stats) {
        if let Some(logs) = self.logs.as_mut()
            && let Err(e) = logs.write_second(second, merged)
        {
            crate::error::note(format_args!(
                "kvbench: cannot write an interval log: {e}; no more intervals are written"
            ));
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
            crate::error::note(format_args!(
                "kvbench: cannot write the HdrHistogram files of {} under --hdr-file-prefix {}: {e}",
                result.phase,
                prefix.display()
            ));
        }
    }
}
