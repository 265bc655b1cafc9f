//! A `--config` file read and laid under the command line: the file's values
//! first, every flag typed on the command line over them.

use std::path::PathBuf;

use serde_json::Value;

use crate::cli::Args;
use crate::config::file_values;
use crate::error::UsageError;

/// Reads and parses the `--config` file at `path`.
pub(super) fn read_config_file(path: &PathBuf) -> Result<Args, UsageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError::new("--config", format!("cannot read {}: {e}", path.display())))?;
    let args = toml::from_str(&text).map_err(|e| file_values::parse_error(path, &text, &e))?;
    file_values::reject_non_finite(path, &text)?;
    Ok(args)
}

/// Command-line values win over the file. Flags that were not typed are `None` (or
/// `false` for switches, which the command line can only turn on), so they leave
/// the file's value in place.
pub(super) fn merge(file: Args, cli: Args) -> Result<Args, UsageError> {
    let fail = |e: serde_json::Error| {
        UsageError::new(
            "--config",
            format!("cannot merge with the command line: {e}"),
        )
    };
    let mut base = serde_json::to_value(file).map_err(fail)?;
    let over = serde_json::to_value(&cli).map_err(fail)?;
    if let (Value::Object(base), Value::Object(over)) = (&mut base, over) {
        for (key, value) in over {
            if !matches!(value, Value::Null | Value::Bool(false)) {
                base.insert(key, value);
            }
        }
    }
    let mut merged: Args = serde_json::from_value(base).map_err(fail)?;
    merged.config = cli.config;
    Ok(merged)
}
