//! `--transaction` (memtier 2.4): each `--command` rotation is one
//! transaction. A rotation that has its own `MULTI` is sent as written
//! (memtier's lines); one without gets `MULTI` after its leading `WATCH`
//! lines and `EXEC` at its end. The checks here refuse the rotations that
//! cannot be one transaction, before any connection opens.

use crate::cli::Args;
use crate::config::Stop;
use crate::error::UsageError;
use crate::protocol::command::{CommandSpec, Part};
use crate::workload::keys::KeyPattern;
use crate::workload::ops::OpTable;

/// One `--command` line: its command, key pattern and weight.
pub(super) type Line = (CommandSpec, KeyPattern, u32);

/// Refuses `--transaction` where it has no rotation to wrap or where a
/// retry would break it.
pub(super) fn check(a: &Args, commands: bool) -> Result<(), UsageError> {
    if !a.transaction {
        return Ok(());
    }
    if !commands {
        return Err(UsageError::new(
            "--transaction",
            "makes a transaction of the --command rotation, and none was given; add --command lines such as --command \"SET __key__ __data__\"",
        ));
    }
    if a.retry_on_error {
        return Err(UsageError::new(
            "--transaction",
            "and --retry-on-error cannot go together: sending one command of a transaction again would break it; drop one",
        ));
    }
    Ok(())
}

/// `-n` counts requests, and a budget that ends inside a rotation would
/// leave its last transaction open: refused, with the nearest whole count.
pub(super) fn check_requests(ops: &OpTable, stop: Stop) -> Result<(), UsageError> {
    let period: u64 = ops.ops.iter().map(|op| u64::from(op.weight)).sum();
    match stop {
        Stop::Requests(n) if ops.transaction && period > 0 && n % period != 0 => {
            let whole = (n / period).max(1) * period;
            Err(UsageError::new(
                "--requests",
                format!(
                    "{n} requests end inside a transaction of {period}; give a multiple of {period}, such as -n {whole}"
                ),
            ))
        }
        Stop::AllKeys if ops.transaction => Err(UsageError::new(
            "--requests",
            "allkeys counts keys, and --transaction sends one key per rotation; give a number of requests or --test-time",
        )),
        _ => Ok(()),
    }
}

/// The rotation of a `--transaction` run: `lines` as given when they hold a
/// `MULTI`, else wrapped in `MULTI` … `EXEC` after their leading `WATCH`es.
/// `cluster`: every keyed line must write the same text around `__key__`,
/// so that the rotation's one key is in one slot.
pub(super) fn rotation(lines: Vec<Line>, cluster: bool) -> Result<Vec<Line>, UsageError> {
    let named = |name: &'static str| {
        lines
            .iter()
            .filter(move |(s, _, w)| s.name() == name && *w > 0)
    };
    let multis: Vec<u32> = named("MULTI").map(|(_, _, w)| *w).collect();
    let ends = named("EXEC").count() + named("DISCARD").count();
    let lines = if multis.is_empty() {
        if ends > 0 {
            return Err(UsageError::new(
                "--transaction",
                "the rotation ends a transaction (EXEC/DISCARD) it never starts; add --command MULTI before it, or drop EXEC and let kvbench wrap the rotation",
            ));
        }
        wrap(lines)
    } else {
        if multis.len() != 1 || multis.iter().any(|w| *w != 1) || ends != 1 {
            return Err(UsageError::new(
                "--transaction",
                "a rotation is one transaction: give one MULTI and one EXEC (or DISCARD), each with --command-ratio 1",
            ));
        }
        lines
    };
    if cluster {
        same_key_text(&lines)?;
    }
    Ok(lines)
}

/// `lines` with `MULTI` after the leading `WATCH` lines and `EXEC` last.
fn wrap(mut lines: Vec<Line>) -> Vec<Line> {
    let watches = lines
        .iter()
        .take_while(|(s, _, _)| s.name() == "WATCH")
        .count();
    let bare = |text: &str| CommandSpec::parse(text).ok();
    if let (Some(multi), Some(exec)) = (bare("MULTI"), bare("EXEC")) {
        lines.insert(watches, (multi, KeyPattern::Uniform, 1));
        lines.push((exec, KeyPattern::Uniform, 1));
    }
    lines
}

/// In a cluster, the rotation's one key goes to one slot only when every
/// keyed line writes the same argument around `__key__`.
fn same_key_text(lines: &[Line]) -> Result<(), UsageError> {
    let mut first: Option<(&CommandSpec, &Vec<Part>)> = None;
    for (spec, _, _) in lines {
        let Some(arg) = spec.args.iter().find(|arg| arg.contains(&Part::Key)) else {
            continue;
        };
        match first {
            None => first = Some((spec, arg)),
            Some((one, seen)) if seen != arg => {
                return Err(UsageError::new(
                    "--transaction",
                    format!(
                        "\"{}\" and \"{}\" write different text around __key__, so their keys hash to different slots; write the same key argument in every command of the rotation",
                        one.text, spec.text
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(texts: &[&str]) -> Vec<Line> {
        texts
            .iter()
            .map(|t| (CommandSpec::parse(t).unwrap(), KeyPattern::Uniform, 1))
            .collect()
    }

    fn names(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|(s, _, _)| s.name()).collect()
    }

    #[test]
    fn a_rotation_without_multi_is_wrapped_after_its_watches() {
        let got = rotation(
            lines(&["WATCH __key__", "GET __key__", "SET __key__ v"]),
            false,
        );
        assert_eq!(
            names(&got.unwrap()),
            ["WATCH", "MULTI", "GET", "SET", "EXEC"]
        );
        let got = rotation(lines(&["INCR __key__"]), false).unwrap();
        assert_eq!(names(&got), ["MULTI", "INCR", "EXEC"]);
    }

    #[test]
    fn memtiers_own_multi_is_sent_as_written() {
        let given = lines(&["WATCH __key__", "MULTI", "SET __key__ v", "EXEC"]);
        assert_eq!(rotation(given.clone(), false).unwrap(), given);
    }

    #[test]
    fn a_rotation_that_cannot_be_one_transaction_is_refused() {
        for texts in [
            &["SET __key__ v", "EXEC"][..],
            &["MULTI", "SET __key__ v"][..],
            &["MULTI", "MULTI", "SET __key__ v", "EXEC"][..],
        ] {
            let e = rotation(lines(texts), false).unwrap_err();
            assert_eq!(e.flag, "--transaction", "{texts:?}");
        }
    }

    #[test]
    fn a_cluster_rotation_keeps_one_key_text() {
        let same = lines(&["WATCH {t}__key__", "SET {t}__key__ v"]);
        assert!(rotation(same, true).is_ok());
        let differ = lines(&["WATCH {t}__key__", "SET __key__ v"]);
        assert!(rotation(differ.clone(), false).is_ok());
        let e = rotation(differ, true).unwrap_err();
        assert!(e.message.contains("different slots"), "{e:?}");
    }
}
