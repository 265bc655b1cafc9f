//! A Redis `MONITOR` capture read into commands, for memtier's
//! `--monitor-input`.
//!
//! `redis-cli MONITOR` prints one command a line, `1700000000.123456 [0
//! 127.0.0.1:50000] "SET" "key" "value"`: every argument quoted, with the
//! escapes of the server's `sdscatrepr` (`\"`, `\\`, `\n`, `\xHH`, ...). As in
//! memtier, a command starts at a line's first `"`, and a line without one
//! (redis-cli's `OK` on connecting) holds no command and is not counted. The
//! arguments are split with memtier's and redis-cli's quoting
//! ([`crate::protocol::command::split`]) and kept as literal bytes: a
//! captured `__key__` is a key someone named so, not a placeholder.

use crate::protocol::command::split::{SplitError, split_args};
use crate::protocol::command::{CommandSpec, Part};

/// Why a capture could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MonitorError {
    /// No line holds a command.
    #[error("no line holds a command (a quoted \"COMMAND\" \"arg\" ...)")]
    Empty,
    /// A command whose quoting is off.
    #[error("line {line}: {why}")]
    Quoting {
        /// The file's line, from 1.
        line: usize,
        /// What is off.
        why: SplitError,
    },
}

/// The commands of a capture, in file order.
pub fn parse_capture(text: &str) -> Result<Vec<CommandSpec>, MonitorError> {
    let mut commands = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(start) = line.find('"') else {
            continue;
        };
        let command = line[start..].trim_end_matches('\r');
        let words =
            split_args(command).map_err(|why| MonitorError::Quoting { line: n + 1, why })?;
        // A quote opens at least one argument, so `words` is never empty.
        if words.is_empty() {
            continue;
        }
        commands.push(CommandSpec {
            text: command.to_string(),
            args: words.into_iter().map(|w| vec![Part::Literal(w)]).collect(),
        });
    }
    if commands.is_empty() {
        return Err(MonitorError::Empty);
    }
    Ok(commands)
}

#[cfg(test)]
mod tests {
    use crate::protocol::command::Part;
    use crate::workload::monitor::{MonitorError, parse_capture};

    #[test]
    fn reads_redis_cli_monitor_lines_and_skips_those_without_a_command() {
        let capture = "OK\n\
            1700000000.000001 [0 127.0.0.1:50000] \"SET\" \"k\\\"1\" \"a b\\x00\"\n\
            \n\
            1700000000.000002 [0 unix:/tmp/r.sock] \"get\" \"__key__\"\r\n";
        let commands = parse_capture(capture).unwrap();
        assert_eq!(commands.len(), 2);
        assert_eq!(commands[0].name(), "SET");
        assert_eq!(
            commands[0].args[1..],
            [
                vec![Part::Literal(b"k\"1".to_vec())],
                vec![Part::Literal(b"a b\0".to_vec())]
            ]
        );
        // Captured text stays literal, placeholders' names included.
        assert_eq!(commands[1].name(), "GET");
        assert_eq!(commands[1].args[1], [Part::Literal(b"__key__".to_vec())]);
    }

    #[test]
    fn refuses_a_capture_without_commands_or_with_broken_quotes() {
        assert_eq!(parse_capture("OK\n\n").unwrap_err(), MonitorError::Empty);
        let e = parse_capture("OK\n1.0 [0 x] \"SET\" \"k\n").unwrap_err();
        assert!(matches!(e, MonitorError::Quoting { line: 2, .. }), "{e:?}");
    }
}
