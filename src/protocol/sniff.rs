//! What a server speaks, told from the first bytes of a reply that was not
//! in the protocol asked for: the preflight names it, so that a wrong
//! `-P/--protocol` is one clear refusal rather than a run of reconnects.

use super::wire::Protocol;

/// A family of protocols a reply's first bytes belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spoken {
    /// RESP: a Redis-protocol server (Redis, Valkey, KeyDB, a RESP proxy).
    Resp,
    /// memcached's text protocol (`ERROR`, `CLIENT_ERROR`, `STAT`).
    MemcacheText,
    /// memcached's binary protocol (a response header's magic 0x81).
    MemcacheBinary,
}

impl Spoken {
    /// The family `bytes` (the start of a reply) are in, if any is clear.
    #[must_use]
    pub fn of(bytes: &[u8]) -> Option<Spoken> {
        let text = |prefixes: &[&[u8]]| prefixes.iter().any(|p| bytes.starts_with(p));
        if bytes.first() == Some(&0x81) {
            Some(Spoken::MemcacheBinary)
        } else if text(&[
            b"ERROR",
            b"CLIENT_ERROR",
            b"SERVER_ERROR",
            b"STAT ",
            b"END\r\n",
        ]) {
            Some(Spoken::MemcacheText)
        } else if text(&[
            b"-ERR",
            b"-NOAUTH",
            b"-WRONGPASS",
            b"+",
            b"$",
            b"*",
            b"%",
            b":",
        ]) {
            Some(Spoken::Resp)
        } else {
            None
        }
    }

    /// Whether `protocol` is of this family.
    #[must_use]
    pub fn speaks(self, protocol: Protocol) -> bool {
        match self {
            Spoken::Resp => matches!(
                protocol,
                Protocol::Redis | Protocol::Resp2 | Protocol::Resp3
            ),
            Spoken::MemcacheText => {
                matches!(protocol, Protocol::MemcacheText | Protocol::MemcacheMeta)
            }
            Spoken::MemcacheBinary => protocol == Protocol::MemcacheBinary,
        }
    }

    /// How a message names it, and the `-P` that speaks it.
    #[must_use]
    pub fn describe(self) -> (&'static str, &'static str) {
        match self {
            Spoken::Resp => ("RESP (Redis)", "redis"),
            Spoken::MemcacheText => ("memcached's text protocol", "memcache_text"),
            Spoken::MemcacheBinary => ("memcached's binary protocol", "memcache_binary"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_bytes_name_the_family() {
        let redis = b"-ERR unknown command 'stats', with args beginning with: \r\n";
        assert_eq!(Spoken::of(redis), Some(Spoken::Resp));
        assert_eq!(Spoken::of(b"ERROR\r\n"), Some(Spoken::MemcacheText));
        assert_eq!(
            Spoken::of(&[0x81, 0x10, 0, 0]),
            Some(Spoken::MemcacheBinary)
        );
        assert_eq!(Spoken::of(b"HTTP/1.1 400"), None);
        assert!(Spoken::Resp.speaks(Protocol::Resp3));
        assert!(!Spoken::Resp.speaks(Protocol::MemcacheText));
        assert!(!Spoken::MemcacheText.speaks(Protocol::Redis));
    }
}
