//! The files folded into the merge one at a time: each is read, checked
//! against itself ([`integrity`]) and against the set ([`SetCheck`]), its
//! runs added into the sums, and only what the merged report needs of it
//! kept ([`Machine`]) before the next file is read. Memory holds the sums
//! and one file, not every file: a thousand machines' files cost the sums
//! of one set, not a thousand parsed reports.

use std::path::Path;

use hdrhistogram::Histogram;

use crate::engine::stats::percentile_us;
use crate::error::UsageError;
use crate::report::build::rows::SectionShape;
use crate::report::json::round;
use crate::report::model::Report;
use crate::report::model::kvbench::{Interrupted, Kvbench, Verdict, Warning};
use crate::report::model::named::Named;
use crate::report::model::section::{TOTALS_ROW, WAITS_ROW};
use crate::report::model::shard::{ShardInfo, ShardRow};
use crate::tools::merge::check::{self, Read, SetCheck, SetInfo, ShardFile};
use crate::tools::merge::digest::{self, Digest};
use crate::tools::merge::integrity;
use crate::tools::merge::rows::percentiles_of;
use crate::tools::merge::run::{self, RunSum, add_machine};
use crate::tools::merge::skip::Skipped;

/// What the merged report keeps of one file once its runs are added in.
#[derive(Debug, Clone)]
pub struct Machine {
    /// The path as given.
    pub path: String,
    /// Its `kvbench.shard`.
    pub shard: Option<ShardInfo>,
    /// Its `kvbench.complete`.
    pub complete: bool,
    /// Its `kvbench.interrupted`.
    pub interrupted: Option<Interrupted>,
    /// Its warnings.
    pub warnings: Vec<Warning>,
    /// Its verdict.
    pub verdict: Option<Verdict>,
    /// Its first run's start, ms since the epoch.
    pub first_start_ms: Option<u64>,
    /// Its own figures, for `kvbench.shards`.
    pub row: ShardRow,
    /// The measurements it holds ([`digest::measurements`]).
    pub measurements: Vec<Digest>,
}

/// Every file folded in so far.
#[derive(Debug, Clone)]
pub struct Fold {
    /// The first file's report, without its sections and its `kvbench`
    /// (which are rebuilt from the sums): the merged document's frame.
    pub frame: Report,
    /// The first file's `kvbench`, without its runs.
    pub kvbench: Kvbench,
    /// The sections' shape, from the first file.
    pub layout: SectionShape,
    /// The runs summed over the files so far.
    pub runs: Vec<RunSum>,
    /// One per file, in order.
    pub machines: Vec<Machine>,
    /// The warm-ups summed; `None` as soon as one file has none.
    pub warmup: Option<RunSum>,
    /// The files `--allow-partial` left out, in order.
    pub skipped: Vec<Skipped>,
    set: SetCheck,
}

/// Reads, checks and folds the files at `paths`, in order, but those in
/// `left_out` (found by [`crate::tools::merge::skip::outside_skew`]); then checks that the set
/// is complete (unless `allow_partial`, which also skips a late shard's
/// file instead of refusing it).
pub fn read_all(
    paths: &[&Path],
    allow_partial: bool,
    left_out: Vec<Skipped>,
) -> Result<(Fold, SetInfo), UsageError> {
    let out: Vec<String> = left_out.iter().map(|s| s.path.clone()).collect();
    let reads = paths
        .iter()
        .filter(|p| !out.contains(&p.display().to_string()))
        .map(|path| check::read_any(path));
    fold_all(reads, allow_partial, left_out)
}

/// [`read_all`] of files already read (a sweep's cells), or read one at a
/// time as the iterator is drawn.
pub fn fold_all(
    reads: impl Iterator<Item = Result<Read, UsageError>>,
    allow_partial: bool,
    left_out: Vec<Skipped>,
) -> Result<(Fold, SetInfo), UsageError> {
    let mut fold: Option<Fold> = None;
    let mut skipped = left_out;
    for read in reads {
        // Each file's text and parsed report are dropped at the end of
        // this iteration, before the next is read.
        let file = match read? {
            Read::File(f) => *f,
            Read::Late(s) if allow_partial => {
                skipped.push(s);
                continue;
            }
            Read::Late(s) => return Err(check::late_refusal(&s)),
        };
        match &mut fold {
            Some(acc) => acc.add(file)?,
            None => fold = Some(Fold::start(file)?),
        }
    }
    let mut fold = fold.ok_or_else(|| match skipped.first() {
        Some(s) => UsageError::new(
            "kvbench merge",
            format!("every file was left out, so there is nothing to merge; the first: {s}"),
        ),
        None => UsageError::new("kvbench merge", "give at least one JSON report"),
    })?;
    let set = fold.set.finish(allow_partial)?;
    fold.skipped = skipped;
    Ok((fold, set))
}

impl Fold {
    /// The set that `first` opens.
    pub fn start(first: ShardFile) -> Result<Fold, UsageError> {
        integrity::verify(&first)?;
        let layout = layout(&first)?;
        let measurements = digest::measurements(&first);
        let mut set = SetCheck::new(&first);
        set.admit(&first, &measurements)?;
        let runs = (0..first.kvbench.runs.len())
            .map(|i| run::of_file(&first, i, &layout))
            .collect::<Result<Vec<_>, _>>()?;
        let machine = machine(&first, measurements)?;
        let warmup = run::warmup_of(&first, &layout).transpose()?;
        let ShardFile {
            report: mut frame,
            mut kvbench,
            ..
        } = first;
        frame.sections.clear();
        kvbench.runs.clear();
        Ok(Fold {
            frame,
            kvbench,
            layout,
            runs,
            machines: vec![machine],
            warmup,
            skipped: Vec::new(),
            set,
        })
    }

    /// Adds another machine's file.
    pub fn add(&mut self, f: ShardFile) -> Result<(), UsageError> {
        integrity::verify(&f)?;
        let measurements = digest::measurements(&f);
        self.set.admit(&f, &measurements)?;
        for (i, acc) in self.runs.iter_mut().enumerate() {
            add_machine(acc, &run::of_file(&f, i, &self.layout)?);
        }
        // A warm-up of some machines only would read as the whole load's.
        self.warmup = match (self.warmup.take(), run::warmup_of(&f, &self.layout)) {
            (Some(mut acc), Some(one)) => {
                add_machine(&mut acc, &one?);
                Some(acc)
            }
            _ => None,
        };
        self.machines.push(machine(&f, measurements)?);
        Ok(())
    }
}

/// The shape of the sections, from the first file's first run.
fn layout(first: &ShardFile) -> Result<SectionShape, UsageError> {
    let refuse = |m: &str| UsageError::new(&first.path, m);
    let section = run::section_of(first, 0).ok_or_else(|| refuse("no section for RUN #1"))?;
    let row_keys: Vec<&str> = section
        .rows
        .keys()
        .filter(|k| *k != WAITS_ROW && *k != TOTALS_ROW)
        .collect();
    let commands: Vec<&str> = first.kvbench.runs[0].totals.keys().collect();
    if row_keys.len() != commands.len() {
        return Err(refuse(
            "the op rows of RUN #1 do not match kvbench.runs[0].totals; the file was edited",
        ));
    }
    let first_row = row_keys.first().and_then(|k| section.row(k));
    Ok(SectionShape {
        rows: row_keys
            .iter()
            .zip(&commands)
            .map(|(r, c)| (r.to_string(), c.to_string()))
            .collect(),
        percentiles: percentiles_of(first.kvbench.config.get("percentiles"), first_row),
        cluster: first_row.is_some_and(|r| r.moved_per_sec.is_some()),
        waits: section.row(WAITS_ROW).is_some(),
        distributions: !section.distributions.is_empty(),
    })
}

fn machine(f: &ShardFile, measurements: Vec<Digest>) -> Result<Machine, UsageError> {
    Ok(Machine {
        path: f.path.clone(),
        shard: f.shard().cloned(),
        complete: f.kvbench.complete,
        interrupted: f.kvbench.interrupted.clone(),
        warnings: f.kvbench.warnings.clone(),
        verdict: f.kvbench.verdict.clone(),
        first_start_ms: f.kvbench.runs.first().map(|r| r.start_time_ms),
        row: shard_row(f)?,
        measurements,
    })
}

/// One machine's row: its own rate, hit rate and p99 over all its runs.
fn shard_row(f: &ShardFile) -> Result<ShardRow, UsageError> {
    let mut h: Option<Histogram<u64>> = None;
    let mut count = 0u64;
    let mut duration_ms = 0u64;
    for r in &f.kvbench.runs {
        duration_ms += crate::tools::merge::run::whole_ms(r.duration);
        count += r.totals.iter().map(|(_, t)| t.count).sum::<u64>();
        for (_, c) in r.histograms.iter().flat_map(Named::iter) {
            let one = c
                .decode()
                .map_err(|e| UsageError::new(&f.path, format!("{}: {e}", r.phase)))?;
            match &mut h {
                Some(h) => {
                    let _ = h.add(&one);
                }
                None => h = Some(one),
            }
        }
    }
    let shard = f.shard();
    Ok(ShardRow {
        index: shard.map(|s| s.index),
        host: shard.and_then(|s| s.host.clone()),
        ops_per_sec: if duration_ms == 0 {
            0.0
        } else {
            round(count as f64 * 1000.0 / duration_ms as f64, 2)
        },
        hit_rate: f.kvbench.hit_rate_percent,
        p99_ms: h
            .filter(|h| !h.is_empty())
            .map(|h| round(percentile_us(&h, 99.0) as f64 / 1000.0, 3)),
        start_lag_ms: shard
            .and_then(|s| s.start_lag_ms)
            .or_else(|| f.kvbench.runs.first().and_then(|r| r.start_lag_ms)),
        clock_offset_ms: shard
            .and_then(|s| s.clock.as_ref())
            .and_then(|c| c.offset_start_ms),
        file: f.path.clone(),
    })
}
