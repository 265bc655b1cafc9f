//! The text of `--data-verify` and `--verify-only`: memtier's lines, word for
//! word (its spelling "successfuly" included, which scripts grep for), and
//! one line per failed key, as memtier logs them.

use std::io::{self, Write};
use std::path::Path;

use crate::engine::master::verify::{Failure, Got, Verification};

/// The longest part of a value a failure line shows.
const SHOWN_VALUE_BYTES: usize = 64;

/// memtier's report of a verification: the heading, then the two counts.
pub fn text(found: &Verification) -> String {
    format!(
        "\n\nPerforming data verification...\nData verification completed:\n{:<10} keys verified successfuly.\n{:<10} keys failed.\n",
        found.verified, found.failed
    )
}

/// memtier's `error: key [K]: expected [V], got [W]` for one failed key, values
/// cut to their first 64 bytes.
pub fn failure_line(failure: &Failure) -> String {
    let shown = |bytes: &[u8]| {
        let cut = &bytes[..bytes.len().min(SHOWN_VALUE_BYTES)];
        let more = if bytes.len() > cut.len() { "..." } else { "" };
        format!("{}{more}", String::from_utf8_lossy(cut))
    };
    let key = String::from_utf8_lossy(&failure.key);
    match &failure.got {
        Got::Value(got) => format!(
            "error: key [{key}]: expected [{}], got [{}]",
            shown(&failure.expected),
            shown(got)
        ),
        Got::Nil => format!(
            "error: key [{key}]: expected [{}], got no value (the key does not exist)",
            shown(&failure.expected)
        ),
        Got::Error(e) => format!("error: request for key [{key}] failed: {e}"),
    }
}

/// Shows the failures kept on stderr, then writes [`text`] to `out_file`
/// (appended after the run's report, as memtier writes it there) or stdout.
pub fn write(out_file: Option<&Path>, found: &Verification) -> io::Result<()> {
    for failure in &found.failures {
        crate::error::note(format_args!("{}", failure_line(failure)));
    }
    let unshown = found.failed - found.failures.len() as u64;
    if unshown > 0 {
        crate::error::note(format_args!("... and {unshown} more keys failed"));
    }
    let text = text(found);
    match out_file {
        Some(path) => std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)?
            .write_all(text.as_bytes()),
        None => io::stdout().write_all(text.as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::master::verify::{Failure, Got, Verification};
    use crate::report::verification::{failure_line, text};

    #[test]
    fn prints_memtiers_counts_left_aligned_in_ten_columns() {
        let found = Verification {
            verified: 99,
            failed: 1,
            failures: Vec::new(),
        };
        let t = text(&found);
        assert!(t.contains("\nData verification completed:\n99         keys verified successfuly.\n1          keys failed.\n"), "{t}");
        assert!(t.starts_with("\n\nPerforming data verification...\n"));
    }

    #[test]
    fn a_failure_names_the_key_and_both_values() {
        let failure = Failure {
            key: b"k1".to_vec(),
            expected: b"v1".to_vec(),
            got: Got::Value(vec![b'x'; 100]),
        };
        let line = failure_line(&failure);
        assert!(
            line.starts_with("error: key [k1]: expected [v1], got [xxxx"),
            "{line}"
        );
        assert!(line.ends_with("x...]"), "{line}");
    }
}
