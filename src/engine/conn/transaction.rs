//! `--transaction`: the hits and misses of the GETs inside a transaction.
//!
//! A command sent after `MULTI` is answered `+QUEUED`, which the connection
//! counts and times as that command's reply, as memtier does (each command
//! of a rotation is its own request). Whether a queued GET found its key is
//! said only later, by its element of `EXEC`'s array: a value is a hit, a
//! nil a miss. The connection keeps the commands answered `+QUEUED`, in
//! order, and counts the hits and misses of the GET-like ones in their own
//! rows when `EXEC`'s array comes. An `EXEC` aborted by `WATCH` (a nil) or
//! refused (`-EXECABORT`, `-ERR EXEC without MULTI` after a reconnect) runs
//! nothing, so its GETs count neither. The list lives as long as the
//! connection: it grows to the rotation's length once and is cleared, not
//! freed, after every `EXEC`.

use crate::engine::client_stats::Tally;
use crate::engine::request::Queued;
use crate::engine::stats::Stats;
use crate::protocol::wire::{self, Outcome, Protocol};

/// One command answered `+QUEUED`: the row its hit or miss is counted in,
/// when it is GET-like.
pub(super) type QueuedCommand = Option<u16>;

/// Where a transaction's hits and misses are counted: the row counters,
/// `--client-stats`' tally, and the node's (`--cluster-mode`).
pub(super) struct Counters<'a> {
    pub(super) stats: &'a mut Stats,
    pub(super) tally: &'a mut [Tally],
    pub(super) node: Option<usize>,
}

/// Follows one reply, `(outcome, bytes)`, to `request`: a `+QUEUED` joins
/// `queued`; the reply to a rotation's `EXEC` (or `DISCARD`) counts the hits
/// and misses it holds for `queued`'s GET-like commands, then empties it.
#[inline]
pub(super) fn follow(
    protocol: Protocol,
    request: Queued,
    (outcome, reply): (Outcome, &[u8]),
    queued: &mut Vec<QueuedCommand>,
    counters: Counters<'_>,
) {
    if outcome == Outcome::Other && reply.starts_with(b"+QUEUED") {
        queued.push(request.counts_hits().then_some(request.row));
        return;
    }
    if !request.ends_transaction {
        return;
    }
    // An array of another length than the commands queued would pair replies
    // with the wrong commands: it is not read.
    if wire::exec_outcomes(protocol, reply, |_, _| {}) == Some(queued.len()) {
        let Counters { stats, tally, node } = counters;
        wire::exec_outcomes(protocol, reply, |index, element| {
            let Some(Some(row)) = queued.get(index).copied() else {
                return;
            };
            let row = usize::from(row);
            let hit = match element {
                Outcome::Value => true,
                Outcome::Nil => false,
                _ => return,
            };
            let op = stats.op_mut(row);
            count(&mut op.hits, &mut op.misses, hit);
            if let Some(t) = tally.get_mut(row) {
                count(&mut t.hits, &mut t.misses, hit);
            }
            if let Some(n) = node.and_then(|n| stats.nodes.get_mut(n)) {
                count(&mut n.hits, &mut n.misses, hit);
            }
        });
    }
    queued.clear();
}

fn count(hits: &mut u64, misses: &mut u64, hit: bool) {
    if hit {
        *hits += 1;
    } else {
        *misses += 1;
    }
}
