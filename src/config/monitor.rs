//! `--monitor-input` and `--monitor-pattern` validated: a Redis `MONITOR`
//! capture read into commands, and memtier's placeholders for them in
//! `--command` resolved before any connection.
//!
//! `--command "__monitor_line3__"` sends the capture's third command (counted
//! over the lines that hold one, as memtier counts) on every request of that
//! op. `--command "__monitor_line@__"` replays the whole capture: it becomes one
//! op per captured command, walked in file order by each connection (`S`, the
//! default) or drawn at random per request (`--monitor-pattern R`), with one
//! report row per command name as memtier aggregates them. Captured arguments
//! are sent as captured: a `__key__` in them is literal text.

use std::path::Path;

use crate::cli::Args;
use crate::error::UsageError;
use crate::protocol::command::CommandSpec;
use crate::workload::monitor::{MonitorError, parse_capture};
use crate::workload::ops::{MAX_OPS, Pick};

/// memtier's prefix of a placeholder for one captured command.
const LINE_PREFIX: &str = "__monitor_line";
/// memtier's placeholder for the whole capture.
const ANY_LINE: &str = "__monitor_line@__";

/// A `MONITOR` capture read for `--command`'s placeholders.
#[derive(Debug, Clone)]
pub(super) struct Capture {
    /// The captured commands, in file order.
    commands: Vec<CommandSpec>,
    /// How `__monitor_line@__` picks among them.
    pick: Pick,
}

/// What a `--command` text stands for.
pub(super) enum Resolved {
    /// Not a placeholder: the text is parsed as any `--command`.
    Text,
    /// One command of the capture.
    One(CommandSpec),
    /// Every command of the capture, picked as the table's `pick` says.
    All(Vec<CommandSpec>, Pick),
}

/// Reads `--monitor-input` when given; refuses `--monitor-pattern` with a
/// letter other than S or R, and a capture with memcached or a cluster.
pub(super) fn load(a: &Args, resp: bool) -> Result<Option<Capture>, UsageError> {
    let pick = match a.monitor_pattern.as_deref() {
        None | Some("S" | "s") => Pick::Cycle,
        Some("R" | "r") => Pick::Uniform,
        Some(other) => {
            return Err(UsageError::new(
                "--monitor-pattern",
                format!(
                    "'{other}' is neither S (sequential) nor R (random); give --monitor-pattern S or R"
                ),
            ));
        }
    };
    let Some(path) = &a.monitor_input else {
        return Ok(None);
    };
    if !resp {
        return Err(UsageError::new(
            "--monitor-input",
            "is supported only with the Redis protocols (redis, resp2, resp3), as in memtier; use -P redis",
        ));
    }
    if a.cluster_mode {
        return Err(UsageError::new(
            "--monitor-input",
            "is not supported with --cluster-mode, as in memtier; replay the capture against one server",
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| {
        UsageError::new(
            "--monitor-input",
            format!(
                "cannot read {}: {e}; give a readable MONITOR capture",
                path.display()
            ),
        )
    })?;
    let commands = parse_capture(&text).map_err(|e| capture_error(path, &e))?;
    Ok(Some(Capture { commands, pick }))
}

fn capture_error(path: &Path, e: &MonitorError) -> UsageError {
    UsageError::new(
        "--monitor-input",
        format!(
            "{}: {e}; give the output of redis-cli MONITOR",
            path.display()
        ),
    )
}

/// What `text`, one of `count` `--command` values, stands for.
pub(super) fn resolve(
    capture: Option<&Capture>,
    text: &str,
    count: usize,
) -> Result<Resolved, UsageError> {
    let text = text.trim();
    if !text.starts_with(LINE_PREFIX) {
        return Ok(Resolved::Text);
    }
    let Some(capture) = capture else {
        return Err(UsageError::new(
            "--command",
            format!(
                "\"{text}\" names a line of a MONITOR capture, and no --monitor-input was given; add --monitor-input FILE"
            ),
        ));
    };
    let lines = capture.commands.len();
    let range =
        || format!("valid: __monitor_line1__ to __monitor_line{lines}__, or __monitor_line@__");
    if text == ANY_LINE {
        if count > 1 {
            return Err(UsageError::new(
                "--command",
                "__monitor_line@__ replays the whole capture and must be the only --command so far; name single lines with __monitor_lineN__ to mix them with other commands",
            ));
        }
        if lines > MAX_OPS {
            return Err(UsageError::new(
                "--monitor-input",
                format!(
                    "holds {lines} commands, and __monitor_line@__ replays at most {MAX_OPS}; cut the capture"
                ),
            ));
        }
        return Ok(Resolved::All(capture.commands.clone(), capture.pick));
    }
    let number = text
        .strip_prefix(LINE_PREFIX)
        .and_then(|rest| rest.strip_suffix("__"))
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse::<usize>().ok());
    match number
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| capture.commands.get(i))
    {
        Some(spec) => Ok(Resolved::One(spec.clone())),
        None => Err(UsageError::new(
            "--command",
            format!("\"{text}\" is no line of the capture ({})", range()),
        )),
    }
}
