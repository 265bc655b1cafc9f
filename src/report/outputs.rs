//! The file half of the output pipeline: every report a run writes, fed after
//! each phase and once at the end.
//!
//! After each phase the JSON file is rewritten (atomically), so a later crash
//! or an interrupt loses nothing. At the end every output is attempted, each
//! whatever became of the others, and every failure is named. At the end one [`ReportInput`] is built, its
//! warnings computed once, and every exporter (JSON, text, and the ones each
//! output flag adds) renders from it; the warnings shown on stderr are the
//! same list. The live half (progress, metrics) is in [`super::sink`].
//!
//! `--html-out-file` is rendered from the same JSON bytes, read back into the
//! typed model ([`crate::html::page_of_json`]), so the page of a run and
//! `kvbench report` of its JSON file are the same page; it is rewritten after
//! every phase too, since rendering costs milliseconds next to a phase.

use std::io;
use std::path::Path;

use crate::config::Config;
use crate::error::OutputError;
use crate::report::files::Target;
use crate::report::{self, Exporter, ReportInput, Save};
use crate::results::Results;
use crate::results::verdict::Verdict;
use crate::sweep::{CellResult, Swept};
use crate::warnings::Shown;

/// The outputs of one benchmark or sweep.
pub struct Outputs<'a> {
    config: &'a Config,
    /// A save after a phase failed (said at once; the exit code says it too).
    save_failed: bool,
}

/// What the end of a run wrote.
pub struct Written {
    /// Every output that could not be written, each named; empty when all
    /// were. Each output is attempted whatever became of the others.
    pub failures: Vec<OutputError>,
    /// A save after some phase failed.
    pub save_failed: bool,
    /// The warnings for stderr, as the text report shows them.
    pub shown: Shown,
    /// Whether the result measures the workload asked for.
    pub verdict: Verdict,
}

impl<'a> Outputs<'a> {
    /// The outputs `config` asks for (already checked writable).
    pub fn new(config: &'a Config) -> Self {
        Outputs {
            config,
            save_failed: false,
        }
    }

    /// A phase of a single benchmark ended: its JSON so far.
    pub fn phase(&mut self, results: &Results) {
        let input = ReportInput::new(self.config, results, false);
        let bytes = report::json::JsonExporter.render(&input);
        self.saved(report::write_json(self.config, &bytes, Save::Progress));
        self.saved(write_html(self.config, &bytes, Save::Progress));
    }

    /// A phase of a sweep ended: the sweep file so far.
    pub fn cells(&mut self, cells: &[CellResult]) {
        let inputs = report::sweep::inputs(cells);
        let total = self.config.sweep.cell_count();
        let bytes = report::sweep::json(self.config, cells, &inputs, total, None);
        self.saved(report::write_json(self.config, &bytes, Save::Progress));
        self.saved(write_html(self.config, &bytes, Save::Progress));
    }

    /// The benchmark ended: every report, from one input.
    pub fn finish(self, results: &Results, complete: bool) -> Written {
        let input = ReportInput::new(self.config, results, complete);
        let json = report::json::JsonExporter.render(&input);
        let text = report::text::TextExporter.render(&input);
        let failures = failures([
            report::write_json(self.config, &json, Save::Final),
            write_html(self.config, &json, Save::Final),
            report::write_text(self.config, &text),
        ]);
        Written {
            failures,
            save_failed: self.save_failed,
            shown: Shown::of_run(&input.warnings, &self.config.silenced_warnings),
            verdict: input.verdict,
        }
    }

    /// The sweep ended: the sweep file and the text report, both naming the
    /// cell a stop cut.
    pub fn finish_cells(self, swept: &Swept) -> Written {
        let config = self.config;
        let total = config.sweep.cell_count();
        let (cells, stop) = (&swept.cells, swept.stop.as_ref());
        // Progress saves skip a device or FIFO; this is the one write they get.
        let inputs = report::sweep::inputs(cells);
        let json = report::sweep::json(config, cells, &inputs, total, stop);
        let text = report::sweep::text(config, cells, &inputs, total, stop);
        let failures = failures([
            report::write_json(config, &json, Save::Final),
            write_html(config, &json, Save::Final),
            report::write_text(config, &text),
        ]);
        Written {
            failures,
            save_failed: self.save_failed,
            shown: report::sweep::shown_warnings(config, &inputs),
            verdict: report::sweep::verdict(cells, &inputs, total, stop),
        }
    }

    fn saved(&mut self, result: Result<(), OutputError>) {
        if let Err(e) = result {
            report::note(format_args!("kvbench: {e}"));
            self.save_failed = true;
        }
    }
}

/// The failures among the writes of every output: one that fails (a full
/// disk under the JSON file) must not keep the others (the text on stdout,
/// the page) from being written.
pub fn failures<const N: usize>(writes: [Result<(), OutputError>; N]) -> Vec<OutputError> {
    writes.into_iter().filter_map(Result::err).collect()
}

/// Writes the page of the JSON document `json` to `--html-out-file`
/// (atomically when it is a regular file); nothing without the flag. The page
/// names the run by the JSON file's name, or its own without one.
fn write_html(config: &Config, json: &[u8], save: Save) -> Result<(), OutputError> {
    let Some(path) = &config.output.html_out_file else {
        return Ok(());
    };
    let fail = |source| OutputError::Write {
        what: "--html-out-file",
        path: Some(path.clone()),
        source,
    };
    let target = Target::of(path).map_err(fail)?;
    if save == Save::Progress && !target.rewritable() {
        return Ok(());
    }
    let named = config.output.json_out_file.as_deref().unwrap_or(path);
    let label = named
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| Path::new(named).display().to_string());
    let page = crate::html::page_of_json(&label, json).map_err(|source| OutputError::Page {
        what: "--html-out-file",
        path: Some(path.clone()),
        source,
    })?;
    match target.write(page.as_bytes()) {
        // A closed pipe (`--html-out-file - | head`) is the reader's choice.
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(fail(e)),
        _ => Ok(()),
    }
}
