//! Which paths name one file: the check, made before any work, that no output
//! lands on a file the command reads (`--config`, `--auth-file`, the TLS
//! files, the reports `kvbench report` and `kvbench merge` read), on another
//! output, or on a file `--hdr-file-prefix` or `--client-stats` writes.
//!
//! A file that exists is known by its device and inode, with symbolic links
//! followed (the way a write follows them), so `./a.json`, a link to it and a
//! hard link of it are one file. A path that does not exist yet is known by
//! where it would be created: its directory's canonical path and its name.
//! Only regular files are compared with inputs: a device or FIFO given as an
//! input (`/dev/stdin`) is not destroyed by writing another one.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::{Target, directory_of};
use crate::engine::worker::client_stats;
use crate::error::UsageError;
use crate::report::hdr;
use crate::workload::ops::OpTable;

/// Where a path lands, as far as this check can tell.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Spot {
    /// The path a write lands on, spelled one way whatever way the user
    /// spelled it; `None` for stdout.
    path: Option<PathBuf>,
    /// The device and inode of the regular file there now, if any.
    file: Option<(u64, u64)>,
}

impl Spot {
    /// Where a write to `target` lands.
    fn of_target(target: &Target) -> Spot {
        match target {
            Target::Stdout | Target::Stderr => Spot::default(),
            Target::Replace(path) => {
                let dir = fs::canonicalize(directory_of(path)).unwrap_or_default();
                Spot {
                    path: Some(dir.join(path.file_name().unwrap_or_default())),
                    file: regular_file(path),
                }
            }
            Target::InPlace(path) => Spot {
                path: Some(fs::canonicalize(path).unwrap_or_else(|_| path.clone())),
                file: None,
            },
        }
    }

    /// The file a read of `path` opens: only a regular file can be lost.
    fn of_input(path: &Path) -> Spot {
        Spot {
            path: None,
            file: regular_file(path),
        }
    }

    fn same(&self, other: &Spot) -> bool {
        let file = self.file.is_some() && self.file == other.file;
        file || (self.path.is_some() && self.path == other.path)
    }
}

/// The device and inode of the regular file at `path`, links followed.
fn regular_file(path: &Path) -> Option<(u64, u64)> {
    let meta = fs::metadata(path).ok()?;
    meta.is_file().then(|| (meta.dev(), meta.ino()))
}

/// How the files of a prefix flag are named, each measured run's.
enum Names<'a> {
    /// `--hdr-file-prefix`: [`hdr::run_files`] of each run.
    Hdr(&'a OpTable),
    /// `--client-stats`: `PREFIX-RUN-THREAD-CLIENT.csv`
    /// ([`client_stats::file_name`]), threads and clients from 0.
    ClientStats { threads: usize, clients: usize },
}

/// The files a prefix flag (`--hdr-file-prefix`, `--client-stats`) writes:
/// every name each measured run writes, recognized by name in the prefix's
/// directory, and the ones that exist there now by their inode.
struct PrefixFiles<'a> {
    /// The flag, for the messages.
    flag: &'static str,
    prefix: &'a Path,
    names: Names<'a>,
    runs: u32,
    /// The canonical directory the files are created in.
    dir: PathBuf,
    /// The files of those names that exist now: their path and inode.
    existing: Vec<(PathBuf, (u64, u64))>,
}

impl<'a> PrefixFiles<'a> {
    fn new(flag: &'static str, prefix: &'a Path, names: Names<'a>, runs: u32) -> PrefixFiles<'a> {
        let dir = fs::canonicalize(directory_of(&first_file(prefix, &names))).unwrap_or_default();
        let mut files = PrefixFiles {
            flag,
            prefix,
            names,
            runs,
            dir,
            existing: Vec::new(),
        };
        // A directory that cannot be listed holds nothing the check could
        // name; the writability probe has already refused one it cannot use.
        let entries = fs::read_dir(&files.dir).into_iter().flatten().flatten();
        let existing: Vec<(PathBuf, (u64, u64))> = entries
            .filter(|e| files.named(&e.file_name()))
            .filter_map(|e| regular_file(&e.path()).map(|id| (e.path(), id)))
            .collect();
        files.existing = existing;
        files
    }

    /// True when `name` is one of the files' names: the run number (and for
    /// `--client-stats` the thread and client) is read from it and compared.
    fn named(&self, name: &OsStr) -> bool {
        let Some(text) = name.to_str() else {
            return false;
        };
        match self.names {
            Names::Hdr(ops) => {
                let stem = text.rsplit_once('.').map_or(text, |(stem, _)| stem);
                let digits = stem.len() - stem.trim_end_matches(|c: char| c.is_ascii_digit()).len();
                let Ok(n) = stem[stem.len() - digits..].parse::<u32>() else {
                    return false;
                };
                (1..=self.runs).contains(&n)
                    && hdr::run_files(self.prefix, ops, n)
                        .iter()
                        .any(|f| f.file_name() == Some(name))
            }
            Names::ClientStats { threads, clients } => {
                let first = client_stats::file_name(self.prefix, 1, 0, 0);
                let first = first.file_name().and_then(OsStr::to_str).unwrap_or("");
                let lead = first.strip_suffix("1-0-0.csv").unwrap_or(first);
                let Some(numbers) = text.strip_prefix(lead).and_then(|t| t.strip_suffix(".csv"))
                else {
                    return false;
                };
                let n: Vec<Option<usize>> = numbers.split('-').map(|n| n.parse().ok()).collect();
                match n[..] {
                    [Some(run), Some(thread), Some(client)] => {
                        (1..=self.runs as usize).contains(&run)
                            && thread < threads
                            && client < clients
                    }
                    _ => false,
                }
            }
        }
    }

    /// The file of this set that `spot` is, if any.
    fn holding(&self, spot: &Spot) -> Option<PathBuf> {
        if let Some(path) = &spot.path
            && path.parent() == Some(self.dir.as_path())
            && path.file_name().is_some_and(|n| self.named(n))
        {
            return Some(path.clone());
        }
        let file = spot.file?;
        self.existing
            .iter()
            .find(|(_, id)| *id == file)
            .map(|(path, _)| path.clone())
    }
}

/// The first file `names` writes under `prefix`: its directory is the set's.
fn first_file(prefix: &Path, names: &Names<'_>) -> PathBuf {
    match names {
        Names::Hdr(_) => hdr::file_name(
            prefix,
            crate::engine::master::results::Phase::Run(1),
            "TOTALS",
            "txt",
        ),
        Names::ClientStats { .. } => client_stats::file_name(prefix, 1, 0, 0),
    }
}

/// The paths of one command, read and written, checked apart in
/// [`SameFileCheck::check`].
#[derive(Default)]
pub struct SameFileCheck<'a> {
    /// Each input: how the user named it (`--config c.toml`, `the input
    /// s1.json`) and where it is.
    inputs: Vec<(String, Spot)>,
    /// Each output: its flag, the path as typed, and where it lands.
    outputs: Vec<(&'a str, &'a Path, Spot)>,
    /// The files of each prefix flag.
    prefixes: Vec<PrefixFiles<'a>>,
}

impl<'a> SameFileCheck<'a> {
    /// A file read, named by `flag` (`--config`).
    pub fn input(mut self, flag: &str, path: &Path) -> Self {
        let named = format!("the file of {flag} ({})", path.display());
        self.inputs.push((named, Spot::of_input(path)));
        self
    }

    /// A file read that no flag names: an argument of `command`.
    pub fn argument(mut self, command: &str, path: &Path) -> Self {
        let named = format!("the input {} of {command}", path.display());
        self.inputs.push((named, Spot::of_input(path)));
        self
    }

    /// A file written: `flag`'s `path`, which lands on `target`.
    pub fn output(mut self, flag: &'a str, path: &'a Path, target: &Target) -> Self {
        self.outputs.push((flag, path, Spot::of_target(target)));
        self
    }

    /// The files `--hdr-file-prefix prefix` writes for `runs` runs of `ops`.
    pub fn hdr_files(mut self, prefix: &'a Path, ops: &'a OpTable, runs: u32) -> Self {
        let files = PrefixFiles::new("--hdr-file-prefix", prefix, Names::Hdr(ops), runs);
        self.prefixes.push(files);
        self
    }

    /// The files `--client-stats prefix` writes for `runs` runs of
    /// `threads` threads of `clients` clients each.
    pub fn client_stats(
        mut self,
        prefix: &'a Path,
        runs: u32,
        threads: usize,
        clients: usize,
    ) -> Self {
        let names = Names::ClientStats { threads, clients };
        let files = PrefixFiles::new("--client-stats", prefix, names, runs);
        self.prefixes.push(files);
        self
    }

    /// Refuses an output that lands on an input, on an earlier output or on
    /// a prefix flag's file, and a prefix flag's file that lands on an input: the later write
    /// would destroy the file. The error names both and the fix.
    pub fn check(&self) -> Result<(), UsageError> {
        for (i, (flag, path, spot)) in self.outputs.iter().enumerate() {
            if let Some((named, _)) = self.inputs.iter().find(|(_, input)| spot.same(input)) {
                return Err(UsageError::new(
                    flag,
                    format!(
                        "{} is {named}: writing there would destroy it; give {flag} a path of its own",
                        path.display()
                    ),
                ));
            }
            let mut earlier = self.outputs[..i].iter();
            if let Some((other, _, _)) = earlier.find(|(_, _, s)| spot.same(s)) {
                return Err(UsageError::new(
                    flag,
                    format!(
                        "names the same file as {other} ({}); give each report its own file",
                        path.display()
                    ),
                ));
            }
            for set in &self.prefixes {
                if let Some(file) = set.holding(spot) {
                    return Err(UsageError::new(
                        flag,
                        format!(
                            "{} is {}, one of the files {} {} writes; give {flag} a path of its own or {} another prefix",
                            path.display(),
                            file.display(),
                            set.flag,
                            set.prefix.display(),
                            set.flag,
                        ),
                    ));
                }
            }
        }
        for set in &self.prefixes {
            for (named, spot) in &self.inputs {
                if let Some(file) = set.holding(spot) {
                    return Err(UsageError::new(
                        set.flag,
                        format!(
                            "{} would write {}, which is {named}: the file {} writes would destroy it; give {} another prefix",
                            set.prefix.display(),
                            file.display(),
                            set.flag,
                            set.flag,
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
