//! The HdrHistogram files of a measured run under `--hdr-file-prefix`: the
//! per-second interval logs opened at its start, the distributions written
//! at its end. A file that cannot be written is reported; the run goes on.

use std::time::SystemTime;

use crate::config::Config;
use crate::report::hdr::{self, IntervalLogs};
use crate::results::{Phase, PhaseResult};

/// The interval logs of a measured run, when `--hdr-file-prefix` asks for them. A
/// file that cannot be created is reported and skipped: the benchmark goes on.
pub(super) fn open_interval_logs(
    config: &Config,
    phase: Phase,
    started: SystemTime,
) -> Option<IntervalLogs> {
    let prefix = config.output.hdr_file_prefix.as_ref()?;
    if !matches!(phase, Phase::Run(_)) {
        return None;
    }
    IntervalLogs::create(prefix, &config.ops, phase, started)
        .map_err(|e| crate::report::note(format_args!("kvbench: cannot create the interval logs for {phase} under --hdr-file-prefix {}: {e}", prefix.display())))
        .ok()
}

/// Closes the interval logs and writes the run's percentile distributions.
pub(super) fn finish_hdr_files(config: &Config, logs: Option<IntervalLogs>, result: &PhaseResult) {
    let Some(prefix) = &config.output.hdr_file_prefix else {
        return;
    };
    if !matches!(result.phase, Phase::Run(_)) {
        return;
    }
    let written = logs
        .map_or(Ok(()), IntervalLogs::finish)
        .and_then(|()| hdr::write_distributions(prefix, &config.ops, result));
    if let Err(e) = written {
        crate::report::note(format_args!(
            "kvbench: cannot write the HdrHistogram files of {} under --hdr-file-prefix {}: {e}",
            result.phase,
            prefix.display()
        ));
    }
}
