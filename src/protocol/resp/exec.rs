//! The replies inside an `EXEC` reply, for `--transaction`: a command queued
//! after `MULTI` is answered `+QUEUED`, and its real reply (a GET's value or
//! nil) is an element of `EXEC`'s array, in the order the commands were
//! queued (`*2\r\n$1\r\nv\r\n$-1\r\n`: the first GET hit, the second missed).
//!
//! The reply was already delimited by the decoder ([`super::decode_as`]),
//! so this walks its top-level elements, borrowing, without copying or
//! allocating: it runs once per transaction on the hot path.

use super::outcome::outcome;
use super::scan::past_attributes;
use super::{Dialect, skip_elements};
use crate::protocol::wire::Outcome;

/// Calls `each` with the position and outcome of every element of `reply`,
/// one complete `EXEC` reply in `dialect`, in order, and returns how many
/// elements the array holds. `None`, having called `each` for no element,
/// when `reply` is not an array: an `EXEC` aborted by `WATCH` (a nil), an
/// error (`-EXECABORT`), or bytes that end early. RESP3 attributes are
/// skipped. A nested aggregate (an `LRANGE` inside the transaction) is one
/// element, whose outcome is [`Outcome::Other`].
pub fn exec_outcomes(
    reply: &[u8],
    dialect: Dialect,
    mut each: impl FnMut(usize, Outcome),
) -> Option<usize> {
    let (array, mut pos) = past_attributes(reply, 0, 0, dialect)?;
    let super::Reply::Array(count) = array else {
        return None;
    };
    // Every element is located before any is reported, so that a reply cut
    // short reports nothing rather than a part.
    let mut end = pos;
    for _ in 0..count {
        end = past_element(reply, end, dialect)?.1;
    }
    for index in 0..count {
        let (element, after) = past_element(reply, pos, dialect)?;
        each(index, element);
        pos = after;
    }
    Some(count)
}

/// The outcome of the element at `pos` (inside EXEC's array) and the offset
/// after the whole element, nested elements included.
fn past_element(reply: &[u8], pos: usize, dialect: Dialect) -> Option<(Outcome, usize)> {
    let (element, after) = past_attributes(reply, pos, 1, dialect)?;
    let mut attributes = 0;
    let end = match element.elements() {
        None | Some(0) => after,
        Some(n) => skip_elements(reply, after, n, dialect, &mut attributes).ok()??,
    };
    Some((outcome(&element), end))
}

#[cfg(test)]
mod tests {
    use super::{Dialect, Outcome, exec_outcomes};
    use crate::protocol::resp::ServerErrorKind;

    fn outcomes(reply: &[u8], dialect: Dialect) -> (Option<usize>, Vec<(usize, Outcome)>) {
        let mut seen = Vec::new();
        let count = exec_outcomes(reply, dialect, |i, o| seen.push((i, o)));
        (count, seen)
    }

    #[test]
    fn reads_each_queued_commands_reply_in_order() {
        let reply = b"*5\r\n$2\r\nv1\r\n$-1\r\n+OK\r\n*2\r\n:1\r\n$1\r\nx\r\n-ERR no\r\n";
        let (count, seen) = outcomes(reply, Dialect::Resp2);
        assert_eq!(count, Some(5));
        assert_eq!(
            seen,
            [
                (0, Outcome::Value),
                (1, Outcome::Nil),
                (2, Outcome::Other),
                (3, Outcome::Other),
                (4, Outcome::Error(ServerErrorKind::Err)),
            ]
        );
    }

    #[test]
    fn reads_resp3_nulls_and_skips_attributes() {
        let reply = b"|1\r\n+a\r\n+b\r\n*3\r\n_\r\n|1\r\n+k\r\n:2\r\n$1\r\nv\r\n%1\r\n+f\r\n+g\r\n";
        let (count, seen) = outcomes(reply, Dialect::Resp3);
        assert_eq!(count, Some(3));
        assert_eq!(
            seen,
            [(0, Outcome::Nil), (1, Outcome::Value), (2, Outcome::Other)]
        );
    }

    #[test]
    fn an_aborted_or_refused_exec_has_no_elements() {
        for reply in [
            &b"*-1\r\n"[..],
            b"$-1\r\n",
            b"-EXECABORT discarded\r\n",
            b"+OK\r\n",
        ] {
            assert_eq!(outcomes(reply, Dialect::Resp2), (None, vec![]), "{reply:?}");
        }
        assert_eq!(outcomes(b"_\r\n", Dialect::Resp3), (None, vec![]));
        assert_eq!(outcomes(b"*0\r\n", Dialect::Resp2), (Some(0), vec![]));
    }

    #[test]
    fn a_reply_cut_short_reports_nothing() {
        let reply = b"*2\r\n$2\r\nv1\r\n$-1\r\n";
        for end in 0..reply.len() {
            let (count, seen) = outcomes(&reply[..end], Dialect::Resp2);
            assert_eq!((count, seen.len()), (None, 0), "{end}");
        }
        // With junk after it, the elements are still the array's own.
        let junk = [&reply[..], b"$1\r\nz\r\n"].concat();
        assert_eq!(outcomes(&junk, Dialect::Resp2).0, Some(2));
    }
}
