//! `kvbench suite --html-out-file`: the page's file, checked before any
//! connection opens (writable, and not the file `--json-out-file` names).
//! The page itself is written by the exporter manager
//! ([`crate::report::export`]), as a run's is.

use std::io;
use std::path::Path;

use crate::error::UsageError;
use crate::report::files::{SameFileCheck, Target};

/// The flag this file is named by.
const FLAG: &str = "--html-out-file";

/// The suite's `--html-out-file`, checked.
#[derive(Debug, Clone)]
pub struct PageFile;

impl PageFile {
    /// Checks `html` before the suite starts: it can be written, and it is
    /// not the file `json` (the suite's `--json-out-file`) names.
    pub fn check(html: &Path, json: Option<&Path>) -> Result<PageFile, UsageError> {
        let unwritable = |e: io::Error| {
            UsageError::new(
                FLAG,
                format!("cannot write {}: {e}; give a writable path", html.display()),
            )
        };
        let target = Target::of(html).map_err(unwritable)?;
        target.check_writable().map_err(unwritable)?;
        if let Some(json) = json {
            // Unwritable or not, the JSON file's own check says so first.
            if let Ok(json_target) = Target::of(json) {
                SameFileCheck::default()
                    .output("--json-out-file", json, &json_target)
                    .output(FLAG, html, &target)
                    .check()?;
            }
        }
        Ok(PageFile)
    }
}

#[cfg(test)]
mod tests {
    use super::PageFile;

    fn scratch(tag: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("kvbench-page-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_missing_directory_and_the_json_file_itself_are_refused() {
        let e = PageFile::check("/nonexistent-kvbench-dir/s.html".as_ref(), None).unwrap_err();
        assert_eq!(e.flag, "--html-out-file");
        assert!(e.message.contains("writable"), "{e}");
        let dir = scratch("same");
        let json = dir.join("s.json");
        let spelled = dir.join(".").join("s.json");
        let e = PageFile::check(&spelled, Some(&json)).unwrap_err();
        assert!(e.message.contains("same file as --json-out-file"), "{e}");
        assert!(PageFile::check(&dir.join("s.html"), Some(&json)).is_ok());
        assert!(PageFile::check(&dir.join("s.html"), None).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
