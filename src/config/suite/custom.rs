//! redis-benchmark's command after the flags (`script load "..."`): one test
//! in place of the named ones, each word one argument as typed, with `-x`'s
//! stdin as the last, named as redis-benchmark prints it.

use crate::cli::SuiteArgs;
use crate::error::UsageError;
use crate::protocol::command::CommandSpec;
use crate::protocol::command::suite::SuiteTest;

/// Commands that Redis 7 counts per subcommand in `INFO commandstats`
/// (`cmdstat_script|load`), so the server's count is found under that name.
const CONTAINERS: [&str; 15] = [
    "acl", "client", "cluster", "command", "config", "function", "latency", "memory", "module",
    "object", "pubsub", "script", "slowlog", "xgroup", "xinfo",
];

/// The command after the flags as a test and its parsed form; `None` when
/// no command follows the flags.
pub(super) fn command(
    a: &SuiteArgs,
) -> Result<Option<(&'static SuiteTest, CommandSpec)>, UsageError> {
    if a.command.is_empty() {
        if a.stdin_last_arg {
            return Err(UsageError::new(
                "-x",
                "reads the last argument of the command after the flags, and none was given; add the command (e.g. -x set mykey) or drop -x",
            ));
        }
        return Ok(None);
    }
    let first = &a.command[0];
    let named_like_a_command = first.starts_with(|c: char| c.is_ascii_alphabetic())
        && first
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '|'));
    if !named_like_a_command {
        // After -a, a stray word may be the password of `-a USER PASSWORD`
        // (the user goes with --user): it is not shown, nor sent.
        if a.password.is_some() {
            return Err(UsageError::new(
                "-a",
                format!(
                    "a word of {} characters follows the flags and is no command name (not shown: it may be a password; -a takes the password alone, --user the ACL user)",
                    first.chars().count()
                ),
            ));
        }
        return Err(UsageError::new(
            first,
            "is no command name, and the words after the flags are a command to run (e.g. set mykey myvalue); put flags before it, or use -t NAME for the named tests",
        ));
    }
    let mut words: Vec<Vec<u8>> = a.command.iter().map(|w| w.as_bytes().to_vec()).collect();
    // redis-benchmark's title is the words typed, without stdin's argument.
    let title = a.command.join(" ");
    if a.stdin_last_arg {
        words.push(a.stdin_value.clone().unwrap_or_default());
    }
    let spec = CommandSpec::from_words(&words).map_err(|e| {
        UsageError::new(
            &a.command[0],
            format!(
                "the command after the flags: {e}; e.g. kvbench suite -n 1000 set mykey myvalue"
            ),
        )
    })?;
    let name = a.command[0].to_ascii_lowercase();
    let counted_as = match a.command.get(1) {
        Some(sub) if CONTAINERS.contains(&name.as_str()) => {
            format!("{name}|{}", sub.to_ascii_lowercase())
        }
        _ => name,
    };
    // The plan lives as long as the process and a test is `&'static` (the
    // named tests are constants): this one is made once, at start-up.
    let title: &'static str = Box::leak(title.into_boxed_str());
    let test = SuiteTest {
        name: title,
        title,
        command: title,
        without_r: None,
        inline: false,
        prepare: None,
        counted_as: Box::leak(counted_as.into_boxed_str()),
        default: false,
    };
    Ok(Some((Box::leak(Box::new(test)), spec)))
}
