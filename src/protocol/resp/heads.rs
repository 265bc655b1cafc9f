//! The SET/GET pair's request heads, encoded once per key width and patched
//! in place: what [`super::encode::encode_get`] and
//! [`super::encode::encode_set`] write piece by piece, made a single copy.
//!
//! Everything of `*2\r\n$3\r\nGET\r\n$<len>\r\n<prefix><digits>\r\n` but the
//! digits is fixed once the key's width is known: the key's length is the
//! prefix's plus the width. So each width of the run's key range gets its
//! head built at the start of a phase, digits zeroed, and a request is one
//! copy of its width's head with the digits written over the zeros
//! ([`crate::protocol::decimal::write_digits`]). Per request that is one
//! `memcpy` of a few dozen bytes instead of a length, a prefix and the
//! digits appended one after another, each with its own capacity check
//! (docs/performance.md, "Profile: the client's own work").

use std::ops::RangeInclusive;

use crate::protocol::decimal;

/// The widest key number: `u64::MAX` has 20 digits.
const MAX_WIDTH: usize = 20;

/// One command's heads up to and including its key, one per key width.
#[derive(Debug, Clone)]
pub struct KeyedHead {
    /// Every width's head, one after another.
    bytes: Box<[u8]>,
    /// For each width 0..=20, the range of its head in `bytes`; empty for a
    /// width that was not built (outside the run's key range).
    spans: [(u32, u32); MAX_WIDTH + 1],
}

impl KeyedHead {
    /// The heads of `command` (its `*N\r\n` and name, e.g.
    /// `*2\r\n$3\r\nGET\r\n`) with a key of `prefix` and a number of each
    /// width in `widths`.
    pub fn new(command: &[u8], prefix: &[u8], widths: RangeInclusive<usize>) -> KeyedHead {
        let mut bytes = Vec::new();
        let mut spans = [(0, 0); MAX_WIDTH + 1];
        for width in widths.filter(|w| (1..=MAX_WIDTH).contains(w)) {
            let start = bytes.len();
            bytes.extend_from_slice(command);
            bytes.push(b'$');
            decimal::push_crlf(&mut bytes, (prefix.len() + width) as u64);
            bytes.extend_from_slice(prefix);
            bytes.resize(bytes.len() + width, b'0');
            bytes.extend_from_slice(b"\r\n");
            spans[width] = (start as u32, bytes.len() as u32);
        }
        KeyedHead {
            bytes: bytes.into_boxed_slice(),
            spans,
        }
    }

    /// Appends the head of `key`'s width with its digits in place; false
    /// (nothing appended) when that width was not built.
    #[inline]
    pub fn push(&self, out: &mut Vec<u8>, key: u64) -> bool {
        let width = decimal::digits(key);
        let Some(head) = self
            .spans
            .get(width)
            .and_then(|&(start, end)| self.bytes.get(start as usize..end as usize))
            .filter(|head| !head.is_empty())
        else {
            return false;
        };
        out.extend_from_slice(head);
        // The digits end just before the head's closing CRLF.
        let end = out.len() - 2;
        if let Some(digits) = out.get_mut(end - width..end) {
            decimal::write_digits(digits, key);
        }
        true
    }

    /// Where `key`'s digits lie in a request that starts with its head;
    /// `None` for a width not built.
    #[inline]
    fn digits(&self, key: u64) -> Option<std::ops::Range<usize>> {
        let width = decimal::digits(key);
        let &(start, end) = self.spans.get(width).filter(|(s, e)| s < e)?;
        let end = (end - start) as usize - 2;
        Some(end - width..end)
    }
}

/// The heads of RESP's GET and SET for one key prefix and key range.
#[derive(Debug, Clone)]
pub struct PairHeads {
    get: KeyedHead,
    set: KeyedHead,
}

impl PairHeads {
    /// The heads for keys `prefix` + a number of `widths` digits.
    pub fn new(prefix: &[u8], widths: RangeInclusive<usize>) -> PairHeads {
        PairHeads {
            get: KeyedHead::new(b"*2\r\n$3\r\nGET\r\n", prefix, widths.clone()),
            set: KeyedHead::new(b"*3\r\n$3\r\nSET\r\n", prefix, widths),
        }
    }

    /// Appends `GET <prefix><key>` and returns its length; `None` (nothing
    /// appended) for a key of a width not built.
    #[inline]
    pub fn get(&self, out: &mut Vec<u8>, key: u64) -> Option<usize> {
        let before = out.len();
        self.get.push(out, key).then(|| out.len() - before)
    }

    /// Appends `SET <prefix><key> <value>` and returns its length; `None`
    /// (nothing appended) for a key of a width not built.
    #[inline]
    pub fn set(&self, out: &mut Vec<u8>, key: u64, value: &[u8]) -> Option<usize> {
        let before = out.len();
        if !self.set.push(out, key) {
            return None;
        }
        out.push(b'$');
        decimal::push_crlf(out, value.len() as u64);
        out.extend_from_slice(value);
        out.extend_from_slice(b"\r\n");
        Some(out.len() - before)
    }

    /// The digits of `key` in `request`, a GET (`set` false) or SET of it
    /// that these heads wrote (or the piecewise encoders, which write the
    /// same bytes): what a cluster client hashes for the key's slot,
    /// without writing the digits a second time. `None` for a width not
    /// built or a request too short.
    #[inline]
    pub fn key_digits<'r>(&self, request: &'r [u8], key: u64, set: bool) -> Option<&'r [u8]> {
        let head = if set { &self.set } else { &self.get };
        request.get(head.digits(key)?)
    }
}

#[cfg(test)]
mod tests {
    use super::PairHeads;
    use crate::protocol::resp::encode::{encode_get, encode_set};

    #[test]
    fn heads_encode_exactly_what_the_piecewise_encoders_do_at_every_width() {
        for prefix in [&b""[..], b"memtier-", b"user:{tag}:"] {
            let heads = PairHeads::new(prefix, 1..=20);
            let mut power = 1_u64;
            let mut keys = vec![0, 7, 42, 99_999, u64::MAX];
            while let Some(next) = power.checked_mul(10) {
                keys.extend([power - 1, power, power + 3]);
                power = next;
            }
            for key in keys {
                let (mut ours, mut theirs) = (b"x".to_vec(), b"x".to_vec());
                let len = heads.get(&mut ours, key).unwrap();
                assert_eq!(len, encode_get(&mut theirs, prefix, key), "{key}");
                assert_eq!(ours, theirs, "GET {key}");
                let len = heads.set(&mut ours, key, b"some value").unwrap();
                assert_eq!(len, encode_set(&mut theirs, prefix, key, b"some value"));
                assert_eq!(ours, theirs, "SET {key}");
            }
        }
    }

    #[test]
    fn the_key_digits_are_found_where_the_heads_wrote_them() {
        let heads = PairHeads::new(b"user:", 1..=20);
        for key in [0, 9, 10, 4_021, 99_999, 100_000, u64::MAX] {
            let digits = key.to_string();
            let mut get = Vec::new();
            heads.get(&mut get, key).unwrap();
            assert_eq!(heads.key_digits(&get, key, false), Some(digits.as_bytes()));
            let mut set = Vec::new();
            heads.set(&mut set, key, b"some value").unwrap();
            assert_eq!(heads.key_digits(&set, key, true), Some(digits.as_bytes()));
        }
        assert_eq!(
            PairHeads::new(b"k", 2..=3).key_digits(b"*2\r\n", 5, false),
            None
        );
        assert_eq!(
            PairHeads::new(b"k", 2..=3).key_digits(b"*2\r\n$3\r\nGET\r\n$4\r", 10, false),
            None
        );
    }

    #[test]
    fn a_width_outside_the_range_built_appends_nothing() {
        let heads = PairHeads::new(b"k:", 3..=5);
        let mut out = b"x".to_vec();
        assert_eq!(heads.get(&mut out, 99), None);
        assert_eq!(heads.set(&mut out, 100_000, b"v"), None);
        assert_eq!(out, b"x");
        assert_eq!(
            heads.get(&mut out, 100),
            Some(b"*2\r\n$3\r\nGET\r\n$5\r\nk:100\r\n".len())
        );
        assert_eq!(&out[1..], b"*2\r\n$3\r\nGET\r\n$5\r\nk:100\r\n");
    }
}
