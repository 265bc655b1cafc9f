//! Validation of the op table: the default SET/GET pair from `--ratio` and
//! `--key-pattern`, or memtier's `--command` lines with `--command-ratio`,
//! `--command-key-pattern` and `--command-stats-breakdown`. Every mistake is
//! refused here, before any connection, naming the flag and the fix.

use crate::cli::{Args, DEFAULT_COMMAND_KEY_PATTERN, DEFAULT_COMMAND_RATIO};
use crate::config::KeySpace;
use crate::config::data::key_pattern;
use crate::config::monitor::{Capture, Resolved, resolve};
use crate::error::UsageError;
use crate::protocol::command::CommandSpec;
use crate::workload::keys::{KeyPattern, PatternKind};
use crate::workload::mix::Ratio;
use crate::workload::ops::{Breakdown, MAX_OPS, OpTable, Pick};
use crate::workload::pair::PairOptions;
use crate::workload::parse_decimal;

/// The op table this command line asks for.
pub(super) fn build_ops(
    a: &Args,
    keys: &KeySpace,
    ratio: Ratio,
    connections: usize,
    pair: PairOptions,
    capture: Option<&Capture>,
) -> Result<OpTable, UsageError> {
    let breakdown = match a.command_stats_breakdown.as_deref() {
        None | Some("command") => Breakdown::Command,
        Some("line") => Breakdown::Line,
        Some(other) => {
            return Err(UsageError::new(
                "--command-stats-breakdown",
                format!(
                    "'{other}' is neither command nor line; use --command-stats-breakdown command (a row per command name) or line (a row per --command)"
                ),
            ));
        }
    };
    let Some(texts) = a.command.as_ref().filter(|c| !c.is_empty()) else {
        for (flag, given) in [
            ("--command-ratio", a.command_ratio.is_some()),
            ("--command-key-pattern", a.command_key_pattern.is_some()),
            (
                "--command-stats-breakdown",
                a.command_stats_breakdown.is_some(),
            ),
        ] {
            if given {
                return Err(UsageError::new(
                    flag,
                    "applies to --command lines, and none was given; add --command \"...\" or drop it",
                ));
            }
        }
        return Ok(OpTable::pair_with(
            ratio,
            keys.set_pattern,
            keys.get_pattern,
            pair,
        ));
    };
    for (flag, given) in [
        ("--ratio", a.ratio.is_some()),
        ("--key-pattern", a.key_pattern.is_some()),
    ] {
        if given {
            let fix = if flag == "--ratio" {
                "--command-ratio"
            } else {
                "--command-key-pattern"
            };
            return Err(UsageError::new(
                flag,
                format!(
                    "shapes the SET/GET pair, which --command replaces; give {fix} per command instead"
                ),
            ));
        }
    }
    if texts.len() > MAX_OPS {
        return Err(UsageError::new(
            "--command",
            format!(
                "{} commands given, at most {MAX_OPS} are supported; merge some",
                texts.len()
            ),
        ));
    }
    let weights = per_command(
        "--command-ratio",
        &a.command_ratio,
        texts.len(),
        DEFAULT_COMMAND_RATIO,
    )?;
    let patterns = per_command(
        "--command-key-pattern",
        &a.command_key_pattern,
        texts.len(),
        DEFAULT_COMMAND_KEY_PATTERN,
    )?;
    let mut lines = Vec::with_capacity(texts.len());
    let mut pick = Pick::Cycle;
    for (i, text) in texts.iter().enumerate() {
        let spec = match resolve(capture, text, texts.len())? {
            Resolved::Text => CommandSpec::parse(text).map_err(|e| {
                UsageError::new(
                    "--command",
                    format!("\"{text}\": {e}; e.g. --command \"HSET __key__ field __data__\""),
                )
            })?,
            Resolved::One(spec) => spec,
            // The whole capture, one op per command: it names no key.
            Resolved::All(specs, how) => {
                pick = how;
                lines.extend(specs.into_iter().map(|s| (s, KeyPattern::Uniform, 1)));
                continue;
            }
        };
        let weight = match weights.get(i) {
            None => 1,
            Some(w) => parse_decimal::<u32>(w).ok_or_else(|| {
                UsageError::new(
                    "--command-ratio",
                    format!("'{w}' is not a whole number of requests; e.g. --command-ratio 1,10"),
                )
            })?,
        };
        let pattern = match patterns.get(i) {
            None => KeyPattern::Uniform,
            Some(letter) => command_pattern(a, keys, letter)?,
        };
        lines.push((spec, pattern, weight));
    }
    let parallel = lines.iter().any(|(_, p, _)| *p == KeyPattern::Parallel);
    if parallel && keys.range.len() < connections as u64 {
        return Err(UsageError::new(
            "--command-key-pattern",
            format!(
                "P gives each of the {connections} connections its own slice, but the range holds only {} keys; widen --key-maximum or use fewer connections",
                keys.range.len()
            ),
        ));
    }
    if lines.iter().all(|(_, _, w)| *w == 0) {
        return Err(UsageError::new(
            "--command-ratio",
            "every weight is 0, so nothing would be sent; give at least one command a weight of 1 or more",
        ));
    }
    let lines = if a.transaction {
        crate::config::transaction::rotation(lines, a.cluster_mode)?
    } else {
        lines
    };
    let mut table = OpTable::commands(lines, breakdown);
    table.pick = pick;
    table.transaction = a.transaction;
    Ok(table)
}

/// A per-command list, from repeated flags or comma-separated values: empty
/// when the flag is absent; a list shorter than the commands gives its values
/// to the first ones in order and memtier's `default` to the rest (memtier
/// gives a command without the flag its default); a longer one is an error.
fn per_command(
    flag: &str,
    given: &Option<Vec<String>>,
    commands: usize,
    default: &str,
) -> Result<Vec<String>, UsageError> {
    let Some(given) = given else {
        return Ok(Vec::new());
    };
    let mut items: Vec<String> = given
        .iter()
        .flat_map(|v| v.split(','))
        .map(|v| v.trim().to_string())
        .collect();
    if items.len() > commands {
        return Err(UsageError::new(
            flag,
            format!(
                "gives {} values for {commands} --command lines; give at most one per command, in their order (a command without one takes {default})",
                items.len()
            ),
        ));
    }
    items.resize(commands, default.to_string());
    Ok(items)
}

fn command_pattern(a: &Args, keys: &KeySpace, letter: &str) -> Result<KeyPattern, UsageError> {
    let mut chars = letter.chars();
    let kind = match (chars.next(), chars.next()) {
        (Some(c), None) => PatternKind::from_letter(c.to_ascii_uppercase()),
        _ => None,
    };
    let Some(kind) = kind else {
        return Err(UsageError::new(
            "--command-key-pattern",
            format!(
                "'{letter}' is no key pattern; use one of S (sequential), R (uniform random), G (gaussian), Z (zipfian), P (parallel) per command"
            ),
        ));
    };
    key_pattern(a, kind, keys.range)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::cli::Cli;
    use crate::config::Config;
    use crate::error::UsageError;
    use crate::workload::keys::KeyPattern;

    fn build(args: &[&str]) -> Result<Config, UsageError> {
        let mut full = vec!["kvbench"];
        full.extend_from_slice(args);
        Config::from_args(Cli::try_parse_from(full).unwrap().run)
    }

    #[test]
    fn commands_replace_the_pair_with_their_weights_and_patterns() {
        let c = build(&[
            "--command",
            "HSET __key__ f __data__",
            "--command",
            "HGET __key__ f",
            "--command-ratio",
            "1",
            "--command-ratio",
            "10",
            "--command-key-pattern",
            "S,R",
        ])
        .unwrap();
        assert!(!c.ops.default_pair);
        assert_eq!(c.ops.ops.len(), 2);
        assert_eq!(c.ops.ops[1].weight, 10);
        assert_eq!(c.ops.ops[0].pattern, KeyPattern::Sequential);
        assert_eq!(c.ops.rows[1].memtier, "Hgets");
    }

    #[test]
    fn a_list_longer_than_the_commands_is_refused() {
        let e = build(&["--command", "GET __key__", "--command-ratio", "1,2"]).unwrap_err();
        assert_eq!(e.flag, "--command-ratio");
        assert!(e.message.contains("at most one per command"), "{e}");
        let e = build(&["--command", "GET __key__", "--command-key-pattern", "R,S"]).unwrap_err();
        assert_eq!(e.flag, "--command-key-pattern", "{e}");
    }

    #[test]
    fn commands_without_a_ratio_or_pattern_take_memtiers_defaults() {
        let c = build(&[
            "--command",
            "SET __key__ __data__",
            "--command",
            "GET __key__",
            "--command",
            "INCR __key__",
            "--command-ratio",
            "4",
            "--command-key-pattern",
            "S",
        ])
        .unwrap();
        let weights: Vec<u32> = c.ops.ops.iter().map(|o| o.weight).collect();
        assert_eq!(weights, [4, 1, 1]);
        let patterns: Vec<KeyPattern> = c.ops.ops.iter().map(|o| o.pattern).collect();
        assert_eq!(
            patterns,
            [
                KeyPattern::Sequential,
                KeyPattern::Uniform,
                KeyPattern::Uniform
            ]
        );
    }

    #[test]
    fn bad_templates_name_the_flag() {
        for bad in ["", "   ", "GET __kye__", "GET \"unbalanced"] {
            let e = build(&["--command", bad]).unwrap_err();
            assert_eq!(e.flag, "--command", "{bad}: {e}");
        }
        let e = build(&["--command", "GET __key__", "--command-stats-breakdown", "x"]).unwrap_err();
        assert_eq!(e.flag, "--command-stats-breakdown", "{e}");
        let e = build(&["--command-ratio", "1"]).unwrap_err();
        assert!(e.message.contains("none was given"), "{e}");
        let e = build(&["--command", "GET __key__", "--ratio", "1:1"]).unwrap_err();
        assert_eq!(e.flag, "--ratio", "{e}");
        let e = build(&[
            "--command",
            "GET __key__",
            "--command-key-pattern",
            "P",
            "-t",
            "2",
            "-c",
            "3",
            "--key-maximum",
            "4",
        ])
        .unwrap_err();
        assert_eq!(e.flag, "--command-key-pattern", "{e}");
    }
}
