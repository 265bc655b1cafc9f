//! Which of Redis Cluster's 16 384 slots a key belongs to: CRC16 (the
//! XMODEM variant: polynomial 0x1021, initial value 0) of the key, or of its
//! hash tag, modulo 16 384 — as the cluster specification defines it.
//!
//! A hash tag is the part between the first `{` and the first `}` after it,
//! when that part is not empty: `{user1000}.following` and
//! `{user1000}.followers` share a slot. `foo{}{bar}` hashes whole, because its
//! first tag is empty.

/// The number of hash slots.
pub const SLOTS: u16 = 16_384;

/// CRC16-XMODEM lookup table, built at compile time.
const TABLE: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = (i as u16) << 8;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

/// CRC16-XMODEM of `bytes`.
pub fn crc16(bytes: &[u8]) -> u16 {
    crc16_from(0, bytes)
}

/// The part of `key` that is hashed: its hash tag, or the whole key.
pub fn hashed_part(key: &[u8]) -> &[u8] {
    let Some(open) = key.iter().position(|&b| b == b'{') else {
        return key;
    };
    match key[open + 1..].iter().position(|&b| b == b'}') {
        Some(len) if len > 0 => &key[open + 1..open + 1 + len],
        _ => key,
    }
}

/// The slot of `key`.
pub fn key_slot(key: &[u8]) -> u16 {
    crc16(hashed_part(key)) % SLOTS
}

/// The slots of the keys `prefix` + decimal number (kvbench's key shape) for
/// one prefix: the prefix's share of the CRC is computed once, and each key
/// hashes only its digits, from a stack buffer, without building the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumberedSlots {
    /// The slot of every key when a hash tag inside the prefix decides alone.
    tagged: Option<u16>,
    /// The CRC16 state after the prefix.
    after_prefix: u16,
}

impl NumberedSlots {
    /// The slots of keys that start with `prefix`.
    pub fn new(prefix: &[u8]) -> NumberedSlots {
        // Digits hold no braces, so a tag can only lie wholly inside the
        // prefix; if it does, it decides alone, and otherwise the whole key
        // is hashed.
        let tag = hashed_part(prefix);
        NumberedSlots {
            tagged: (tag.len() < prefix.len()).then(|| crc16(tag) % SLOTS),
            after_prefix: crc16(prefix),
        }
    }

    /// The slot of the key `prefix` + decimal `number`.
    #[inline]
    pub fn slot(&self, number: u64) -> u16 {
        if let Some(slot) = self.tagged {
            return slot;
        }
        let mut buf = [0_u8; 20];
        self.slot_of_digits(crate::protocol::decimal::digits_in(&mut buf, number))
    }

    /// The slot of the key `prefix` + `digits`, the number's decimal digits
    /// as a request already carries them.
    #[inline]
    pub fn slot_of_digits(&self, digits: &[u8]) -> u16 {
        match self.tagged {
            Some(slot) => slot,
            None => crc16_from(self.after_prefix, digits) % SLOTS,
        }
    }
}

/// Argument `index` (0 = the command name) of one RESP-encoded request, as
/// kvbench encodes them (`*N` then `$len` bulk strings); `None` when the
/// request has fewer arguments or is not in that shape (an inline command).
pub fn resp_arg(request: &[u8], index: usize) -> Option<&[u8]> {
    let mut rest = request.strip_prefix(b"*")?;
    let (count, after) = number(rest)?;
    if index >= count {
        return None;
    }
    rest = after;
    for i in 0..=index {
        let (len, after) = number(rest.strip_prefix(b"$")?)?;
        let arg = after.get(..len)?;
        if i == index {
            return Some(arg);
        }
        rest = after.get(len + 2..)?;
    }
    None
}

/// A decimal number and what follows its `\r\n`.
fn number(bytes: &[u8]) -> Option<(usize, &[u8])> {
    let end = bytes.iter().position(|&b| b == b'\r')?;
    let n = std::str::from_utf8(&bytes[..end]).ok()?.parse().ok()?;
    Some((n, bytes.get(end + 2..)?))
}

/// CRC16 of `bytes` continued from the state `crc`.
fn crc16_from(crc: u16, bytes: &[u8]) -> u16 {
    bytes.iter().fold(crc, |crc, &byte| {
        (crc << 8) ^ TABLE[usize::from(((crc >> 8) as u8) ^ byte)]
    })
}

#[cfg(test)]
mod tests {
    use super::{NumberedSlots, crc16, hashed_part, key_slot, resp_arg};

    #[test]
    fn arguments_are_found_in_an_encoded_request() {
        let req = b"*3\r\n$3\r\nSET\r\n$9\r\n{u1}:key7\r\n$2\r\nab\r\n";
        assert_eq!(resp_arg(req, 0), Some(&b"SET"[..]));
        assert_eq!(resp_arg(req, 1), Some(&b"{u1}:key7"[..]));
        assert_eq!(resp_arg(req, 2), Some(&b"ab"[..]));
        assert_eq!(resp_arg(req, 3), None);
        assert_eq!(resp_arg(b"PING\r\n", 0), None);
        assert_eq!(resp_arg(b"*2\r\n$3\r\nGET\r\n$9\r\nshort", 1), None);
    }

    #[test]
    fn crc16_matches_the_specifications_check_value() {
        // The cluster specification's reference: CRC16 of "123456789" is 0x31C3.
        assert_eq!(crc16(b"123456789"), 0x31C3);
        assert_eq!(crc16(b""), 0);
    }

    #[test]
    fn known_keys_land_in_the_slots_redis_gives_them() {
        // From CLUSTER KEYSLOT on a real server.
        assert_eq!(key_slot(b"foo"), 12182);
        assert_eq!(key_slot(b"bar"), 5061);
        assert_eq!(key_slot(b"memtier-1"), key_slot(b"memtier-1"));
    }

    #[test]
    fn hash_tags_follow_the_first_non_empty_braces() {
        assert_eq!(hashed_part(b"{user1000}.following"), b"user1000");
        assert_eq!(
            key_slot(b"{user1000}.following"),
            key_slot(b"{user1000}.followers")
        );
        assert_eq!(hashed_part(b"foo{}{bar}"), b"foo{}{bar}");
        assert_eq!(hashed_part(b"foo{{bar}}zap"), b"{bar");
        assert_eq!(hashed_part(b"foo{bar}{zap}"), b"bar");
        assert_eq!(hashed_part(b"no-close{tag"), b"no-close{tag");
    }

    #[test]
    fn numbered_keys_hash_like_the_whole_key() {
        for prefix in [
            &b"memtier-"[..],
            b"",
            b"user:{",
            b"{}x",
            b"{tag}:",
            b"a{b}c",
        ] {
            let widths = (0..20).flat_map(|w| [10u64.pow(w), 10u64.pow(w) - 1, 10u64.pow(w) + 7]);
            for n in widths.chain([42, 99_999, u64::MAX]) {
                let key = [prefix, n.to_string().as_bytes()].concat();
                assert_eq!(
                    NumberedSlots::new(prefix).slot(n),
                    key_slot(&key),
                    "{key:?}"
                );
            }
        }
    }
}
