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

/// Checks the suite's `--html-out-file` `html` before the suite starts: it
/// can be written, and it is not the file `json` (the suite's
/// `--json-out-file`) names.
pub fn check_page_file(html: &Path, json: Option<&Path>) -> Result<(), UsageError> {
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_page_file;

    fn scratch(tag: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("kvbench-page-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_missing_directory_and_the_json_file_itself_are_refused() {
        let e = check_page_file("/nonexistent-kvbench-dir/s.html".as_ref(), None).unwrap_err();
        assert_eq!(e.flag, "--html-out-file");
        assert!(e.message.contains("writable"), "{e}");
        let dir = scratch("same");
        let json = dir.join("s.json");
        let spelled = dir.join(".").join("s.json");
        let e = check_page_file(&spelled, Some(&json)).unwrap_err();
        assert!(e.message.contains("same file as --json-out-file"), "{e}");
        assert!(check_page_file(&dir.join("s.html"), Some(&json)).is_ok());
        assert!(check_page_file(&dir.join("s.html"), None).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
