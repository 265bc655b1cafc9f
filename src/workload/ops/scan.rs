//! `--scan-incremental-iteration`'s op table: memtier's SCAN cursor
//! iteration. A cycle sends the SCAN as typed (`SCAN 0 …`), then the same
//! SCAN with the cursor each reply returned (`SCAN <cursor> …`, every other
//! argument unchanged) until the server returns cursor 0 or
//! `--scan-incremental-max-iterations` continuations were sent; then the
//! next cycle starts at `SCAN 0` again. The two are two ops, counted in
//! memtier's two rows, `SCAN 0` and `SCAN <cursor>`; which one goes next is
//! the connection's cursor's choice, not the weighted cycle's
//! (`crate::engine::worker::request`).

use std::num::NonZeroU32;

use crate::protocol::command::{Arg, CURSOR_TEXT, CommandSpec, Part};
use crate::workload::keys::KeyPattern;
use crate::workload::ops::{Breakdown, OpTable};

/// The op of a cycle's first SCAN, sent as typed.
pub const SCAN_FIRST: usize = 0;
/// The op of the SCANs that follow a cursor.
pub const SCAN_NEXT: usize = 1;

/// How long a cycle follows the cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanLimit {
    /// Until the server returns cursor 0: one cycle is one full iteration
    /// (memtier's default, `--scan-incremental-max-iterations 0`).
    UntilCursorZero,
    /// At most this many continuations, then `SCAN 0` again.
    AtMost(NonZeroU32),
}

impl ScanLimit {
    /// `--scan-incremental-max-iterations` as memtier writes it: 0 for no
    /// limit.
    pub fn max_iterations(self) -> u32 {
        match self {
            ScanLimit::UntilCursorZero => 0,
            ScanLimit::AtMost(n) => n.get(),
        }
    }
}

impl OpTable {
    /// The table of `--scan-incremental-iteration` for `spec`, a SCAN whose
    /// second argument is its cursor: `spec` itself in the row `SCAN 0`,
    /// and `spec` with that argument replaced by the cursor in the row
    /// `SCAN <cursor>` (memtier's names; its JSON's `Scan 0s` and
    /// `Scan <cursor>s`). Both rows are one command to the server, SCAN.
    pub fn scan_iteration(
        spec: CommandSpec,
        pattern: KeyPattern,
        limit: ScanLimit,
        breakdown: Breakdown,
    ) -> OpTable {
        let mut next = spec.clone();
        if let Some(cursor) = next.args.get_mut(1) {
            *cursor = vec![Part::Cursor];
        }
        next.text = text_of(&next.args);
        // Line by line, so that the two SCAN ops keep two rows whatever
        // the breakdown asked for (there is one line either way).
        let mut table = OpTable::empty(Breakdown::Line);
        table.push(spec, pattern, 1);
        // Outside the weighted cycle: the cursor says when it goes.
        table.push(next, pattern, 0);
        for (row, cursor) in table.rows.iter_mut().zip(["0", CURSOR_TEXT]) {
            row.name = format!("SCAN {cursor}");
            row.name_key = row.name.clone();
            row.memtier = format!("Scan {cursor}s");
            row.json_key = row.memtier.clone();
        }
        table.breakdown = breakdown;
        table.scan = Some(limit);
        table
    }
}

/// A command as text, one word per argument, placeholders by their names:
/// the continuation's text for reports (`SCAN <cursor> COUNT 10`).
fn text_of(args: &[Arg]) -> String {
    let words = args.iter().map(|arg| {
        let word: String = arg
            .iter()
            .map(|part| match part {
                Part::Literal(bytes) => String::from_utf8_lossy(bytes).into_owned(),
                Part::Key => "__key__".to_string(),
                Part::Data => "__data__".to_string(),
                Part::RandInt => "__rand_int__".to_string(),
                Part::Cursor => CURSOR_TEXT.to_string(),
            })
            .collect();
        // A word with a blank was quoted when typed, and is again.
        if word.is_empty() || word.contains(char::is_whitespace) {
            format!("\"{word}\"")
        } else {
            word
        }
    });
    words.collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str, limit: ScanLimit) -> OpTable {
        let spec = CommandSpec::parse(text).unwrap();
        OpTable::scan_iteration(spec, KeyPattern::Uniform, limit, Breakdown::Command)
    }

    #[test]
    fn the_typed_scan_and_its_continuation_are_memtiers_two_rows() {
        let t = table("SCAN 0 MATCH user:* COUNT 10", ScanLimit::UntilCursorZero);
        assert_eq!(t.ops.len(), 2);
        assert_eq!(t.ops[SCAN_FIRST].spec.text, "SCAN 0 MATCH user:* COUNT 10");
        assert_eq!(
            t.ops[SCAN_NEXT].spec.text,
            "SCAN <cursor> MATCH user:* COUNT 10"
        );
        assert_eq!(t.ops[SCAN_NEXT].spec.args[1], vec![Part::Cursor]);
        let rows: Vec<_> = t
            .rows
            .iter()
            .map(|r| (r.name.as_str(), r.memtier.as_str(), r.json_key.as_str()))
            .collect();
        assert_eq!(
            rows,
            [
                ("SCAN 0", "Scan 0s", "Scan 0s"),
                ("SCAN <cursor>", "Scan <cursor>s", "Scan <cursor>s")
            ]
        );
        assert_eq!(t.ops[SCAN_NEXT].row, 1);
        // The breakdown asked for is reported, though the rows are two.
        assert_eq!(t.breakdown, Breakdown::Command);
        assert_eq!(t.scan, Some(ScanLimit::UntilCursorZero));
    }

    #[test]
    fn the_server_counts_both_rows_as_one_scan() {
        let t = table("scan 0", ScanLimit::UntilCursorZero);
        let witnesses = t.witnesses();
        assert_eq!(witnesses.len(), 1);
        assert_eq!(witnesses[0].command, "scan");
        assert_eq!(witnesses[0].name, "SCAN");
        assert_eq!(witnesses[0].rows, [0, 1]);
    }

    #[test]
    fn the_continuation_keeps_quoted_words_and_placeholders() {
        let t = table(
            r#"SCAN 0 MATCH "a b*" TYPE string COUNT __rand_int__"#,
            ScanLimit::UntilCursorZero,
        );
        assert_eq!(
            t.ops[SCAN_NEXT].spec.text,
            r#"SCAN <cursor> MATCH "a b*" TYPE string COUNT __rand_int__"#
        );
    }

    #[test]
    fn the_limit_is_written_as_memtier_does() {
        assert_eq!(ScanLimit::UntilCursorZero.max_iterations(), 0);
        let three = ScanLimit::AtMost(NonZeroU32::new(3).unwrap());
        assert_eq!(three.max_iterations(), 3);
    }

    #[test]
    fn a_continuation_fits_the_request_bound_at_the_largest_cursor() {
        let t = table("SCAN 0 COUNT 1", ScanLimit::UntilCursorZero);
        struct Widest;
        impl<'v> crate::protocol::template::Fill<'v> for Widest {
            fn key(&mut self) -> u64 {
                u64::MAX
            }
            fn data(&mut self) -> &'v [u8] {
                &[]
            }
            fn rand_int(&mut self) -> Option<u64> {
                None
            }
            fn cursor(&mut self) -> u64 {
                u64::MAX
            }
        }
        let mut out = Vec::new();
        let len = t.ops[SCAN_NEXT].template.encode(&mut out, b"", &mut Widest);
        assert!(len <= t.max_request_bytes(0, 0), "{len}");
    }
}
