//! Reading the files to merge, and the checks that they belong together:
//! each one a kvbench report with per-run histograms, the same workload, the
//! same shard count and planned start, no index twice, no measurement twice
//! (by its [`crate::tools::merge::digest`]), and no index missing unless `--allow-partial`. Every
//! refusal names the file and the problem.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::UsageError;
use crate::report::model::kvbench::Kvbench;
use crate::report::model::shard::ShardInfo;
use crate::report::model::{self, Document, Report};
use crate::tools::merge::digest::Digest;
use crate::tools::merge::skip::{self, SkipReason, Skipped};

/// `kvbench.config` keys that differ from machine to machine without
/// changing the workload: the seed (each process draws or derives its own),
/// the CPUs pinned, and where the outputs go. Keys that start with `shard`
/// or `start_at` are left out too: they are the shard's own.
const PER_MACHINE_KEYS: &[&str] = &[
    "seed",
    "pinning",
    "hdr_file_prefix",
    "json_out_file",
    "out_file",
    "html_out_file",
    "metrics_listen",
    "metrics_linger_s",
    "statsd",
];

/// One file, read and checked to be a kvbench report.
#[derive(Debug, Clone)]
pub struct ShardFile {
    /// The path as given.
    pub path: String,
    /// The report; its `kvbench` object is in [`ShardFile::kvbench`].
    pub report: Report,
    /// Its `kvbench` object.
    pub kvbench: Kvbench,
}

impl ShardFile {
    /// The file's `kvbench.shard`, when it was one machine of a sharded run.
    pub fn shard(&self) -> Option<&ShardInfo> {
        self.kvbench.shard.as_ref()
    }
}

/// What the checks found out about the set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetInfo {
    /// The shard count the files declare; `None` for plain files.
    pub count: Option<u32>,
    /// Indexes of the declared set that no file brought.
    pub missing: Vec<u32>,
    /// The files carry no shard object: an ad-hoc set whose completeness
    /// kvbench cannot judge.
    pub ad_hoc: bool,
}

impl SetInfo {
    /// Some shards are missing.
    pub fn partial(&self) -> bool {
        !self.missing.is_empty()
    }
}

fn refuse(file: &str, message: impl Into<String>) -> UsageError {
    UsageError::new(file, message)
}

/// A file read: one to merge, or a shard that missed the start.
#[derive(Debug, Clone)]
pub enum Read {
    /// A report to merge (boxed: a report is large, a skipped file small).
    File(Box<ShardFile>),
    /// A shard's report that says it reached a planned start too late
    /// (`kvbench.shard.late`): `--allow-partial` skips it.
    Late(Skipped),
}

/// Reads one file: a truncated or foreign file is refused with the JSON
/// error, and so is a late shard's ([`read_any`] tells it apart).
pub fn read(path: &Path) -> Result<ShardFile, UsageError> {
    match read_any(path)? {
        Read::File(f) => Ok(*f),
        Read::Late(s) => Err(late_refusal(&s)),
    }
}

/// Reads one file, a late shard's included.
pub fn read_any(path: &Path) -> Result<Read, UsageError> {
    let file = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| refuse(&file, format!("cannot read it: {e}")))?;
    from_text_any(&file, &text)
}

/// Reads `text`, the contents of `file`; a late shard's is refused.
pub fn from_text(file: &str, text: &str) -> Result<ShardFile, UsageError> {
    match from_text_any(file, text)? {
        Read::File(f) => Ok(*f),
        Read::Late(s) => Err(late_refusal(&s)),
    }
}

/// The refusal of a late shard's file without `--allow-partial`.
pub fn late_refusal(s: &Skipped) -> UsageError {
    match &s.reason {
        SkipReason::Late { phase, lag_ms } => skip::refuse_late(&s.path, phase, *lag_ms),
        SkipReason::Skewed { .. } => refuse(&s.path, s.to_string()),
    }
}

/// Reads `text`, the contents of `file`, a late shard's included.
pub fn from_text_any(file: &str, text: &str) -> Result<Read, UsageError> {
    let file = file.to_string();
    let document = model::parse(&file, text).map_err(|e| {
        refuse(
            &file,
            format!(
                "not a complete kvbench JSON report (at {}: {}); give the file --json-out-file wrote, after the run ended",
                e.path, e.message
            ),
        )
    })?;
    let mut report = match document {
        Document::Report(report) => *report,
        Document::Sweep(_) => {
            return Err(refuse(
                &file,
                "a sweep file, while the first file is a report: merge the sweep files of one sweep (cell by cell), or the report files of one workload, one per machine",
            ));
        }
        Document::Suite(_) => {
            return Err(refuse(
                &file,
                "a kvbench suite file, whose tests are not one workload: merge the report files of one workload (--json-out-file of a run), one per machine",
            ));
        }
    };
    let Some(kvbench) = report.kvbench.take() else {
        return Err(refuse(
            &file,
            "a memtier_benchmark file has no per-run histograms to merge; give kvbench's --json-out-file",
        ));
    };
    // A shard that missed a planned start has stopped there: its runs are
    // fewer than the set's, or none. It is told apart before those checks,
    // so that --allow-partial can skip it by name.
    if let Some(reason) = skip::late(&kvbench) {
        return Ok(Read::Late(Skipped {
            path: file,
            index: kvbench.shard.as_ref().map(|s| s.index),
            reason,
        }));
    }
    if kvbench.runs.is_empty() {
        return Err(refuse(
            &file,
            "no measured run ended in this file; nothing to merge",
        ));
    }
    if let Some(run) = kvbench.runs.iter().find(|r| r.histograms.is_none()) {
        return Err(refuse(
            &file,
            format!(
                "{} has no per-run histograms (kvbench.runs[].histograms); it was written by an older kvbench: rerun with this version",
                run.phase
            ),
        ));
    }
    Ok(Read::File(Box::new(ShardFile {
        path: file,
        report,
        kvbench,
    })))
}

/// The workload's settings: `kvbench.config` without the per-machine keys
/// (and, for shards, the target: each shard may drive its own server).
fn workload(config: &Map<String, Value>, sharded: bool) -> BTreeMap<&str, &Value> {
    config
        .iter()
        .filter(|(key, _)| {
            let own = PER_MACHINE_KEYS.contains(&key.as_str())
                || key.starts_with("shard")
                || key.starts_with("start_at");
            let target = sharded && key.as_str() == "target";
            !(own || target)
        })
        .map(|(k, v)| (k.as_str(), v))
        .collect()
}

/// The workload settings in which `b` differs from `a`, as `key (a vs b)`.
fn differences(a: &Map<String, Value>, b: &Map<String, Value>, sharded: bool) -> Vec<String> {
    let (wa, wb) = (workload(a, sharded), workload(b, sharded));
    let mut keys: Vec<&str> = wa.keys().chain(wb.keys()).copied().collect();
    keys.sort_unstable();
    keys.dedup();
    let shown = |v: Option<&&Value>| v.map_or("absent".to_string(), |v| v.to_string());
    keys.into_iter()
        .filter(|k| wa.get(k) != wb.get(k))
        .map(|k| format!("{k} ({} vs {})", shown(wa.get(k)), shown(wb.get(k))))
        .collect()
}

/// The checks that the files are the machines of one benchmark, made file
/// by file as each is read (so that no file is held for them): each against
/// the first (workload, runs, shard count and planned start) and against
/// those before it (shard indexes, measurements); [`SetCheck::finish`] then
/// finds the shards missing.
#[derive(Debug, Clone)]
pub struct SetCheck {
    first: String,
    config: Map<String, Value>,
    runs: usize,
    /// The first file's `(count, start_at_ms)`; `None` for a plain file.
    shard: Option<(u32, Option<u64>)>,
    indexes: BTreeMap<u32, String>,
    measurements: BTreeMap<Digest, String>,
}

impl SetCheck {
    /// The set that `first` opens (call [`SetCheck::admit`] with it too).
    pub fn new(first: &ShardFile) -> SetCheck {
        SetCheck {
            first: first.path.clone(),
            config: first.kvbench.config.clone(),
            runs: first.kvbench.runs.len(),
            shard: first.shard().map(|s| (s.count, s.start_at_ms)),
            indexes: BTreeMap::new(),
            measurements: BTreeMap::new(),
        }
    }

    /// Admits `f`, whose measurements are `measurements`
    /// ([`crate::tools::merge::digest::measurements`]).
    pub fn admit(&mut self, f: &ShardFile, measurements: &[Digest]) -> Result<(), UsageError> {
        let sharded = self.shard.is_some() && f.shard().is_some();
        let diff = differences(&self.config, &f.kvbench.config, sharded);
        if !diff.is_empty() {
            return Err(refuse(
                &f.path,
                format!(
                    "a different workload from {}: {} differ; merge only the files of one benchmark",
                    self.first,
                    diff.join(", ")
                ),
            ));
        }
        if f.kvbench.runs.len() != self.runs {
            return Err(refuse(
                &f.path,
                format!(
                    "{} measured runs, {} has {}; merge files whose runs all ended",
                    f.kvbench.runs.len(),
                    self.first,
                    self.runs
                ),
            ));
        }
        match (self.shard, f.shard()) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(refuse(
                    &f.path,
                    format!(
                        "no kvbench.shard object, while {} has one: do not mix plain runs with the machines of a sharded run",
                        self.first
                    ),
                ));
            }
            (None, Some(s)) => {
                return Err(refuse(
                    &f.path,
                    format!(
                        "a kvbench.shard object (shard {} of {}), while {} has none: do not mix plain runs with the machines of a sharded run",
                        s.index, s.count, self.first
                    ),
                ));
            }
            (Some(set), Some(s)) => self.admit_shard(&f.path, set, s)?,
        }
        for m in measurements {
            if let Some(other) = self.measurements.get(m) {
                return Err(refuse(
                    &f.path,
                    format!(
                        "the same measurement as {other} (identical runs: histograms, per-second series and counts; sha256 {m}): a copy, or a copy relabelled as another shard, would count its requests twice; give each machine's file once"
                    ),
                ));
            }
        }
        for m in measurements {
            self.measurements.insert(m.clone(), f.path.clone());
        }
        Ok(())
    }

    /// The checks on a shard object against the set's.
    fn admit_shard(
        &mut self,
        path: &str,
        (count, start_at): (u32, Option<u64>),
        s: &ShardInfo,
    ) -> Result<(), UsageError> {
        if s.count != count {
            return Err(refuse(
                path,
                format!(
                    "shard count {} but {} says {count}; merge the files of one sharded run",
                    s.count, self.first
                ),
            ));
        }
        if s.start_at_ms != start_at {
            return Err(refuse(
                path,
                format!(
                    "planned start (start_at_ms) {} but {} planned {}; merge the files of one sharded run",
                    s.start_at_ms.map_or("none".into(), |v| v.to_string()),
                    self.first,
                    start_at.map_or("none".into(), |v| v.to_string())
                ),
            ));
        }
        if s.index >= s.count {
            return Err(refuse(
                path,
                format!(
                    "shard index {} is not below the shard count {}",
                    s.index, s.count
                ),
            ));
        }
        if let Some(other) = self.indexes.get(&s.index) {
            return Err(refuse(
                path,
                format!(
                    "duplicate shard index {} (also in {other}); give each machine's file once",
                    s.index
                ),
            ));
        }
        self.indexes.insert(s.index, path.to_string());
        Ok(())
    }

    /// Every file admitted: the shards missing, refused unless
    /// `allow_partial`.
    pub fn finish(&self, allow_partial: bool) -> Result<SetInfo, UsageError> {
        let Some((count, _)) = self.shard else {
            return Ok(SetInfo {
                count: None,
                missing: Vec::new(),
                ad_hoc: true,
            });
        };
        let missing: Vec<u32> = (0..count)
            .filter(|i| !self.indexes.contains_key(i))
            .collect();
        if !missing.is_empty() && !allow_partial {
            return Err(refuse(
                "kvbench merge",
                format!(
                    "incomplete set: shard(s) {} of {count} missing; add their files, or pass --allow-partial to merge what is here (the result is marked partial)",
                    join(&missing)
                ),
            ));
        }
        Ok(SetInfo {
            count: Some(count),
            missing,
            ad_hoc: false,
        })
    }
}

/// `1, 3`.
pub fn join(indexes: &[u32]) -> String {
    indexes
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
