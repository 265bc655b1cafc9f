//! `--transaction`: the commands a transaction queued, which the reply to
//! its `EXEC` answers.
//!
//! A command sent after `MULTI` is answered `+QUEUED`, which counts and is
//! timed as that command's reply, as memtier does (each command of a
//! rotation is its own request). Whether a queued GET found its key is said
//! only later, by its element of `EXEC`'s array. The connection keeps the
//! commands answered `+QUEUED`, in order (the row of each GET-like one), and
//! hands them over with the reply to the rotation's `EXEC` (or `DISCARD`)
//! ([`super::Reply::transaction`]), then empties the list. The list lives as
//! long as the connection: it grows to the rotation's length once and is
//! cleared, not freed, after every `EXEC`; a reconnect clears it too, since a
//! transaction does not outlive its connection.

use crate::engine::worker::request::Queued;
use crate::protocol::wire::Outcome;

/// Where a reply leaves the transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// No transaction is concerned, or a command joined it.
    Going,
    /// The reply ends it: the queued commands are handed over with it and
    /// cleared after.
    Ended,
}

/// Follows one reply, `(outcome, bytes)`, to `request`: a `+QUEUED` joins
/// `queued`.
#[inline]
pub(super) fn follow(
    queued: &mut Vec<Option<u16>>,
    request: Queued,
    outcome: Outcome,
    bytes: &[u8],
) -> Step {
    if outcome == Outcome::Other && bytes.starts_with(b"+QUEUED") {
        queued.push(request.counts_hits().then_some(request.row));
        return Step::Going;
    }
    if request.ends_transaction {
        Step::Ended
    } else {
        Step::Going
    }
}
