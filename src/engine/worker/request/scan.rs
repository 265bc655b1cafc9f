//! `--scan-incremental-iteration`'s state in a connection's request stream:
//! the cursor its last SCAN reply returned and the continuations of the
//! cycle so far, which decide whether the next request is `SCAN 0` or
//! `SCAN <cursor>`.
//!
//! The connection reads each SCAN reply's cursor (`crate::protocol::wire::scan_cursor`)
//! and hands it over as a [`ScanReply`]; `--pipeline 1` (checked by
//! configuration) makes that reply the answer to the request sent last, so
//! the state needs no queue of its own. A request lost with its connection
//! gets no reply: the state stays, and the same SCAN goes out again on the
//! new connection (a Redis cursor is the server's position in its table,
//! not a session's, so it stays valid), as memtier's client does.

use crate::workload::ops::{SCAN_FIRST, SCAN_NEXT, ScanLimit};

/// What a reply to a SCAN said of the iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanReply {
    /// A reply with this cursor (0 ends the iteration).
    Cursor(u64),
    /// An error, or a reply with no cursor: the next cycle starts at 0
    /// (memtier resets its cursor on any error reply).
    Restart,
}

/// One connection's place in the iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanState {
    limit: ScanLimit,
    /// The cursor to send next; 0 starts a cycle.
    cursor: u64,
    /// Continuations answered in this cycle.
    continuations: u32,
}

impl ScanState {
    /// The state of a fresh stream: its first request is `SCAN 0`.
    pub fn new(limit: ScanLimit) -> ScanState {
        ScanState {
            limit,
            cursor: 0,
            continuations: 0,
        }
    }

    /// The op of the next request: [`SCAN_FIRST`] at the start of a cycle,
    /// else [`SCAN_NEXT`].
    #[inline]
    pub fn next_op(&self) -> usize {
        if self.cursor == 0 {
            SCAN_FIRST
        } else {
            SCAN_NEXT
        }
    }

    /// The cursor [`SCAN_NEXT`] sends.
    #[inline]
    pub fn cursor(&self) -> u64 {
        self.cursor
    }

    /// Follows the reply to the request sent last: its cursor is the next
    /// one, unless the iteration is complete (cursor 0), the cycle has sent
    /// its most continuations, or the reply was an error; then the next
    /// request starts a cycle.
    pub fn follow(&mut self, reply: ScanReply) {
        let answered_continuation = self.cursor != 0;
        let ScanReply::Cursor(cursor) = reply else {
            self.restart();
            return;
        };
        if answered_continuation {
            self.continuations = self.continuations.saturating_add(1);
        }
        let spent = match self.limit {
            ScanLimit::UntilCursorZero => false,
            ScanLimit::AtMost(n) => self.continuations >= n.get(),
        };
        if cursor == 0 || spent {
            self.restart();
        } else {
            self.cursor = cursor;
        }
    }

    fn restart(&mut self) {
        self.cursor = 0;
        self.continuations = 0;
    }
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU32;

    use super::*;

    /// The ops a connection sends when the server answers with `cursors`
    /// in turn.
    fn sent(limit: ScanLimit, cursors: &[ScanReply]) -> Vec<(usize, u64)> {
        let mut state = ScanState::new(limit);
        let mut out = Vec::new();
        for &reply in cursors {
            out.push((state.next_op(), state.cursor()));
            state.follow(reply);
        }
        out.push((state.next_op(), state.cursor()));
        out
    }

    fn at_most(n: u32) -> ScanLimit {
        ScanLimit::AtMost(NonZeroU32::new(n).unwrap())
    }

    use ScanReply::{Cursor, Restart};

    #[test]
    fn follows_each_cursor_until_the_server_returns_zero() {
        let got = sent(
            ScanLimit::UntilCursorZero,
            &[Cursor(6), Cursor(1), Cursor(0), Cursor(6)],
        );
        assert_eq!(
            got,
            [
                (SCAN_FIRST, 0),
                (SCAN_NEXT, 6),
                (SCAN_NEXT, 1),
                (SCAN_FIRST, 0),
                (SCAN_NEXT, 6)
            ]
        );
    }

    #[test]
    fn a_cycle_sends_at_most_the_limit_of_continuations() {
        // memtier's test: COUNT 1 over many keys, at most 3: SCAN 0 and
        // three continuations, again and again.
        let replies: Vec<ScanReply> = (1..=8).map(Cursor).collect();
        let ops: Vec<usize> = sent(at_most(3), &replies)
            .into_iter()
            .map(|(op, _)| op)
            .collect();
        let (f, n) = (SCAN_FIRST, SCAN_NEXT);
        assert_eq!(ops, [f, n, n, n, f, n, n, n, f]);
    }

    #[test]
    fn an_error_or_a_reply_without_a_cursor_starts_again_at_zero() {
        let got = sent(at_most(5), &[Cursor(6), Restart, Cursor(7), Cursor(8)]);
        assert_eq!(
            got,
            [
                (SCAN_FIRST, 0),
                (SCAN_NEXT, 6),
                (SCAN_FIRST, 0),
                (SCAN_NEXT, 7),
                (SCAN_NEXT, 8)
            ]
        );
        // The error reset the cycle's count: 7 and 8 are its first two of 5.
        let mut state = ScanState::new(at_most(2));
        state.follow(Cursor(6));
        state.follow(Restart);
        state.follow(Cursor(7));
        state.follow(Cursor(8));
        assert_eq!(state.next_op(), SCAN_NEXT);
        state.follow(Cursor(9));
        assert_eq!(state.next_op(), SCAN_FIRST);
    }

    #[test]
    fn an_empty_keyspace_is_scan_zero_every_time() {
        let got = sent(ScanLimit::UntilCursorZero, &[Cursor(0), Cursor(0)]);
        assert!(got.iter().all(|&(op, _)| op == SCAN_FIRST), "{got:?}");
    }
}
