//! The subcommands beside the benchmark (`suite`, `compare`, `merge`,
//! `report`), and clap's parse errors turned into kvbench's one-line form.

use clap::error::{ContextKind, ContextValue};

use super::{CompareArgs, MergeArgs, ReportArgs, SuiteArgs, seconds, unsupported_memtier_flag};
use crate::error::UsageError;

/// The subcommands; without one, kvbench runs a benchmark with memtier's flags.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Subcommand {
    /// redis-benchmark's tests, with redis-benchmark's flags (`kvbench suite --help`)
    #[command(name = "suite")]
    Suite(Box<SuiteArgs>),
    /// Compare JSON reports side by side, with ratios to the first (`kvbench compare --help`)
    #[command(name = "compare")]
    Compare(CompareArgs),
    /// Merge the JSON reports of the machines of a sharded run into one, exactly (`kvbench merge --help`)
    #[command(name = "merge")]
    Merge(MergeArgs),
    /// Render JSON reports as one self-contained HTML page of SVG charts (`kvbench report --help`)
    #[command(name = "report")]
    Report(ReportArgs),
}

/// Turns a parse error from clap into kvbench's one-line form naming the flag,
/// so that a mistyped number reads like every other usage error.
pub fn usage_error(e: &clap::Error) -> UsageError {
    let flag = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) => arg.split_whitespace().next().unwrap_or(arg).to_string(),
        _ => "kvbench".to_string(),
    };
    // A memtier flag that kvbench lacks is not a typo: a did-you-mean would point
    // at an unrelated flag (`--randomize` → `--random-data`).
    if let Some(memtier) = unsupported_memtier_flag(&flag) {
        return UsageError {
            flag: memtier.to_string(),
            message: format!(
                "memtier's {memtier} is not supported yet; remove it (docs/memtier-compat.md lists what kvbench implements)"
            ),
        };
    }
    // `--test-time 10s`: the unit is the mistake, not the number.
    if let (Some(ContextValue::String(arg)), Some(ContextValue::String(value))) = (
        e.get(ContextKind::InvalidArg),
        e.get(ContextKind::InvalidValue),
    ) {
        if arg.ends_with("<SECS>") {
            if let Some(message) = seconds::with_unit_advice(&flag, value) {
                return UsageError { flag, message };
            }
        }
    }
    if let Some(stray) = stray_word(e) {
        return stray;
    }
    let rendered = e.to_string();
    let first = rendered.lines().next().unwrap_or_default();
    let mut message = first.strip_prefix("error: ").unwrap_or(first).to_string();
    if let Some(ContextValue::String(similar)) = e.get(ContextKind::SuggestedArg) {
        message.push_str(&format!("; did you mean '{similar}'?"));
    }
    // A bad choice names the choices (clap prints them on a later line).
    if let Some(ContextValue::Strings(choices)) = e.get(ContextKind::ValidValue) {
        message.push_str(&format!("; use one of: {}", choices.join(", ")));
    }
    message.push_str("; see kvbench --help");
    UsageError { flag, message }
}

/// A word that is neither a flag nor a subcommand, refused without echoing
/// it: it is most often the password of `-a USER PASSWORD` (which takes
/// `USER:PASSWORD` as one argument), and an error message must never show one.
fn stray_word(e: &clap::Error) -> Option<UsageError> {
    let word = [ContextKind::InvalidSubcommand, ContextKind::InvalidArg]
        .into_iter()
        .find_map(|kind| match e.get(kind) {
            Some(ContextValue::String(word)) => Some(word),
            _ => None,
        })
        .filter(|word| !word.starts_with('-'))?;
    let similar = match e.get(ContextKind::SuggestedSubcommand) {
        Some(ContextValue::String(name)) => format!("; did you mean the subcommand '{name}'?"),
        // clap lists its suggestions by rising confidence: the best is last.
        Some(ContextValue::Strings(names)) => match names.last() {
            Some(name) => format!("; did you mean the subcommand '{name}'?"),
            None => String::new(),
        },
        _ => String::new(),
    };
    // Only a length is shown, so the user can tell which word it was.
    Some(UsageError {
        flag: "kvbench".to_string(),
        message: format!(
            "a word of {} characters is neither a flag nor a subcommand (not shown: it may be a password; -a/--authenticate takes USER:PASSWORD as one argument){similar}; see kvbench --help",
            word.chars().count()
        ),
    })
}
