//! A `--config` file read and laid under the command line: the file's values
//! first, every flag typed on the command line over them; and toml's words
//! for what is wrong with a file put in kvbench's.

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

/// toml's and serde's wording of what is wrong, in kvbench's: no grammar
/// terms ("literal string", "expected nothing"), no type names of kvbench's
/// own code ("untagged enum NumListRepr").
pub(super) fn in_our_words(message: &str) -> String {
    let said = |text: &str| text.to_string();
    if message.contains("untagged enum NumListRepr") {
        return said("must be a whole number, or a list of them to sweep ([1, 4])");
    }
    if message.contains("untagged enum RequestsArg") {
        return said("must be a whole number of requests, or \"allkeys\"");
    }
    if message.contains("untagged enum") {
        return said("is not a value this key takes");
    }
    if message.starts_with("string values must be quoted") {
        return said("has no value, or text without its quotes");
    }
    // `ratio = 1:4`: TOML reads two numbers and a colon as a time of day.
    if message.starts_with("invalid time") || message.starts_with("invalid datetime") {
        return said("is read by TOML as a time of day, not text: put the value in quotes");
    }
    if message.starts_with("key with no value") {
        return said("is not a line of the form KEY = VALUE");
    }
    if message.starts_with("invalid float")
        || message.starts_with("invalid integer")
        || message.starts_with("invalid number")
    {
        return said("is not a number");
    }
    if let Some(rest) = message.strip_prefix("invalid type: ") {
        if let Some((got, wanted)) = rest.split_once(", expected ") {
            return format!("takes {wanted}, not {got}");
        }
    }
    // toml's grammar after a comma ("…, expected `=`") says nothing to a user.
    match message.split_once(", expected") {
        Some((what, _)) => what.to_string(),
        None => message.to_string(),
    }
}
