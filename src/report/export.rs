//! The one exporter manager (hyperfine's `ExportManager`): every file a
//! benchmark, a sweep or a suite writes is an [`Exporter`] paired with its
//! destination, built once from what the user asked for, and called after
//! each phase, cell or suite test and once at the end.
//!
//! What an exporter renders is a [`Subject`]: one benchmark's
//! [`ReportInput`], a sweep's cells, or a suite's tests, with the model's
//! [`Document`] of it, built at most once per save ([`Rendering`]) for the
//! JSON file and the page alike. Exporters return
//! bytes and never touch files, so the same bytes can go to stdout, to a file
//! or into a test. A new file format is one new file here holding its
//! exporter, plus one line in [`ExportManager::for_benchmark`] (or
//! [`ExportManager::for_suite`]).
//!
//! After each phase the rewritable outputs (regular files) are rewritten
//! atomically, so a later crash or an interrupt loses nothing; a device, FIFO
//! or stdout gets the final copy only. At the end every output is attempted,
//! each whatever became of the others, and every failure is named.
//!
//! A finished result's warnings (some look the server's address up) and
//! verdict are computed once, as a [`Judgement`], and reused by every later
//! save: a sweep or a suite does not judge its earlier cells again each time
//! it grows. The glue of each mode is in [`benchmark`] and [`suite`].

pub mod benchmark;
mod capacity;
mod html;
mod json;
pub mod suite;
mod text;

use std::cell::OnceCell;
use std::io;
use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::engine::master::sweep::{CellResult, SweepStop};
use crate::error::OutputError;
use crate::error::note;
use crate::error::terminal::{self, Stream};
use crate::report::ReportInput;
use crate::report::files::Target;
use crate::report::model::Document;
use crate::report::suite::StepResult;
use crate::report::verdict::Verdict;
use crate::report::warnings::Warning;

pub use benchmark::Written;

/// What the exporters render.
pub enum Subject<'a> {
    /// One benchmark.
    Run(&'a ReportInput<'a>),
    /// A sweep's cells so far.
    Sweep(&'a SweepView<'a>),
    /// A suite's tests so far.
    Suite(&'a SuiteView<'a>),
    /// A capacity search: its result beside one benchmark.
    Capacity(&'a CapacityView<'a>),
}

/// A capacity search as the exporters see it: the benchmark the report's
/// runs hold (the confirmation run, or the last step before it), and what
/// the search found.
pub struct CapacityView<'a> {
    /// The benchmark.
    pub input: &'a ReportInput<'a>,
    /// The search.
    pub capacity: &'a crate::report::model::capacity::Capacity,
}

/// A sweep as the exporters see it.
pub struct SweepView<'a> {
    /// The sweep's configuration (its first cell's values).
    pub config: &'a Config,
    /// Every cell measured so far, in order.
    pub cells: &'a [CellResult],
    /// Each cell's report input, in the same order.
    pub inputs: &'a [ReportInput<'a>],
    /// The cell a stop cut, once the sweep has ended.
    pub stop: Option<&'a SweepStop>,
}

/// A suite as the exporters see it.
pub struct SuiteView<'a> {
    /// Every test finished so far, in order.
    pub done: &'a [StepResult],
    /// Each test's report input, in the same order.
    pub inputs: &'a [ReportInput<'a>],
    /// How many tests the plan holds.
    pub planned: usize,
    /// True for the final save of a suite that ran every test.
    pub complete: bool,
}

/// What one save renders: the subject, and its model document, built by
/// the first exporter that asks and shared by the others.
pub struct Rendering<'a> {
    /// What is saved.
    pub subject: &'a Subject<'a>,
    document: OnceCell<Document>,
}

impl Rendering<'_> {
    /// The model's document of the subject.
    pub fn document(&self) -> &Document {
        self.document.get_or_init(|| json::document(self.subject))
    }
}

/// Renders a subject into one file format.
pub trait Exporter {
    /// The bytes of the save's subject; `Err` says why there are none.
    fn render(&self, rendering: &Rendering<'_>) -> Result<Vec<u8>, Unrendered>;
}

/// Why an exporter made no bytes.
#[derive(Debug)]
pub enum Unrendered {
    /// The JSON document could not be encoded.
    Encode(serde_json::Error),
}

/// Which write of the outputs this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Save {
    /// A rewrite after a phase, cell or test, while more are to come: skipped
    /// for a device, FIFO or stdout, which would show every copy.
    Progress,
    /// The outputs as the run ends (complete or cut short).
    Final,
}

/// A finished result's warnings and verdict, computed once.
#[derive(Debug, Clone)]
pub struct Judgement {
    /// What the reader must know before trusting the result.
    pub warnings: Vec<Warning>,
    /// Whether the result measures the workload asked for.
    pub verdict: Verdict,
}

impl Judgement {
    /// Takes the judgement a report input already holds.
    fn of(input: &ReportInput<'_>) -> Judgement {
        Judgement {
            warnings: input.warnings.clone(),
            verdict: input.verdict.clone(),
        }
    }

    /// The report input of a result judged before.
    fn input<'a>(
        &self,
        config: &'a Config,
        results: &'a crate::engine::master::results::Results,
        complete: bool,
    ) -> ReportInput<'a> {
        ReportInput {
            config,
            results,
            complete,
            warnings: self.warnings.clone(),
            verdict: self.verdict.clone(),
        }
    }
}

/// Where an exporter's bytes go.
struct Destination {
    /// The flag that named the path, for messages.
    flag: &'static str,
    /// The path; `None` for `stream`.
    path: Option<PathBuf>,
    /// Where the bytes go without a path: stdout, or stderr when the JSON
    /// has stdout (`--json-out-file -`), so that stdout holds one document.
    stream: Target,
}

impl Destination {
    fn file(flag: &'static str, path: &Path) -> Destination {
        Destination {
            flag,
            path: Some(path.to_path_buf()),
            stream: Target::Stdout,
        }
    }

    /// Why a write failed, naming the flag and the path.
    fn failed(&self, source: io::Error) -> OutputError {
        OutputError::Write {
            what: self.what(),
            path: self.path.clone(),
            source,
        }
    }

    /// Why there were no bytes to write.
    fn unrendered(&self, e: Unrendered) -> OutputError {
        match e {
            Unrendered::Encode(e) => OutputError::Encode(e),
        }
    }

    /// The flag, or `the report` for stdout.
    fn what(&self) -> &'static str {
        if self.path.is_some() {
            self.flag
        } else {
            "the report"
        }
    }

    fn target(&self) -> io::Result<Target> {
        match &self.path {
            Some(path) => Target::of(path),
            None => Ok(self.stream.clone()),
        }
    }
}

/// One output: its exporter, where its bytes go, and whether it is rewritten
/// after every phase or written at the end only.
struct Export {
    exporter: Box<dyn Exporter>,
    destination: Destination,
    each_phase: bool,
}

/// Every output of one benchmark, sweep or suite.
pub struct ExportManager {
    exports: Vec<Export>,
    /// A save after a phase failed (said at once; the exit code says it too).
    save_failed: bool,
    /// Each finished cell's or test's judgement, in order.
    judged: Vec<Judgement>,
    /// The text report, which lists the warnings, goes to the terminal that
    /// stderr shows ([`ExportManager::warnings_on_terminal`]).
    warnings_on_terminal: bool,
}

impl ExportManager {
    /// The outputs a benchmark or a sweep writes: `--json-out-file` and
    /// `--html-out-file` after every phase, the text report at the end to
    /// `--out-file` or stdout (paths already checked writable).
    pub fn for_benchmark(config: &Config) -> ExportManager {
        let out = &config.output;
        let mut manager = ExportManager::empty();
        if let Some(path) = &out.json_out_file {
            manager.add(json::Json, Destination::file("--json-out-file", path), true);
        }
        if let Some(path) = &out.html_out_file {
            let page = html::Html::named_by(out.json_out_file.as_deref().unwrap_or(path));
            manager.add(page, Destination::file("--html-out-file", path), true);
        }
        let json_on_stdout = out.json_out_file.as_deref() == Some(Path::new("-"));
        let text = Destination {
            flag: "--out-file",
            path: out.out_file.clone(),
            stream: if json_on_stdout {
                Target::Stderr
            } else {
                Target::Stdout
            },
        };
        // On a terminal the text fits it, unless --wide keeps its tables wide;
        // its prose wraps either way.
        let width = match (&text.path, &text.stream) {
            (None, Target::Stdout) => terminal::width(Stream::Stdout),
            (None, Target::Stderr) => terminal::width(Stream::Stderr),
            _ => None,
        };
        manager.warnings_on_terminal = match (width, &text.stream) {
            (None, _) => false,
            (Some(_), Target::Stderr) => true,
            (Some(_), _) => terminal::same_terminal(),
        };
        manager.add(text::Text { width }, text, false);
        manager
    }

    /// The outputs a suite writes: its JSON and its page, after every test.
    pub fn for_suite(json: Option<&Path>, html: Option<&Path>) -> ExportManager {
        let mut manager = ExportManager::empty();
        if let Some(path) = json {
            manager.add(json::Json, Destination::file("--json-out-file", path), true);
        }
        if let Some(path) = html {
            let page = html::Html::named_by(json.unwrap_or(path));
            manager.add(page, Destination::file("--html-out-file", path), true);
        }
        manager
    }

    fn empty() -> ExportManager {
        ExportManager {
            exports: Vec::new(),
            save_failed: false,
            judged: Vec::new(),
            warnings_on_terminal: false,
        }
    }

    /// True when the text report is read on the same terminal as stderr: its
    /// `Warning:` lines are the ones read, and the same warnings said on
    /// stderr too would show each twice, one copy under the other. In a file
    /// or a pipe both copies stay (a log of stderr keeps its warnings).
    pub fn warnings_on_terminal(&self) -> bool {
        self.warnings_on_terminal
    }

    fn add(
        &mut self,
        exporter: impl Exporter + 'static,
        destination: Destination,
        each_phase: bool,
    ) {
        self.exports.push(Export {
            exporter: Box::new(exporter),
            destination,
            each_phase,
        });
    }

    /// Writes every output `save` calls for; the failures, each named.
    fn save(&self, subject: &Subject<'_>, save: Save) -> Vec<OutputError> {
        let rendering = Rendering {
            subject,
            document: OnceCell::new(),
        };
        let mut failures = Vec::new();
        for export in &self.exports {
            if save == Save::Progress && !export.each_phase {
                continue;
            }
            let d = &export.destination;
            let target = match d.target() {
                Ok(target) => target,
                Err(e) => {
                    failures.push(d.failed(e));
                    continue;
                }
            };
            if save == Save::Progress && !target.rewritable() {
                continue;
            }
            let written = match export.exporter.render(&rendering) {
                Ok(bytes) => target.write(&bytes).or_else(quiet_broken_pipe),
                Err(e) => {
                    failures.push(d.unrendered(e));
                    continue;
                }
            };
            if let Err(e) = written {
                failures.push(d.failed(e));
            }
        }
        failures
    }

    /// A save after a phase: each failure said at once, and remembered for
    /// the exit code.
    fn save_progress(&mut self, subject: &Subject<'_>) {
        for e in self.save(subject, Save::Progress) {
            note(format_args!("kvbench: {e}"));
            self.save_failed = true;
        }
    }
}

/// A closed pipe (`kvbench ... | head`) is the reader's choice, not a failure.
fn quiet_broken_pipe(e: io::Error) -> io::Result<()> {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(e)
    }
}

#[cfg(test)]
mod tests;
