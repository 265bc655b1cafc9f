//! Checks on a `--config` file's values that its conversion into flags would
//! otherwise lose, and the one-line messages for a file the typed parse refuses.
//!
//! The file is laid under the command line through JSON (see `merge` in
//! `config/config_file.rs`), and JSON has no infinity and no NaN: `rate = inf` or
//! `test-time = nan` would become "not given" and be silently dropped, where
//! `--rate inf` on the command line is refused. So a non-finite number anywhere
//! in the file is refused first, naming its key, exactly as the flag would be.
//!
//! toml's own error is a multi-line drawing of the line with a caret, and for an
//! unknown key it lists every known one (about 900 characters). A usage error is
//! one line, so [`parse_error`] keeps the line number, the key and what was
//! expected, and adds the closest known key or an example of the right form.

use std::path::Path;

use clap::CommandFactory;

use crate::cli::{self, Args, Cli};
use crate::error::UsageError;

/// Keys whose string has a syntax, with a value that shows it; other keys get
/// an example from their TOML type (see [`example`]).
const EXAMPLES: &[(&str, &str)] = &[
    ("ratio", "\"1:4\""),
    ("key-pattern", "\"R:R\""),
    ("data-size-range", "\"32-1024\""),
    ("data-size-list", "\"32:1,1024:1\""),
    ("cpus", "\"0-3\""),
    ("print-percentiles", "\"50,99,99.9\""),
    ("tls-protocols", "\"TLSv1.2,TLSv1.3\""),
    ("protocol", "\"resp3\""),
    ("requests", "1000"),
];

/// The longest part of toml's own message kept in ours: its lists of
/// expected values would make the line unreadable.
const DETAIL_MAX_CHARS: usize = 100;

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

/// Keys whose value is a secret: an error about them never quotes the value
/// (serde's messages do: "invalid type: integer `123456`").
const SECRET_KEYS: [&str; 2] = ["authenticate", "uri"];

/// One line for a file the typed parse of [`Args`] refused: the line number,
/// the key at fault and the fix (the closest known key, or an example value).
/// No part of a secret's value is ever in it.
pub(super) fn parse_error(path: &Path, text: &str, e: &toml::de::Error) -> UsageError {
    let mut error = describe_parse_error(path, text, e);
    // Whatever toml or serde put in their message, a secret of the file is
    // not shown: the one place a new message could still quote it.
    for secret in secret_values(text) {
        error.message = error.message.replace(secret, "***");
    }
    error
}

/// The raw values of [`SECRET_KEYS`] in `text`, quotes removed, each at least
/// 3 characters long (shorter ones would blank out line numbers and words).
fn secret_values(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|line| line.split_once('='))
        .filter(|(key, _)| {
            let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
            SECRET_KEYS.contains(&key)
        })
        .map(|(_, value)| value.trim().trim_matches(|c| c == '"' || c == '\''))
        .filter(|value| value.chars().count() >= 3)
        .collect()
}

fn describe_parse_error(path: &Path, text: &str, e: &toml::de::Error) -> UsageError {
    let line = e.span().map(|span| line_of(text, span.start));
    let at = line.map_or(String::new(), |n| format!(" at line {n}"));
    let message = e.message().lines().next().unwrap_or_default().trim();
    let file = path.display();
    if let Some(unknown) = unknown_key(message) {
        let hint = match closest_key(unknown) {
            Some(known) => format!("did you mean '{known}'?"),
            None => "the keys are the long flag names of kvbench --help".to_string(),
        };
        let message = format!("{file}: unknown key '{unknown}'{at}; {hint}");
        return UsageError::new("--config", message);
    }
    let detail = shorten(&super::config_file::in_our_words(message));
    let key = line.and_then(|n| key_on_line(text, n));
    // A `[section]` header: the file's keys are flat.
    if let Some(header) = line
        .and_then(|n| text.lines().nth(n - 1))
        .map(str::trim)
        .filter(|l| l.starts_with('['))
    {
        let message = format!(
            "{file}{at}: {header} is a section, and the file has none; write its keys at the top, KEY = VALUE (e.g. server = \"127.0.0.1\")"
        );
        return UsageError::new("--config", message);
    }
    let message = match key {
        Some(key) if message.starts_with("duplicate key") => {
            format!("{file}: {key}{at}: duplicate key; give each key once")
        }
        Some(key) if SECRET_KEYS.contains(&key) => {
            let example = example(key);
            format!(
                "{file}: {key}{at}: not a valid quoted string (the value is not shown: it is a secret); write it as {key} = {example}"
            )
        }
        Some(key) if takes_seconds(key) && message.contains("string") => {
            let value = line
                .and_then(|n| value_on_line(text, n))
                .unwrap_or_default();
            match cli::seconds_for(value) {
                Some(secs) => format!(
                    "{file}: {key}{at}: takes seconds without a unit (got '{value}'); write it as {key} = {secs}"
                ),
                None => format!("{file}: {key}{at}: {detail}; write it as {key} = 10"),
            }
        }
        Some(key) if known_keys().iter().any(|k| k == key) => {
            let example = example(key);
            format!("{file}: {key}{at}: {detail}; write it as {key} = {example}")
        }
        _ => format!("{file}{at}: {detail}"),
    };
    UsageError::new("--config", message)
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The key serde named in "unknown field `KEY`, expected one of …".
fn unknown_key(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown field `")?;
    rest.split('`').next()
}

/// The key assigned on 1-based line `line` (`key = value`), quotes removed.
fn key_on_line(text: &str, line: usize) -> Option<&str> {
    let (key, _) = text.lines().nth(line.checked_sub(1)?)?.split_once('=')?;
    Some(key.trim().trim_matches(|c| c == '"' || c == '\''))
}

/// The value assigned on 1-based line `line`, quotes removed.
fn value_on_line(text: &str, line: usize) -> Option<&str> {
    let (_, value) = text.lines().nth(line.checked_sub(1)?)?.split_once('=')?;
    Some(value.trim().trim_matches(|c| c == '"' || c == '\''))
}

/// Whether `key` is a duration in seconds (`SECS` in `--help`).
fn takes_seconds(key: &str) -> bool {
    Cli::command()
        .get_arguments()
        .filter(|arg| arg.get_long() == Some(key))
        .filter_map(|arg| {
            arg.get_value_names()
                .and_then(|names| names.first().cloned())
        })
        .any(|name| name == "SECS")
}

/// toml's message up to [`DETAIL_MAX_CHARS`], cut at a character boundary.
fn shorten(message: &str) -> String {
    match message.char_indices().nth(DETAIL_MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &message[..cut]),
        None => message.to_string(),
    }
}

/// The keys a file may hold: the serialized fields of [`Args`].
fn known_keys() -> Vec<String> {
    match serde_json::to_value(Args::default()) {
        Ok(serde_json::Value::Object(map)) => map.into_iter().map(|(key, _)| key).collect(),
        _ => Vec::new(),
    }
}

/// The known key nearest to `typo` by edit distance, if near enough to be
/// what was meant (at most a third of its length, and at least 2, apart).
fn closest_key(typo: &str) -> Option<String> {
    let limit = (typo.chars().count() / 3).max(2);
    known_keys()
        .into_iter()
        .map(|key| (edit_distance(typo, &key), key))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, key)| key)
}

/// Levenshtein distance: the fewest single-character insertions, deletions
/// and substitutions that turn `a` into `b` (two rows of the usual table).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitute.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// A value of the right form for `key`: from [`EXAMPLES`], else the first of
/// a number, a switch or a decimal the typed parse takes, else a string
/// named by the flag's value name in `--help`.
fn example(key: &str) -> String {
    if let Some((_, value)) = EXAMPLES.iter().find(|(k, _)| *k == key) {
        return (*value).to_string();
    }
    for value in ["1", "true", "1.5"] {
        if toml::from_str::<Args>(&format!("{key} = {value}")).is_ok() {
            return value.to_string();
        }
    }
    let command = Cli::command();
    let value_name = command
        .get_arguments()
        .find(|arg| arg.get_long() == Some(key))
        .and_then(|arg| {
            arg.get_value_names()
                .and_then(|names| names.first().cloned())
        });
    match value_name {
        Some(name) => format!("\"{name}\""),
        None => "\"…\"".to_string(),
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

    /// The one-line error for `text`, which the typed parse must refuse.
    fn refused(text: &str) -> String {
        let e = toml::from_str::<Args>(text).unwrap_err();
        let error = parse_error(Path::new("k.toml"), text, &e);
        assert_eq!(error.flag, "--config");
        assert!(!error.message.contains('\n'), "{}", error.message);
        assert!(error.message.len() < 200, "{}", error.message);
        error.message
    }

    #[test]
    fn unknown_key_names_its_line_and_the_closest_known_key() {
        let message = refused("# a comment\nserver = \"127.0.0.1\"\nthreds = 2\n");
        assert_eq!(
            message,
            "k.toml: unknown key 'threds' at line 3; did you mean 'threads'?"
        );
        assert!(refused("key-patern = \"R:R\"\n").contains("'key-pattern'"));
        let far = refused("zzzzzzzz = 1\n");
        assert!(!far.contains("did you mean"), "{far}");
        assert!(far.contains("kvbench --help"), "{far}");
    }

    #[test]
    fn wrong_type_names_the_key_and_the_expected_form() {
        let message = refused("threads = 2\nratio = 14\n");
        assert!(
            message.starts_with("k.toml: ratio at line 2: "),
            "{message}"
        );
        assert!(
            message.ends_with("write it as ratio = \"1:4\""),
            "{message}"
        );
        assert!(refused("threads = \"two\"\n").ends_with("write it as threads = 1"));
        assert!(refused("hide-histogram = 3\n").ends_with("hide-histogram = true"));
        let message = refused("threads = 2\nwarmup-time = \"1m\"\n");
        assert_eq!(
            message,
            "k.toml: warmup-time at line 2: takes seconds without a unit (got '1m'); write it as warmup-time = 60"
        );
        assert!(refused("test-time = \"ten\"\n").ends_with("write it as test-time = 10"));
    }

    #[test]
    fn syntax_errors_keep_the_line() {
        let message = refused("threads = 2\n[oops\n");
        assert!(message.starts_with("k.toml at line 2: "), "{message}");
        let message = refused("threads = 2\nclients =\n");
        assert!(
            message.starts_with("k.toml: clients at line 2: "),
            "{message}"
        );
        let message = refused("threads = 2\nthreads = 3\n");
        assert!(message.ends_with("at line 2: duplicate key; give each key once"));
    }

    #[test]
    fn a_secret_on_the_line_at_fault_is_never_quoted() {
        for text in [
            "threads = 2\nauthenticate = 98765431\n",
            "authenticate = 9876.5431\n",
            "authenticate = \"CANARY-987\" trailing\n",
            "authenticate = CANARY-987\n",
            "authenticate = \"CANARY-987\n",
            "uri = 98765431\n",
            "authenticate = \"CANARY-987\"\nthreads = \"CANARY-987\"\n",
        ] {
            let message = refused(text);
            assert!(!message.contains("CANARY-987"), "{text:?}: {message}");
            assert!(!message.contains("98765431"), "{text:?}: {message}");
            assert!(!message.contains("9876.5431"), "{text:?}: {message}");
        }
        let message = refused("threads = 2\nauthenticate = 98765431\n");
        assert!(
            message.starts_with("k.toml: authenticate at line 2: "),
            "{message}"
        );
        assert!(message.contains("write it as authenticate = "), "{message}");
    }

    #[test]
    fn edit_distance_counts_single_character_edits() {
        assert_eq!(edit_distance("threds", "threads"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
