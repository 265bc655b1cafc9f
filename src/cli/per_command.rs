//! memtier's placement of `--command-ratio` and `--command-key-pattern`:
//! each applies to the `--command` given last before it, and a command given
//! none keeps memtier's defaults (ratio 1, key pattern R). clap collects each
//! flag's values apart, losing where they stood, so the command line is read
//! once more here for their places.

use crate::cli::Args;

/// memtier's default ratio of a `--command` (`arbitrary_command`'s `ratio(1)`).
pub const DEFAULT_COMMAND_RATIO: &str = "1";
/// memtier's default key pattern of a `--command` (`key_pattern('R')`).
pub const DEFAULT_COMMAND_KEY_PATTERN: &str = "R";

/// Where each per-command flag stood on `argv`: one entry per `--command`,
/// the value given after it (the last one, as memtier keeps), or `None`.
/// `None` for the whole flag when it is absent or any of its values is a
/// kvbench list (`1,10`) or comes before the first `--command`: those keep
/// kvbench's in-order reading.
fn placed(argv: &[String], flag: &str) -> Option<Vec<Option<String>>> {
    let mut commands: Vec<Option<String>> = Vec::new();
    let mut seen = false;
    let mut tokens = argv.iter().skip(1);
    while let Some(token) = tokens.next() {
        let value = if token == "--command" {
            tokens.next();
            commands.push(None);
            continue;
        } else if token.starts_with("--command=") {
            commands.push(None);
            continue;
        } else if token == flag {
            tokens.next().cloned()
        } else if let Some(v) = token.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
            Some(v.to_string())
        } else {
            continue;
        };
        let value = value?;
        let last = commands.last_mut()?;
        if value.contains(',') {
            return None;
        }
        *last = Some(value);
        seen = true;
    }
    seen.then_some(commands)
}

/// Rewrites `args`' per-command lists in memtier's placement when `argv`
/// (the whole command line, program name first) gives them that way: one
/// value per `--command`, memtier's default where a command has none.
pub fn place_per_command(args: &mut Args, argv: &[String]) {
    let commands = args.command.as_ref().map_or(0, Vec::len);
    for (flag, default) in [
        ("--command-ratio", DEFAULT_COMMAND_RATIO),
        ("--command-key-pattern", DEFAULT_COMMAND_KEY_PATTERN),
    ] {
        let Some(placed) = placed(argv, flag) else {
            continue;
        };
        // Commands from a --config file as well: the places are unknown.
        if placed.len() != commands {
            continue;
        }
        let values = placed
            .into_iter()
            .map(|v| v.unwrap_or_else(|| default.to_string()))
            .collect();
        match flag {
            "--command-ratio" => args.command_ratio = Some(values),
            _ => args.command_key_pattern = Some(values),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::place_per_command;
    use crate::cli::Args;

    fn placed(line: &[&str]) -> Args {
        let argv: Vec<String> = line.iter().map(|s| s.to_string()).collect();
        let mut args = Args::try_parse_from(&argv).unwrap();
        place_per_command(&mut args, &argv);
        args
    }

    #[test]
    fn a_ratio_applies_to_the_command_before_it_and_the_others_keep_memtiers_defaults() {
        let a = placed(&[
            "kvbench",
            "--command",
            "SET __key__ __data__",
            "--command",
            "GET __key__",
            "--command-ratio",
            "5",
            "--command",
            "INCR __key__",
            "--command-key-pattern=S",
        ]);
        assert_eq!(a.command_ratio.unwrap(), ["1", "5", "1"]);
        assert_eq!(a.command_key_pattern.unwrap(), ["R", "R", "S"]);
    }

    #[test]
    fn lists_and_values_before_any_command_keep_the_in_order_reading() {
        let a = placed(&[
            "kvbench",
            "--command",
            "SET __key__ __data__",
            "--command",
            "GET __key__",
            "--command-ratio",
            "1,10",
        ]);
        assert_eq!(a.command_ratio.unwrap(), ["1,10"]);
        let a = placed(&[
            "kvbench",
            "--command-ratio",
            "3",
            "--command",
            "GET __key__",
        ]);
        assert_eq!(a.command_ratio.unwrap(), ["3"]);
        // The last value after a command is the one memtier keeps.
        let a = placed(&[
            "kvbench",
            "--command",
            "GET __key__",
            "--command-ratio",
            "3",
            "--command-ratio",
            "4",
        ]);
        assert_eq!(a.command_ratio.unwrap(), ["4"]);
    }
}
