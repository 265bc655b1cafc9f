//! `kvbench suite --html-out-file`: the page's file, checked before any
//! connection opens (writable, and not the file `--json-out-file` names),
//! and the page written from the suite's JSON bytes, so that it is the page
//! `kvbench report` draws of that JSON file.
//!
//! A run's and a sweep's `--html-out-file` go through
//! `report::outputs` with the run's other files; the suite writes its own
//! files in `main`, and this is its page's share of that.

use std::io;
use std::path::Path;

use crate::error::{OutputError, UsageError};
use crate::html::page_of_json;
use crate::report::files::{SameFileCheck, Target};

/// The flag this file is named by.
const FLAG: &str = "--html-out-file";

/// Where the page goes, and the name it gives the suite.
#[derive(Debug, Clone)]
pub struct PageFile {
    target: Target,
    label: String,
}

impl PageFile {
    /// Checks `html` before the suite starts: it can be written, and it is
    /// not the file `json` (the suite's `--json-out-file`) names. The page
    /// names the suite by the JSON file's name, or by its own without one.
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
        let named = json.unwrap_or(html);
        let label = named
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| named.display().to_string());
        Ok(PageFile { target, label })
    }

    /// True when the page can be rewritten after every test (a regular
    /// file); a FIFO or a device gets the final page only.
    pub fn rewritable(&self) -> bool {
        self.target.rewritable()
    }

    /// Renders the page of the suite's JSON document `json` and writes it
    /// (atomically when it is a regular file).
    pub fn write(&self, json: &[u8]) -> Result<(), OutputError> {
        let page = page_of_json(&self.label, json).map_err(|source| OutputError::Page {
            what: FLAG,
            path: None,
            source,
        })?;
        match self.target.write(page.as_bytes()) {
            // A closed pipe (`--html-out-file - | head`) is the reader's choice.
            Err(source) if source.kind() != io::ErrorKind::BrokenPipe => Err(OutputError::Write {
                what: FLAG,
                path: None,
                source,
            }),
            _ => Ok(()),
        }
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
        let page = PageFile::check(&dir.join("s.html"), Some(&json)).unwrap();
        assert_eq!(page.label, "s.json", "named by the JSON file");
        assert!(page.rewritable());
        let alone = PageFile::check(&dir.join("s.html"), None).unwrap();
        assert_eq!(alone.label, "s.html");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
