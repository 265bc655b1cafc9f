//! Which paths name one file: the check, made before any work, that no output
//! lands on a file the command reads (`--config`, `--auth-file`, the TLS
//! files, the reports `kvbench report` and `kvbench merge` read), on another
//! output, or on a file `--hdr-file-prefix` writes.
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

/// The files of `--hdr-file-prefix`: every name each measured run writes
/// ([`hdr::run_files`]), recognized by name in the prefix's directory, and
/// the ones that exist there now by their inode.
struct HdrFiles<'a> {
    prefix: &'a Path,
    ops: &'a OpTable,
    runs: u32,
    /// The canonical directory the files are created in.
    dir: PathBuf,
    /// The files of those names that exist now: their path and inode.
    existing: Vec<(PathBuf, (u64, u64))>,
}

impl<'a> HdrFiles<'a> {
    fn new(prefix: &'a Path, ops: &'a OpTable, runs: u32) -> HdrFiles<'a> {
        let first = hdr::file_name(
            prefix,
            crate::engine::results::Phase::Run(1),
            "TOTALS",
            "txt",
        );
        let dir = fs::canonicalize(directory_of(&first)).unwrap_or_default();
        let mut files = HdrFiles {
            prefix,
            ops,
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

    /// True when `name` is one of the files' names: the run number is read
    /// from it, and that run's names are compared.
    fn named(&self, name: &OsStr) -> bool {
        let Some(text) = name.to_str() else {
            return false;
        };
        let stem = text.rsplit_once('.').map_or(text, |(stem, _)| stem);
        let digits = stem.len() - stem.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let Ok(n) = stem[stem.len() - digits..].parse::<u32>() else {
            return false;
        };
        (1..=self.runs).contains(&n)
            && hdr::run_files(self.prefix, self.ops, n)
                .iter()
                .any(|f| f.file_name() == Some(name))
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

/// The paths of one command, read and written, checked apart in
/// [`SameFileCheck::check`].
#[derive(Default)]
pub struct SameFileCheck<'a> {
    /// Each input: how the user named it (`--config c.toml`, `the input
    /// s1.json`) and where it is.
    inputs: Vec<(String, Spot)>,
    /// Each output: its flag, the path as typed, and where it lands.
    outputs: Vec<(&'a str, &'a Path, Spot)>,
    hdr: Option<HdrFiles<'a>>,
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
        self.hdr = Some(HdrFiles::new(prefix, ops, runs));
        self
    }

    /// Refuses an output that lands on an input, on an earlier output or on
    /// an HDR file, and an HDR file that lands on an input: the later write
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
            if let Some(hdr_file) = self.hdr.as_ref().and_then(|h| h.holding(spot)) {
                let prefix = self.hdr.as_ref().map_or(Path::new(""), |h| h.prefix);
                return Err(UsageError::new(
                    flag,
                    format!(
                        "{} is {}, one of the files --hdr-file-prefix {} writes; give {flag} a path of its own or --hdr-file-prefix another prefix",
                        path.display(),
                        hdr_file.display(),
                        prefix.display()
                    ),
                ));
            }
        }
        let Some(hdr) = &self.hdr else {
            return Ok(());
        };
        for (named, spot) in &self.inputs {
            if let Some(hdr_file) = hdr.holding(spot) {
                return Err(UsageError::new(
                    "--hdr-file-prefix",
                    format!(
                        "{} would write {}, which is {named}: the HDR file would destroy it; give --hdr-file-prefix another prefix",
                        hdr.prefix.display(),
                        hdr_file.display()
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
