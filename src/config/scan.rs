//! `--scan-incremental-iteration` and `--scan-incremental-max-iterations`
//! (memtier's SCAN cursor iteration), validated: the settings it cannot run
//! with are refused before any connection opens, and the one `--command`
//! SCAN becomes the table of its two rows
//! ([`OpTable::scan_iteration`]).

use std::num::NonZeroU32;

use crate::cli::Args;
use crate::error::UsageError;
use crate::protocol::command::Part;
use crate::protocol::wire::Protocol;
use crate::workload::ops::{OpTable, ScanLimit};

const FLAG: &str = "--scan-incremental-iteration";
const MAX_FLAG: &str = "--scan-incremental-max-iterations";

/// The command memtier's help shows, for the fixes below.
const EXAMPLE: &str = "--command \"SCAN 0 [MATCH pattern] [COUNT count] [TYPE type]\"";

/// How far each cycle follows the cursor, or `None` without
/// `--scan-incremental-iteration`; refuses what it cannot run with.
/// `pipelines` are the pipeline depths of every cell of the run.
pub(super) fn build_scan(
    a: &Args,
    protocol: Protocol,
    pipelines: &[usize],
) -> Result<Option<ScanLimit>, UsageError> {
    if !a.scan_incremental_iteration {
        if a.scan_incremental_max_iterations.is_some() {
            return Err(UsageError::new(
                MAX_FLAG,
                "applies to --scan-incremental-iteration, which is off; add --scan-incremental-iteration or drop it",
            ));
        }
        return Ok(None);
    }
    if matches!(
        protocol,
        Protocol::MemcacheText | Protocol::MemcacheBinary | Protocol::MemcacheMeta
    ) {
        return Err(UsageError::new(
            FLAG,
            format!(
                "follows the cursor of Redis's SCAN, which -P {} has not; use -P redis, resp2 or resp3",
                protocol.name()
            ),
        ));
    }
    if a.cluster_mode {
        return Err(UsageError::new(
            FLAG,
            "is not supported with --cluster-mode: each master has a cursor of its own (memtier refuses it too); drop one",
        ));
    }
    if let Some(depth) = pipelines.iter().find(|&&p| p != 1) {
        return Err(UsageError::new(
            FLAG,
            format!(
                "needs --pipeline 1, since each SCAN sends the cursor of the reply before it, and the pipeline is {depth}; give --pipeline 1"
            ),
        ));
    }
    for (flag, given) in [
        ("--transaction", a.transaction),
        ("--retry-on-error", a.retry_on_error),
    ] {
        if given {
            return Err(UsageError::new(
                FLAG,
                format!(
                    "and {flag} cannot go together: an error reply starts the iteration again at SCAN 0 (memtier's meaning), which {flag} would change; drop one"
                ),
            ));
        }
    }
    // memtier takes 0 as its default, "until the cursor is 0".
    Ok(Some(
        match a.scan_incremental_max_iterations.and_then(NonZeroU32::new) {
            None => ScanLimit::UntilCursorZero,
            Some(n) => ScanLimit::AtMost(n),
        },
    ))
}

/// `table`, built from the `--command` lines, made into the iteration's
/// table: it must be exactly one SCAN whose cursor argument is 0.
pub(super) fn scan_table(table: OpTable, limit: ScanLimit) -> Result<OpTable, UsageError> {
    if table.default_pair {
        return Err(UsageError::new(
            FLAG,
            format!("follows the cursor of one --command SCAN, and none was given; add {EXAMPLE}"),
        ));
    }
    let (breakdown, count) = (table.breakdown, table.ops.len());
    let mut ops = table.ops.into_iter();
    let (Some(op), None) = (ops.next(), ops.next()) else {
        return Err(UsageError::new(
            FLAG,
            format!(
                "takes exactly one --command, a SCAN, and {count} were given; keep one, as {EXAMPLE}"
            ),
        ));
    };
    let text = &op.spec.text;
    if op.spec.name() != "SCAN" {
        return Err(UsageError::new(
            FLAG,
            format!("\"{text}\" is not a SCAN; give {EXAMPLE}"),
        ));
    }
    match op.spec.args.get(1).map(Vec::as_slice) {
        None => {
            return Err(UsageError::new(
                FLAG,
                format!(
                    "\"{text}\" has no cursor; write the cursor a cycle starts at, as in \"SCAN 0\""
                ),
            ));
        }
        Some([Part::Literal(zero)]) if zero.as_slice() == b"0" => {}
        Some(_) => {
            return Err(UsageError::new(
                FLAG,
                format!(
                    "\"{text}\" starts at another cursor than 0, and each cycle starts at SCAN 0; write the command as \"SCAN 0 ...\""
                ),
            ));
        }
    }
    Ok(OpTable::scan_iteration(
        op.spec, op.pattern, limit, breakdown,
    ))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::cli::Cli;
    use crate::config::Config;
    use crate::error::UsageError;
    use crate::workload::ops::{SCAN_NEXT, ScanLimit};

    fn build(args: &[&str]) -> Result<Config, UsageError> {
        let mut full = vec!["kvbench"];
        full.extend_from_slice(args);
        Config::from_args(Cli::try_parse_from(full).unwrap().run)
    }

    const SCAN: [&str; 3] = [
        "--scan-incremental-iteration",
        "--command",
        "SCAN 0 COUNT 1",
    ];

    #[test]
    fn one_scan_becomes_the_two_rows_of_the_iteration() {
        let c = build(&SCAN).unwrap();
        assert_eq!(c.ops.scan, Some(ScanLimit::UntilCursorZero));
        assert_eq!(c.ops.rows.len(), 2);
        assert_eq!(c.ops.ops[SCAN_NEXT].spec.text, "SCAN <cursor> COUNT 1");
        let mut args = SCAN.to_vec();
        args.extend(["--scan-incremental-max-iterations", "3"]);
        let c = build(&args).unwrap();
        assert_eq!(c.ops.scan.map(ScanLimit::max_iterations), Some(3));
        // 0 is memtier's default, given or not.
        args.extend(["--scan-incremental-max-iterations", "0"]);
        let c = build(&args).unwrap();
        assert_eq!(c.ops.scan, Some(ScanLimit::UntilCursorZero));
    }

    #[test]
    fn without_the_flag_nothing_changes_and_its_limit_is_refused() {
        let c = build(&["--command", "SCAN 0 COUNT 1"]).unwrap();
        assert_eq!(c.ops.scan, None);
        assert_eq!(c.ops.rows.len(), 1);
        let e = build(&["--scan-incremental-max-iterations", "3"]).unwrap_err();
        assert_eq!(e.flag, "--scan-incremental-max-iterations");
        assert!(e.message.contains("which is off"), "{e}");
    }

    #[test]
    fn what_the_iteration_cannot_run_with_is_refused_naming_it() {
        let with = |extra: &[&str]| {
            let mut args = SCAN.to_vec();
            args.extend_from_slice(extra);
            build(&args).unwrap_err()
        };
        for (extra, says) in [
            (&["--pipeline", "2"][..], "--pipeline 1"),
            (&["--pipeline", "1,4"][..], "--pipeline 1"),
            (&["--cluster-mode"][..], "--cluster-mode"),
            (&["-P", "memcache_text"][..], "memcache_text"),
            (&["-P", "memcache_meta"][..], "memcache_meta"),
            (&["--transaction"][..], "--transaction"),
            (&["--retry-on-error"][..], "--retry-on-error"),
            (&["--command", "GET __key__"][..], "exactly one"),
        ] {
            let e = with(extra);
            assert_eq!(e.flag, "--scan-incremental-iteration", "{extra:?}: {e}");
            assert!(e.message.contains(says), "{extra:?}: {e}");
        }
    }

    #[test]
    fn the_command_must_be_one_scan_from_cursor_zero() {
        let e = build(&["--scan-incremental-iteration"]).unwrap_err();
        assert!(e.message.contains("none was given"), "{e}");
        for (command, says) in [
            ("GET __key__", "is not a SCAN"),
            ("SCAN", "has no cursor"),
            ("SCAN 17 COUNT 1", "another cursor than 0"),
            ("SCAN __key__", "another cursor than 0"),
        ] {
            let e = build(&["--scan-incremental-iteration", "--command", command]).unwrap_err();
            assert_eq!(e.flag, "--scan-incremental-iteration", "{command}: {e}");
            assert!(e.message.contains(says), "{command}: {e}");
        }
        // The name is a command name, in any case.
        assert!(build(&["--scan-incremental-iteration", "--command", "scan 0"]).is_ok());
    }
}
