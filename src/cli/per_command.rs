//! memtier's placement of `--command-ratio` and `--command-key-pattern`:
//! each applies to the `--command` given last before it, and a command given
//! none keeps memtier's defaults (ratio 1, key pattern R). clap collects each
//! flag's values apart, and keeps where each stood: the places are read from
//! its matches ([`ArgMatches::indices_of`]).

use clap::ArgMatches;

use crate::cli::Args;

/// memtier's default ratio of a `--command` (`arbitrary_command`'s `ratio(1)`).
pub const DEFAULT_COMMAND_RATIO: &str = "1";
/// memtier's default key pattern of a `--command` (`key_pattern('R')`).
pub const DEFAULT_COMMAND_KEY_PATTERN: &str = "R";

/// Where each value of the per-command flag `id` stood: one entry per
/// `--command`, the value given after it (the last one, as memtier keeps), or
/// `None`. `None` for the whole flag when it is absent or any of its values is
/// a kvbench list (`1,10`) or comes before the first `--command`: those keep
/// kvbench's in-order reading.
fn placed(matches: &ArgMatches, id: &str) -> Option<Vec<Option<String>>> {
    let commands: Vec<usize> = matches
        .indices_of("command")
        .map_or_else(Vec::new, Iterator::collect);
    let mut placed = vec![None; commands.len()];
    let values = matches.indices_of(id)?.zip(matches.get_many::<String>(id)?);
    for (index, value) in values {
        let command = commands.iter().rposition(|&c| c < index)?;
        if value.contains(',') {
            return None;
        }
        placed[command] = Some(value.clone());
    }
    Some(placed)
}

/// Rewrites `args`' per-command lists in memtier's placement when the command
/// line (`matches`, what clap parsed `args` from) gives them that way: one
/// value per `--command`, memtier's default where a command has none.
pub fn place_per_command(args: &mut Args, matches: &ArgMatches) {
    let commands = args.command.as_ref().map_or(0, Vec::len);
    for (id, default) in [
        ("command_ratio", DEFAULT_COMMAND_RATIO),
        ("command_key_pattern", DEFAULT_COMMAND_KEY_PATTERN),
    ] {
        let Some(placed) = placed(matches, id) else {
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
        match id {
            "command_ratio" => args.command_ratio = Some(values),
            _ => args.command_key_pattern = Some(values),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, FromArgMatches};

    use super::place_per_command;
    use crate::cli::{Args, Cli};

    fn placed(line: &[&str]) -> Args {
        let matches = Cli::command().try_get_matches_from(line).unwrap();
        let mut args = Args::from_arg_matches(&matches).unwrap();
        place_per_command(&mut args, &matches);
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
