//! How a reply says which of a command's keys were found, for the commands
//! whose reply is not one value or nil: memtier 2.5's `--command-miss-tracking
//! auto` reply shapes ([`Lookup`]). GET and its kin (a value or a nil) are
//! counted from the reply's [`crate::protocol::wire::Outcome`] alone.
//!
//! The reply was already delimited by the decoder, so this walks it,
//! borrowing, without copying or allocating: it runs once per reply of such a
//! command on the hot path.

use super::scan::past_attributes;
use super::{Dialect, Reply, skip_elements};

/// A reply shape that tells found from missing keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// An array with one element per key asked (`MGET`, `HMGET`,
    /// `ZMSCORE`): a nil or an empty string is a miss, anything else a hit.
    PerElement,
    /// A collection (`SMEMBERS`, `LRANGE`, `HGETALL`, `HKEYS`, `HVALS`,
    /// `ZRANGE`): empty (or nil) is one miss, anything else one hit.
    Collection,
    /// An integer counting the keys found among this many asked (`EXISTS`,
    /// `SISMEMBER`, `HEXISTS`; at most 255 are told apart): that many hits,
    /// the rest misses.
    Membership(u8),
}

/// The hits and misses `reply` (one complete reply in `dialect`) holds under
/// `lookup`; `None` when it is not of that shape (an error reply, bytes that
/// end early), which counts neither.
pub fn found(reply: &[u8], dialect: Dialect, lookup: Lookup) -> Option<(u64, u64)> {
    let (head, mut pos) = past_attributes(reply, 0, 0, dialect)?;
    match lookup {
        Lookup::Collection => match head {
            Reply::Nil => Some((0, 1)),
            _ => head
                .elements()
                .map(|n| if n == 0 { (0, 1) } else { (1, 0) }),
        },
        Lookup::Membership(asked) => match head {
            Reply::Integer(n) => {
                let hits = u64::try_from(n).unwrap_or(0).min(u64::from(asked));
                Some((hits, u64::from(asked) - hits))
            }
            Reply::Boolean(b) => Some((u64::from(b), u64::from(!b))),
            _ => None,
        },
        Lookup::PerElement => {
            let Reply::Array(count) = head else {
                return None;
            };
            let (mut hits, mut misses) = (0, 0);
            for _ in 0..count {
                let (element, after) = past_attributes(reply, pos, 1, dialect)?;
                let mut attributes = 0;
                pos = match element.elements() {
                    None | Some(0) => after,
                    Some(n) => skip_elements(reply, after, n, dialect, &mut attributes).ok()??,
                };
                let missing = match element {
                    Reply::Nil => true,
                    Reply::Bulk(b) | Reply::Verbatim(b) => b.is_empty(),
                    other => other.elements() == Some(0),
                };
                if missing {
                    misses += 1;
                } else {
                    hits += 1;
                }
            }
            Some((hits, misses))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Dialect, Lookup, found};

    #[test]
    fn each_element_of_an_mget_is_a_hit_or_a_miss() {
        let reply = b"*4\r\n$2\r\nv1\r\n$-1\r\n$0\r\n\r\n$1\r\nx\r\n";
        assert_eq!(
            found(reply, Dialect::Resp2, Lookup::PerElement),
            Some((2, 2))
        );
        let resp3 = b"*3\r\n_\r\n,1.5\r\n$1\r\nx\r\n";
        assert_eq!(
            found(resp3, Dialect::Resp3, Lookup::PerElement),
            Some((2, 1))
        );
        // Nested aggregates count by their emptiness, and are skipped whole.
        let nested = b"*2\r\n*0\r\n*2\r\n:1\r\n:2\r\n";
        assert_eq!(
            found(nested, Dialect::Resp2, Lookup::PerElement),
            Some((1, 1))
        );
        assert_eq!(
            found(b"-ERR x\r\n", Dialect::Resp2, Lookup::PerElement),
            None
        );
        assert_eq!(
            found(b"*2\r\n$1\r\nv\r\n", Dialect::Resp2, Lookup::PerElement),
            None
        );
    }

    #[test]
    fn a_collection_is_found_unless_empty() {
        assert_eq!(
            found(b"*0\r\n", Dialect::Resp2, Lookup::Collection),
            Some((0, 1))
        );
        assert_eq!(
            found(b"*1\r\n$1\r\na\r\n", Dialect::Resp2, Lookup::Collection),
            Some((1, 0))
        );
        assert_eq!(
            found(b"%0\r\n", Dialect::Resp3, Lookup::Collection),
            Some((0, 1))
        );
        assert_eq!(
            found(b"~1\r\n$1\r\na\r\n", Dialect::Resp3, Lookup::Collection),
            Some((1, 0))
        );
        assert_eq!(found(b"+OK\r\n", Dialect::Resp2, Lookup::Collection), None);
    }

    #[test]
    fn an_integer_counts_the_keys_found_among_those_asked() {
        assert_eq!(
            found(b":2\r\n", Dialect::Resp2, Lookup::Membership(3)),
            Some((2, 1))
        );
        assert_eq!(
            found(b":0\r\n", Dialect::Resp2, Lookup::Membership(1)),
            Some((0, 1))
        );
        // More than asked (a key named twice counts twice) is all hits.
        assert_eq!(
            found(b":5\r\n", Dialect::Resp2, Lookup::Membership(2)),
            Some((2, 0))
        );
        assert_eq!(
            found(b"$1\r\nx\r\n", Dialect::Resp2, Lookup::Membership(1)),
            None
        );
    }
}
