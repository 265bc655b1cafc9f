//! `kvbench merge A.json B.json …`: the exact merge of the reports of the
//! machines of a sharded run (or of any runs of one workload).
//!
//! Per-machine ops/s are not added and per-machine percentiles are not
//! averaged: counts add, histograms add (`+=`, whole and second by second),
//! and every rate, mean and percentile is recomputed from the sums, so the
//! merged p99 is the p99 of every request of every machine. The merged file
//! has the layout of a single run's (`kvbench compare` and memtier's
//! readers take it unchanged) plus `kvbench.shards` and `kvbench.merged`.
//!
//! Nothing is merged that the files do not vouch for: the list of paths is
//! checked before any file is read ([`inputs`]), each file against itself
//! ([`integrity`]), and each against the set, a measurement given twice
//! included ([`check`], [`digest`]). Every refusal exits 2, naming the file,
//! the field and the numbers.
//!
//! - [`inputs`]: the list of paths (a cap, no path or file twice);
//! - [`check`]: reading a file and refusing sets that do not belong
//!   together;
//! - [`integrity`]: a file's counts, histograms and seconds against each
//!   other;
//! - [`digest`]: the SHA-256 that identifies a measurement;
//! - [`fold`]: the files read and added one at a time;
//! - [`combine`]: the sums of one row;
//! - [`mod@run`]: one run over the machines and its section;
//! - [`skip`]: the late shards `--allow-partial` leaves out;
//! - [`summary`]: a merged run as `kvbench.runs[i]`;
//! - [`mod@sweep`]: sweep files, merged cell by cell;
//! - [`cluster`]: `--cluster-mode`'s per-node table, merged;
//! - [`evidence`]: the servers' account of each run, judged once for the set;
//! - [`open_loop`]: `--rate`'s latency blocks, merged;
//! - [`window`]: the span in which every machine was sending, and the
//!   rates over it;
//! - [`rounds`]: each run's totals beside every machine's and server's CPU
//!   and network;
//! - [`rows`]: a sum written back as memtier's op row;
//! - [`document`]: the merged report;
//! - [`text`]: the tables printed;
//! - [`round_text`]: the per-round tables among them.

pub mod check;
pub mod cluster;
#[cfg(test)]
mod cluster_tests;
pub mod combine;
pub mod digest;
pub mod document;
pub mod evidence;
pub mod fold;
pub mod hlog;
pub mod inputs;
pub mod integrity;
#[cfg(test)]
mod integrity_tests;
pub mod judged;
pub mod load_gap;
pub mod open_loop;
pub mod round_text;
pub mod rounds;
pub mod rows;
pub mod run;
pub mod skip;
pub mod summary;
pub mod sweep;
#[cfg(test)]
mod tests;
pub mod text;
pub mod window;

use crate::config::MergeOptions;
use crate::error::{UsageError, note};
use crate::report::files::{SameFileCheck, Target};
use crate::tools::exit::{self, Exit};

pub use document::Merge;
pub use sweep::SweepMerge;

/// What a merge produced: one report of a set of report files, or one sweep
/// of a set of sweep files.
#[derive(Debug, Clone)]
pub enum Merged {
    /// Report files, merged into one report.
    Report(Box<Merge>),
    /// Sweep files, merged cell by cell.
    Sweep(Box<SweepMerge>),
}

impl Merged {
    /// The merged verdict's reasons, as lines.
    pub fn verdict_lines(&self) -> Vec<String> {
        let verdict = match self {
            Merged::Report(m) => m.report.kvbench.as_ref().and_then(|k| k.verdict.as_ref()),
            Merged::Sweep(s) => s.document.kvbench.verdict.as_ref(),
        };
        verdict.map(|v| v.lines()).unwrap_or_default()
    }

    /// The merged set's warnings that are not silenced, as a run prints
    /// them on stderr (the files left out are said by [`Self::skipped`]).
    pub fn warnings(&self) -> Vec<String> {
        let warnings = match self {
            Merged::Report(m) => m.report.kvbench.as_ref().map(|k| k.warnings.as_slice()),
            // A sweep's warnings are its cells', in each cell's report.
            Merged::Sweep(_) => None,
        };
        warnings
            .unwrap_or_default()
            .iter()
            .filter(|w| !w.silenced && w.kind != document::SHARD_SKIPPED)
            .map(|w| w.message.clone())
            .collect()
    }

    /// The files `--allow-partial` left out (a sweep's, cell by cell).
    pub fn skipped(&self) -> Vec<&skip::Skipped> {
        match self {
            Merged::Report(m) => m.skipped.iter().collect(),
            Merged::Sweep(s) => s.cells.iter().flat_map(|c| &c.skipped).collect(),
        }
    }
}

/// `kvbench merge`: the merged tables on stdout, the merged report with
/// `-o`; the merged verdict decides the code as a run's does.
pub fn command(args: &crate::cli::MergeArgs) -> Exit {
    let args = MergeOptions::from_args(args);
    match run(&args) {
        Ok((merged, text)) => {
            // The files left out are said on stderr too: with `-o -` the
            // tables, which name them, are not printed.
            for s in merged.skipped() {
                note(format_args!("kvbench merge: warning: {s}"));
            }
            // What the merge found is said where a run says it, whatever
            // stdout holds (`-o -` writes the JSON there).
            for w in merged.warnings() {
                note(format_args!("kvbench merge: warning: {w}"));
            }
            exit::print(&text);
            exit::judged_lines(Exit::Success, &merged.verdict_lines(), args.allow_invalid)
        }
        Err(e) => Exit::usage(e),
    }
}

/// Reads, checks and merges the files of `args`; writes `-o` when given
/// (atomically, by a temporary file and a rename), never over one of the
/// files merged. Returns the merge and the
/// text for stdout, which is empty when `-o -` writes the JSON there.
pub fn run(args: &MergeOptions) -> Result<(Merged, String), UsageError> {
    let usage = |e: std::io::Error| {
        let path = args.output.as_deref().unwrap_or(std::path::Path::new("-"));
        UsageError::new(
            "-o",
            format!("cannot write {}: {e}; give a writable path", path.display()),
        )
    };
    // An output that cannot be written is found before the files are read.
    let target = args
        .output
        .as_deref()
        .map(Target::of)
        .transpose()
        .map_err(usage)?;
    if let (Some(t), Some(output)) = (&target, &args.output) {
        t.check_writable().map_err(usage)?;
        // `-o s1.json` would replace a machine's only report with the merge.
        let inputs = args.files.iter();
        let check = inputs.fold(SameFileCheck::default(), |check, file| {
            check.argument("kvbench merge", file)
        });
        check.output("-o", output, t).check()?;
    }
    // The list is refused before any file is read; then the files are read
    // and folded one at a time.
    let paths = inputs::check(&args.files)?;
    if let Some(sweeps) = sweep::read(&paths)? {
        let merged = sweep::merge(sweeps, args)?;
        if let Some(t) = &target {
            write(t, &merged.document).map_err(usage)?;
        }
        let text = match target {
            Some(Target::Stdout) => String::new(),
            _ => sweep::render(&merged, args),
        };
        return Ok((Merged::Sweep(Box::new(merged)), text));
    }
    // With --allow-partial, shards whose RUN #1 started too far from the
    // others' are found first (a pass that keeps only each file's start),
    // so that the fold can leave them out.
    let left_out = match args.max_skew {
        Some(max) if args.allow_partial => skip::outside_skew(&paths, max)?,
        _ => Vec::new(),
    };
    let (fold, set) = fold::read_all(&paths, args.allow_partial, left_out)?;
    let merged = document::merge(fold, set);
    if let Some(max) = args.max_skew {
        document::check_skew(merged.skew.as_ref(), max)?;
    }
    if let Some(t) = &target {
        write(t, &merged.report).map_err(usage)?;
    }
    let text = match target {
        Some(Target::Stdout) => String::new(),
        _ => text::render(&merged, args.format, args.allow_invalid, args.width),
    };
    Ok((Merged::Report(Box::new(merged)), text))
}

/// Writes `document` as pretty JSON to `t`.
fn write(t: &Target, document: &impl serde::Serialize) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(document)?;
    bytes.push(b'\n');
    t.write(&bytes)
}
