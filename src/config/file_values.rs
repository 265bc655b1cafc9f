//! Checks on a `--config` file's values that its conversion into flags would
//! otherwise lose.
//!
//! The file is laid under the command line through JSON (see `merge` in
//! `config.rs`), and JSON has no infinity and no NaN: `rate = inf` or
//! `test-time = nan` would become "not given" and be silently dropped, where
//! `--rate inf` on the command line is refused. So a non-finite number anywhere
//! in the file is refused first, naming its key, exactly as the flag would be.

use std::path::Path;

use crate::config::UsageError;

/// Refuses `inf`, `-inf` and `nan` for any key of the file (also inside a list).
pub(super) fn reject_non_finite(path: &Path, text: &str) -> Result<(), UsageError> {
    // A file that does not parse is reported by the typed parse, with its line.
    let Ok(table) = text.parse::<toml::Table>() else {
        return Ok(());
    };
    for (key, value) in &table {
        if let Some(bad) = non_finite(value) {
            return Err(UsageError::new(
                &format!("--{key}"),
                format!(
                    "must be a finite number (got {bad} for the key {key} in {})",
                    path.display()
                ),
            ));
        }
    }
    Ok(())
}

/// The first non-finite float in `value`.
fn non_finite(value: &toml::Value) -> Option<f64> {
    match value {
        toml::Value::Float(f) if !f.is_finite() => Some(*f),
        toml::Value::Array(items) => items.iter().find_map(non_finite),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infinity_and_nan_are_refused_naming_the_key() {
        let path = Path::new("k.toml");
        for (text, flag) in [
            ("rate = inf\n", "--rate"),
            ("test-time = nan\n", "--test-time"),
            ("warmup-time = -inf\n", "--warmup-time"),
            ("pipeline = [1, inf]\n", "--pipeline"),
        ] {
            let e = reject_non_finite(path, text).unwrap_err();
            assert_eq!(e.flag, flag, "{text}");
            assert!(e.message.contains("finite"), "{}", e.message);
        }
        assert!(reject_non_finite(path, "rate = 1000.5\nthreads = 2\n").is_ok());
    }
}
