//! The subcommands beside the benchmark (`suite`, `compare`, `merge`,
//! `report`, `completions`, `man`, `help`), and clap's parse errors turned
//! into kvbench's one-line form, each naming what is wrong and an example.

use clap::CommandFactory;
use clap::error::{ContextKind, ContextValue, ErrorKind};

use super::generate::{CompletionsArgs, ManArgs};
use super::{CapacityArgs, Cli, CompareArgs, MergeArgs, ReportArgs, SuiteArgs, seconds};
use crate::error::UsageError;

/// The subcommands; without one, kvbench runs a benchmark with memtier's flags.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Subcommand {
    /// redis-benchmark's tests, with redis-benchmark's flags (`kvbench suite --help`)
    #[command(name = "suite")]
    Suite(Box<SuiteArgs>),
    /// The most throughput under a latency SLO: an open-loop search over --rate (`kvbench capacity --help`)
    #[command(name = "capacity")]
    Capacity(Box<CapacityArgs>),
    /// Compare JSON reports side by side, with ratios to the first (`kvbench compare --help`)
    #[command(name = "compare")]
    Compare(CompareArgs),
    /// Merge the JSON reports of the machines of a sharded run into one, exactly (`kvbench merge --help`)
    #[command(name = "merge")]
    Merge(MergeArgs),
    /// Render JSON reports as one self-contained HTML page of SVG charts (`kvbench report --help`)
    #[command(name = "report")]
    Report(ReportArgs),
    /// Print shell completions for bash, zsh or fish (`kvbench completions bash`)
    #[command(name = "completions")]
    Completions(CompletionsArgs),
    /// Print the man page (`kvbench man > kvbench.1`)
    #[command(name = "man")]
    Man(ManArgs),
    /// Print the one-screen help, every flag (`kvbench help all`), or a subcommand's (`kvbench help compare`)
    #[command(name = "help")]
    Help(HelpArgs),
}

/// `kvbench help`: what the user typed.
#[derive(Debug, Clone, clap::Parser)]
#[command(
    name = "kvbench help",
    about = "Print kvbench's help, or a subcommand's: kvbench help compare",
    max_term_width = 100,
    // The benchmark's flags disable clap's help; this one is declared below.
    disable_help_flag = true
)]
pub struct HelpArgs {
    /// The subcommand whose help to print; none: kvbench's own
    #[arg(value_name = "SUBCOMMAND")]
    pub subcommand: Option<String>,
    /// Print help
    #[arg(long, action = clap::ArgAction::Help)]
    pub help: Option<bool>,
}

/// The help `kvbench help [SUBCOMMAND]` prints: the one-screen summary of
/// `kvbench --help`, every flag (`all`), the very text of `kvbench SUBCOMMAND
/// --help`, or an error naming the subcommands when there is none of that
/// name.
pub fn help_text(subcommand: Option<&str>) -> Result<String, UsageError> {
    let top = Cli::command();
    let names: Vec<&str> = top.get_subcommands().map(|s| s.get_name()).collect();
    let argv: Vec<&str> = match subcommand {
        None => return Ok(crate::cli::SUMMARY.to_string()),
        Some("all") => return Ok(top.clone().render_long_help().to_string()),
        Some(name) if names.contains(&name) => vec!["kvbench", name, "--help"],
        Some(name) => {
            return Err(UsageError {
                flag: "kvbench help".to_string(),
                message: format!(
                    "no subcommand {name:?}; use one of: {}, or all (every flag); e.g. kvbench help compare",
                    names.join(", ")
                ),
            });
        }
    };
    // --help "fails" with the help as its message; `capacity` takes the
    // benchmark's `--help` as a flag, and is rendered here.
    match top.clone().try_get_matches_from(&argv) {
        Err(e) if e.kind() == ErrorKind::DisplayHelp => Ok(e.render().to_string()),
        _ => Ok(subcommand_help(argv[1])),
    }
}

/// Subcommand `name`'s whole help, its usage named `kvbench NAME`.
pub fn subcommand_help(name: &str) -> String {
    let top = Cli::command();
    match top.find_subcommand(name) {
        Some(sub) => sub
            .clone()
            .bin_name(format!("kvbench {name}"))
            .render_long_help()
            .to_string(),
        None => top.clone().render_long_help().to_string(),
    }
}

/// What a subcommand's required arguments are, and a command line that gives them.
const REQUIRED: &[(&str, &str, &str)] = &[
    (
        "compare",
        "the JSON reports to compare, the first the baseline",
        "kvbench compare before.json after.json",
    ),
    (
        "merge",
        "the JSON reports of the shards of one run",
        "kvbench merge shard-0.json shard-1.json -o merged.json",
    ),
    (
        "report",
        "the JSON reports to draw",
        "kvbench report run.json -o run.html",
    ),
    (
        "completions",
        "the shell: bash, zsh or fish",
        "kvbench completions bash",
    ),
];

/// An example value for a flag, by its value's name, when its help has none.
const EXAMPLE_VALUES: &[(&str, &str)] = &[
    ("N", "4"),
    ("SECS", "10"),
    ("FILE", "out.json"),
    ("PATH", "/tmp/redis.sock"),
    ("PORT", "6379"),
    ("HOST", "127.0.0.1"),
    ("SERVER", "127.0.0.1"),
    ("BYTES", "32"),
    ("PERCENT", "50"),
    ("LIST", "0-3"),
    ("USER", "default"),
    ("DB", "0"),
    ("PROTOCOL", "resp3"),
];

/// Turns a parse error from clap into kvbench's one-line form naming the flag,
/// so that a mistyped number reads like every other usage error.
pub fn usage_error(e: &clap::Error) -> UsageError {
    let flag = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) => arg.split_whitespace().next().unwrap_or(arg).to_string(),
        _ => "kvbench".to_string(),
    };
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
    if e.kind() == ErrorKind::MissingRequiredArgument {
        return missing_argument(e);
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
    let choices = match e.get(ContextKind::ValidValue) {
        Some(ContextValue::Strings(choices)) if !choices.is_empty() => Some(choices.join(", ")),
        _ => None,
    };
    if let Some(choices) = &choices {
        message.push_str(&format!("; use one of: {choices}"));
    }
    // A flag given without its value: one that works.
    if matches!(e.get(ContextKind::InvalidValue), Some(ContextValue::String(v)) if v.is_empty())
        && choices.is_none()
    {
        if let Some(example) = example_value(&flag) {
            message.push_str(&format!("; e.g. {flag} {example}"));
        }
        // `-h` alone: memtier's (and redis-benchmark's) server, not help.
        match flag.as_str() {
            "--server" => message.push_str(
                "; -h is --server, as in memtier_benchmark: help is --help or kvbench help",
            ),
            "--host" => message.push_str(
                "; -h is --host, as in redis-benchmark: help is --help or kvbench help suite",
            ),
            _ => {}
        }
    }
    // redis-benchmark's flags on the benchmark's line: its suite takes them.
    if e.kind() == ErrorKind::UnknownArgument && command_of(e) == "kvbench" {
        if let Some(hint) = suite_flag_hint(&flag) {
            message.push_str(hint);
        }
    }
    message.push_str(&format!("; see {} --help", command_of(e)));
    UsageError { flag, message }
}

/// What to say of a redis-benchmark flag given to the benchmark, which has
/// no such flag: `kvbench suite` has it.
fn suite_flag_hint(flag: &str) -> Option<&'static str> {
    match flag {
        "-q" => Some("; -q is redis-benchmark's quiet mode: kvbench suite -q runs its tests so"),
        "--csv" => Some("; --csv is redis-benchmark's: kvbench suite --csv"),
        "--precision" => Some("; --precision is redis-benchmark's: kvbench suite --precision"),
        _ => None,
    }
}

/// A parse error of the command line whose first word is `first`: one of
/// a subcommand points at that subcommand's help (the suite's names
/// redis-benchmark's flags it lacks).
pub fn command_line_error(e: &clap::Error, first: Option<&str>) -> UsageError {
    let Some(sub) = first.filter(|w| Cli::command().find_subcommand(w).is_some()) else {
        return usage_error(e);
    };
    if sub == "suite" {
        return super::suite_usage_error(e);
    }
    let mut u = usage_error(e);
    u.message = u
        .message
        .replace("see kvbench --help", &format!("see kvbench {sub} --help"));
    u
}

/// `kvbench` or `kvbench SUBCOMMAND`, as clap's usage line names the command
/// that failed to parse.
fn command_of(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let usage = rendered
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("Usage: "))
        .unwrap_or("kvbench");
    let words: Vec<&str> = usage
        .split_whitespace()
        .take_while(|w| !w.starts_with(['[', '<', '-']))
        .collect();
    if words.is_empty() {
        "kvbench".to_string()
    } else {
        words.join(" ")
    }
}

/// `kvbench compare` and the like without their files: the missing argument
/// named, what it is, and a command line that gives it.
fn missing_argument(e: &clap::Error) -> UsageError {
    let command = command_of(e);
    let missing = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::Strings(args)) if !args.is_empty() => args.join(", "),
        Some(ContextValue::String(arg)) => arg.clone(),
        _ => "an argument".to_string(),
    };
    let name = command.strip_prefix("kvbench ").unwrap_or_default();
    let message = match REQUIRED.iter().find(|(sub, _, _)| *sub == name) {
        Some((_, what, example)) => {
            format!("{missing} is required: {what}; e.g. {example}; see {command} --help")
        }
        None => format!("{missing} is required; see {command} --help"),
    };
    UsageError {
        flag: command,
        message,
    }
}

/// A value that `flag` takes: from its help's "e.g.", its first choice, or
/// its value's name.
fn example_value(flag: &str) -> Option<String> {
    let top = Cli::command();
    let commands = std::iter::once(&top).chain(top.get_subcommands());
    let arg = commands.flat_map(|c| c.get_arguments()).find(|a| {
        a.get_long()
            .is_some_and(|l| flag.strip_prefix("--") == Some(l))
            || a.get_short()
                .is_some_and(|s| flag.strip_prefix('-') == Some(s.encode_utf8(&mut [0; 4])))
    })?;
    let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
    if let Some(after) = help.split("e.g. ").nth(1) {
        let example: String = after
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .trim_end_matches([',', ';', ')', '.'])
            .to_string();
        if !example.is_empty() {
            return Some(example);
        }
    }
    if let Some(value) = arg.get_possible_values().first() {
        return Some(value.get_name().to_string());
    }
    let names = arg.get_value_names().unwrap_or_default();
    let name = names.first()?.as_str();
    EXAMPLE_VALUES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.to_string())
}

/// A word that is neither a flag nor a subcommand, refused without echoing
/// it: it is most often the password of `-a USER PASSWORD` (which takes
/// `USER:PASSWORD` as one argument), and an error message must never show one.
fn stray_word(e: &clap::Error) -> Option<UsageError> {
    if !matches!(
        e.kind(),
        ErrorKind::UnknownArgument | ErrorKind::InvalidSubcommand | ErrorKind::ArgumentConflict
    ) {
        return None;
    }
    let word = [ContextKind::InvalidSubcommand, ContextKind::InvalidArg]
        .into_iter()
        .find_map(|kind| match e.get(kind) {
            Some(ContextValue::String(word)) => Some(word),
            _ => None,
        })
        .filter(|word| !word.starts_with('-'))?;
    // A subcommand after the benchmark's flags (`kvbench -p 1 compare a.json`).
    if Cli::command().find_subcommand(word).is_some() {
        return Some(UsageError {
            flag: "kvbench".to_string(),
            message: "a subcommand must be the first word, its flags after it, e.g. kvbench compare before.json after.json; flags before it are the benchmark's; see kvbench help".to_string(),
        });
    }
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
