//! The paths `kvbench merge` is given, checked before any file's contents
//! are read: at least one, at most [`MAX_FILES`], no path twice, and no file
//! twice under two names (`a.json` and `./a.json`, a link: the same device
//! and inode). A set that cannot be merged is refused before it costs the
//! memory of reading it.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::UsageError;

/// The most files one merge reads: one per machine of a sharded run, which
/// is far more machines than one server or cluster is driven by; a list
/// longer than that is a glob or a script gone wrong, and is refused before
/// anything is read.
pub const MAX_FILES: usize = 1024;

/// The name refusals that are about the whole set give.
const SET: &str = "kvbench merge";

/// Checks the list of paths; returns them in order, each once.
pub fn check(paths: &[PathBuf]) -> Result<Vec<&Path>, UsageError> {
    if paths.is_empty() {
        return Err(UsageError::new(SET, "give at least one JSON report"));
    }
    if paths.len() > MAX_FILES {
        return Err(UsageError::new(
            SET,
            format!(
                "{} files given, more than the {MAX_FILES} one merge reads (one per machine of a sharded run); give each machine's file once",
                paths.len()
            ),
        ));
    }
    let mut names: BTreeMap<&Path, usize> = BTreeMap::new();
    for (i, p) in paths.iter().enumerate() {
        if let Some(first) = names.insert(p, i) {
            return Err(UsageError::new(
                &p.display().to_string(),
                format!(
                    "given twice (files {} and {}); give each machine's file once",
                    first + 1,
                    i + 1
                ),
            ));
        }
    }
    // The same file under two names: one stat per path, no contents read.
    let mut files: BTreeMap<(u64, u64), &Path> = BTreeMap::new();
    for p in paths {
        let name = p.display().to_string();
        let meta = std::fs::metadata(p)
            .map_err(|e| UsageError::new(&name, format!("cannot read it: {e}")))?;
        if let Some(other) = files.insert((meta.dev(), meta.ino()), p) {
            return Err(UsageError::new(
                &name,
                format!(
                    "the same file as {} (one file under two names); give each machine's file once",
                    other.display()
                ),
            ));
        }
    }
    Ok(paths.iter().map(PathBuf::as_path).collect())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::{MAX_FILES, check};

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("kvbench-inputs-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_path_given_twice_is_refused_before_any_file_is_opened() {
        // The files do not exist: the duplicate is found without a stat.
        let paths = [
            PathBuf::from("a.json"),
            PathBuf::from("b.json"),
            PathBuf::from("a.json"),
        ];
        let e = check(&paths).unwrap_err().to_string();
        assert_eq!(
            e,
            "a.json: given twice (files 1 and 3); give each machine's file once"
        );
    }

    #[test]
    fn one_file_under_two_names_is_refused() {
        let d = dir("names");
        let a = d.join("a.json");
        std::fs::write(&a, "{}").unwrap();
        std::fs::create_dir_all(d.join("sub")).unwrap();
        let around = d.join("sub").join("..").join("a.json");
        let linked = d.join("link.json");
        let _ = std::fs::remove_file(&linked);
        std::fs::hard_link(&a, &linked).unwrap();
        let symlinked = d.join("symlink.json");
        let _ = std::fs::remove_file(&symlinked);
        std::os::unix::fs::symlink(&a, &symlinked).unwrap();
        for other in [around, linked, symlinked] {
            let e = check(&[a.clone(), other.clone()]).unwrap_err().to_string();
            assert_eq!(
                e,
                format!(
                    "{}: the same file as {} (one file under two names); give each machine's file once",
                    other.display(),
                    a.display()
                )
            );
        }
        // `./` is the same path to the eye and to the check.
        let dotted = d.join(".").join("a.json");
        let e = check(&[a.clone(), dotted]).unwrap_err().to_string();
        assert!(e.contains("given twice"), "{e}");
        let b = d.join("b.json");
        std::fs::write(&b, "{}").unwrap();
        assert_eq!(check(&[a.clone(), b.clone()]).unwrap().len(), 2);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn more_files_than_the_cap_are_refused_without_a_stat() {
        let paths: Vec<PathBuf> = (0..=MAX_FILES)
            .map(|i| PathBuf::from(format!("missing-{i}.json")))
            .collect();
        let e = check(&paths).unwrap_err().to_string();
        assert!(e.contains("1025 files given, more than the 1024"), "{e}");
        assert!(check(&[]).is_err());
    }
}
