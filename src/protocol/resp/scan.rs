//! The cursor of a SCAN reply, for `--scan-incremental-iteration`: the
//! first element of the reply's array, a bulk string of decimal digits
//! (`*2\r\n$2\r\n17\r\n*…` → 17).
//!
//! The reply was already delimited by the decoder ([`super::decode_as`]),
//! so this reads only its first two headers, borrowing, without copying or
//! allocating: it runs once per SCAN reply on the hot path.

use super::{Dialect, Reply, read_value, skip_elements};

/// The digits of the largest cursor, `u64::MAX`: Redis' cursors are
/// unsigned 64-bit numbers.
const MAX_CURSOR_DIGITS: usize = 20;

/// The cursor of `reply`, one complete reply in `dialect`: `Some` when it
/// is an array whose first element is a bulk string of 1 to 20 decimal
/// digits that fits a `u64`; `None` for anything else (an error, a reply
/// that is not SCAN's), after which the iteration starts again at 0 as
/// memtier's does. RESP3 attributes before the array or its first element
/// are skipped.
pub fn scan_cursor(reply: &[u8], dialect: Dialect) -> Option<u64> {
    let (array, after) = past_attributes(reply, 0, 0, dialect)?;
    if !matches!(array, Reply::Array(n) if n >= 1) {
        return None;
    }
    match past_attributes(reply, after, 1, dialect)? {
        (Reply::Bulk(digits), _) => parse_cursor(digits),
        _ => None,
    }
}

/// The value header at `pos` (inside `depth` open arrays) and the offset
/// after it, past any attributes before it.
pub(super) fn past_attributes(
    buf: &[u8],
    mut pos: usize,
    depth: usize,
    dialect: Dialect,
) -> Option<(Reply<'_>, usize)> {
    loop {
        let (reply, after) = read_value(buf, pos, depth, dialect).ok()??;
        let Reply::Attribute(_) = reply else {
            return Some((reply, after));
        };
        let mut attributes = 0;
        let count = reply.elements().unwrap_or(0);
        pos = match count {
            0 => after,
            n => skip_elements(buf, after, n, dialect, &mut attributes).ok()??,
        };
    }
}

/// A cursor's digits as a number: `None` for no digit, anything but
/// digits, or more than a `u64` holds.
fn parse_cursor(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > MAX_CURSOR_DIGITS {
        return None;
    }
    digits.iter().try_fold(0_u64, |value, &byte| {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value.checked_mul(10)?.checked_add(u64::from(digit))
    })
}

#[cfg(test)]
mod tests {
    use super::scan_cursor;
    use crate::protocol::resp::{Dialect, decode_as};

    /// Every fixture is a reply the decoder accepts whole, and junk after
    /// it does not change its cursor.
    fn cursor(reply: &[u8], dialect: Dialect) -> Option<u64> {
        let (_, used) = decode_as(reply, dialect).unwrap().unwrap();
        assert_eq!(used, reply.len(), "{reply:?}");
        let mut junk = reply.to_vec();
        junk.extend_from_slice(b"$3\r\nxyz\r\n");
        assert_eq!(scan_cursor(&junk, dialect), scan_cursor(reply, dialect));
        scan_cursor(reply, dialect)
    }

    #[test]
    fn reads_the_cursor_of_a_scan_reply() {
        let reply = b"*2\r\n$4\r\n1792\r\n*2\r\n$5\r\nkey:1\r\n$5\r\nkey:2\r\n";
        assert_eq!(cursor(reply, Dialect::Resp2), Some(1792));
        assert_eq!(cursor(reply, Dialect::Resp3), Some(1792));
        // The last reply of a cycle, and one with no keys in it.
        assert_eq!(cursor(b"*2\r\n$1\r\n0\r\n*0\r\n", Dialect::Resp2), Some(0));
        assert_eq!(
            cursor(b"*2\r\n$2\r\n96\r\n*0\r\n", Dialect::Resp2),
            Some(96)
        );
    }

    #[test]
    fn the_largest_cursor_fits_and_a_larger_one_does_not() {
        let max = b"*2\r\n$20\r\n18446744073709551615\r\n*0\r\n";
        assert_eq!(cursor(max, Dialect::Resp2), Some(u64::MAX));
        let over = b"*2\r\n$20\r\n18446744073709551616\r\n*0\r\n";
        assert_eq!(cursor(over, Dialect::Resp2), None);
        let long = b"*2\r\n$21\r\n000000000000000000001\r\n*0\r\n";
        assert_eq!(cursor(long, Dialect::Resp2), None);
    }

    #[test]
    fn anything_but_a_cursor_restarts_the_iteration() {
        for reply in [
            &b"-ERR unknown command 'SCAN'\r\n"[..],
            b"+OK\r\n",
            b"$2\r\n17\r\n",
            b"*0\r\n",
            b"*-1\r\n",
            b"*2\r\n$0\r\n\r\n*0\r\n",
            b"*2\r\n$2\r\n1x\r\n*0\r\n",
            b"*2\r\n$-1\r\n*0\r\n",
            b"*2\r\n:17\r\n*0\r\n",
            b"*2\r\n*0\r\n*0\r\n",
        ] {
            assert_eq!(cursor(reply, Dialect::Resp2), None, "{reply:?}");
        }
    }

    #[test]
    fn resp3_attributes_around_the_cursor_are_skipped() {
        let before = b"|1\r\n+ttl\r\n:3\r\n*2\r\n$2\r\n42\r\n*0\r\n";
        assert_eq!(cursor(before, Dialect::Resp3), Some(42));
        let inside = b"*2\r\n|1\r\n+a\r\n*1\r\n:1\r\n$2\r\n42\r\n*0\r\n";
        assert_eq!(cursor(inside, Dialect::Resp3), Some(42));
    }

    #[test]
    fn a_cut_reply_has_no_cursor_rather_than_a_wrong_one() {
        // The connection hands over whole replies only; a prefix that
        // ends inside the cursor must not read as a shorter number.
        let reply = b"*2\r\n$4\r\n1792\r\n*0\r\n";
        for cut in 0..14 {
            assert_eq!(scan_cursor(&reply[..cut], Dialect::Resp2), None, "{cut}");
        }
        assert_eq!(scan_cursor(&reply[..14], Dialect::Resp2), Some(1792));
    }
}
