//! The protocol seam: which wire a run speaks ([`Protocol`], memtier's `-P`),
//! and the hot path's dispatch to the protocol families: each reply decoded
//! and reduced to a protocol-neutral [`Outcome`] that the connection records,
//! and the SET/GET pair encoded. The other concerns dispatch beside it:
//! [`super::handshake`], [`super::control`], [`super::options`].
//!
//! The dispatch is a `match` on a `Copy` enum rather than a trait object:
//! the branch is the same for every reply of a run, so it predicts perfectly,
//! and nothing is boxed on the hot path. Every `match` on [`Protocol`] names
//! each variant, so a new one is refused by the compiler until every concern
//! knows it.

use std::ops::RangeInclusive;

use thiserror::Error;

use super::decimal;
use super::error_kind::ServerErrorKind;
use super::memcache::binary::BinDecodeError;
use super::memcache::meta::{self, MetaDecodeError};
use super::memcache::text::{Asked, McDecodeError};
use super::memcache::{self, binary, text};
use super::resp::heads::PairHeads;
use super::resp::{self, DecodeError, Dialect, ExpiryCommand};

/// The wire protocol of a run, as memtier names it in `-P/--protocol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    /// `redis`: RESP2 with no `HELLO`, for servers before 6.0 (the default).
    #[default]
    Redis,
    /// `resp2`: RESP2, announced with `HELLO 2`.
    Resp2,
    /// `resp3`: RESP3 after `HELLO 3`.
    Resp3,
    /// `memcache_text`: memcached's text protocol.
    MemcacheText,
    /// `memcache_binary`: memcached's binary protocol.
    MemcacheBinary,
    /// `memcache_meta`: memcached's meta commands (`ms`, `mg`).
    MemcacheMeta,
}

impl Protocol {
    /// Every protocol, in the order the usage message lists them.
    pub const ALL: [Protocol; 6] = [
        Protocol::Redis,
        Protocol::Resp2,
        Protocol::Resp3,
        Protocol::MemcacheText,
        Protocol::MemcacheBinary,
        Protocol::MemcacheMeta,
    ];

    /// The name memtier takes on the command line and writes in its JSON.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Protocol::Redis => "redis",
            Protocol::Resp2 => "resp2",
            Protocol::Resp3 => "resp3",
            Protocol::MemcacheText => "memcache_text",
            Protocol::MemcacheBinary => "memcache_binary",
            Protocol::MemcacheMeta => "memcache_meta",
        }
    }

    /// The protocol of a `-P` value, exactly as memtier spells it.
    #[must_use]
    pub fn parse(text: &str) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.name() == text)
    }
}

/// What one reply means for the counters, whatever the wire; it borrows
/// nothing, so the read buffer is free again once it is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A value (a GET hit).
    Value,
    /// Nothing under the key (a GET miss): RESP's `$-1` or `_`, memcached's
    /// lone `END` or `Key not found`.
    Nil,
    /// An error reply of this kind; a value the server sent, not a fault of the stream.
    Error(ServerErrorKind),
    /// RESP3 out-of-band data: it answers no request and must not be matched.
    Push,
    /// Any other reply (`+OK`, `STORED`, an integer).
    Other,
}

/// Why the bytes received cannot be the replies expected; the connection is
/// out of step and must be closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum WireError {
    /// Not RESP.
    #[error(transparent)]
    Resp(#[from] DecodeError),
    /// Not memcached text replies.
    #[error(transparent)]
    Text(#[from] McDecodeError),
    /// Not memcached binary responses.
    #[error(transparent)]
    Binary(#[from] BinDecodeError),
    /// Not meta replies to the requests in flight.
    #[error(transparent)]
    Meta(#[from] MetaDecodeError),
    /// A binary response whose opaque is not the oldest request's: answered
    /// out of order, or a response to no request of ours.
    #[error("binary response with opaque {got}, expected {expected}")]
    OutOfOrder {
        /// The opaque of the oldest request in flight.
        expected: u32,
        /// The opaque the response carried.
        got: u32,
    },
}

/// What the oldest request in flight lets the decoder check of its reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Awaited<'a> {
    /// memcached binary and meta: the opaque it was sent with.
    pub opaque: u32,
    /// memcached text: what it asked (a `get`'s key, or no value at all).
    pub asked: Asked<'a>,
}

impl Awaited<'_> {
    /// Only the opaque is known (the text protocol's replies are taken as
    /// they come).
    pub const fn opaque(opaque: u32) -> Self {
        Awaited {
            opaque,
            asked: Asked::Anything,
        }
    }
}

/// Decodes the first reply in `buf`: `Ok(None)` while it is incomplete,
/// otherwise its outcome and the bytes it occupies. `expected_opaque` is the
/// opaque of the oldest request in flight (binary protocol only).
///
/// # Errors
///
/// [`WireError`] when the stream is out of step.
#[inline]
pub fn decode(
    protocol: Protocol,
    buf: &[u8],
    expected_opaque: u32,
) -> Result<Option<(Outcome, usize)>, WireError> {
    let awaited = Awaited::opaque(expected_opaque);
    Ok(decode_counted(protocol, buf, awaited)?.map(|(outcome, used, _)| (outcome, used)))
}

/// [`decode`] of the reply to the request `awaited` describes, also saying
/// how many RESP3 attribute frames the reply carried (always 0 outside
/// RESP3), so the connection can count them.
///
/// # Errors
///
/// [`WireError`] when the stream is out of step.
#[inline]
pub fn decode_counted(
    protocol: Protocol,
    buf: &[u8],
    awaited: Awaited<'_>,
) -> Result<Option<(Outcome, usize, u64)>, WireError> {
    match protocol {
        Protocol::Redis | Protocol::Resp2 => Ok(resp::outcome::decode(buf, Dialect::Resp2)?),
        Protocol::Resp3 => Ok(resp::outcome::decode(buf, Dialect::Resp3)?),
        Protocol::MemcacheText => Ok(memcache::outcome::decode_text(buf, awaited.asked)?),
        Protocol::MemcacheBinary => memcache::outcome::decode_binary(buf, awaited.opaque),
        Protocol::MemcacheMeta => Ok(meta::decode_outcome(buf, awaited.asked, awaited.opaque)?),
    }
}

/// `--scan-incremental-iteration`: the cursor of `reply`, one complete
/// reply to a SCAN; `None` when it carries none (an error, or a wire with
/// no SCAN: memcached's, which configuration refuses).
#[inline]
pub fn scan_cursor(protocol: Protocol, reply: &[u8]) -> Option<u64> {
    match protocol {
        Protocol::Redis | Protocol::Resp2 => resp::scan_cursor(reply, Dialect::Resp2),
        Protocol::Resp3 => resp::scan_cursor(reply, Dialect::Resp3),
        Protocol::MemcacheText | Protocol::MemcacheBinary | Protocol::MemcacheMeta => None,
    }
}

/// `--transaction`: calls `each` with the position and outcome of every
/// reply inside `reply`, one complete reply to `EXEC`, and returns how many
/// there are; `None` when it holds none (an aborted `EXEC`, an error, a
/// wire without transactions). See [`resp::exec::exec_outcomes`].
#[inline]
pub fn exec_outcomes(
    protocol: Protocol,
    reply: &[u8],
    each: impl FnMut(usize, Outcome),
) -> Option<usize> {
    match protocol {
        Protocol::Redis | Protocol::Resp2 => resp::exec::exec_outcomes(reply, Dialect::Resp2, each),
        Protocol::Resp3 => resp::exec::exec_outcomes(reply, Dialect::Resp3, each),
        Protocol::MemcacheText | Protocol::MemcacheBinary | Protocol::MemcacheMeta => None,
    }
}

/// The hits and misses of one complete reply of a command whose reply shape
/// `lookup` names (`MGET`, `SMEMBERS`, `EXISTS`…); `None` when the reply is
/// not of that shape, or the wire has no such commands. See
/// [`resp::found::found`].
#[inline]
pub fn found(protocol: Protocol, reply: &[u8], lookup: resp::found::Lookup) -> Option<(u64, u64)> {
    match protocol {
        Protocol::Redis | Protocol::Resp2 => resp::found::found(reply, Dialect::Resp2, lookup),
        Protocol::Resp3 => resp::found::found(reply, Dialect::Resp3, lookup),
        Protocol::MemcacheText | Protocol::MemcacheBinary | Protocol::MemcacheMeta => None,
    }
}

impl Protocol {
    /// Appends `SET prefix+key value` in this protocol; returns its length.
    /// memcached's items never expire (memtier's default expiry, 0); its
    /// binary request carries `opaque`, which the other protocols ignore.
    #[inline]
    pub fn encode_set(
        self,
        out: &mut Vec<u8>,
        prefix: &[u8],
        key: u64,
        value: &[u8],
        opaque: u32,
    ) -> usize {
        match self {
            Protocol::Redis | Protocol::Resp2 | Protocol::Resp3 => {
                resp::encode_set(out, prefix, key, value)
            }
            Protocol::MemcacheText => text::encode_set(out, prefix, key, 0, value),
            Protocol::MemcacheBinary => binary::encode_set(out, prefix, key, 0, value, opaque),
            Protocol::MemcacheMeta => meta::encode_set(out, prefix, key, 0, value, opaque),
        }
    }

    /// Appends a SET of `prefix+key` that expires after `seconds` (none when
    /// 0, as memtier): `SET … EX n` or `SETEX` in RESP as `command` says,
    /// memcached's expiry field otherwise; returns its length.
    #[inline]
    #[expect(
        clippy::too_many_arguments,
        reason = "encode_set's arguments and the expiry's two"
    )]
    pub fn encode_set_expiring(
        self,
        out: &mut Vec<u8>,
        prefix: &[u8],
        key: u64,
        value: &[u8],
        seconds: u32,
        command: ExpiryCommand,
        opaque: u32,
    ) -> usize {
        match self {
            _ if seconds == 0 => self.encode_set(out, prefix, key, value, opaque),
            Protocol::Redis | Protocol::Resp2 | Protocol::Resp3 => {
                resp::encode_set_expiring(out, prefix, key, value, seconds, command)
            }
            Protocol::MemcacheText => text::encode_set(out, prefix, key, seconds, value),
            Protocol::MemcacheBinary => {
                binary::encode_set(out, prefix, key, seconds, value, opaque)
            }
            Protocol::MemcacheMeta => meta::encode_set(out, prefix, key, seconds, value, opaque),
        }
    }

    /// Appends `GET prefix+key` in this protocol; returns its length.
    #[inline]
    pub fn encode_get(self, out: &mut Vec<u8>, prefix: &[u8], key: u64, opaque: u32) -> usize {
        match self {
            Protocol::Redis | Protocol::Resp2 | Protocol::Resp3 => {
                resp::encode_get(out, prefix, key)
            }
            Protocol::MemcacheText => text::encode_get(out, prefix, key),
            Protocol::MemcacheBinary => binary::encode_get(out, prefix, key, opaque),
            Protocol::MemcacheMeta => meta::encode_get(out, prefix, key, opaque),
        }
    }
}

/// The SET/GET pair's encoder for one run: its protocol, its key prefix and,
/// for RESP, the requests' heads built once per key width of its key range
/// ([`PairHeads`]); memcached's requests are encoded piece by piece.
#[derive(Debug, Clone)]
pub struct PairEncoder {
    protocol: Protocol,
    prefix: Box<[u8]>,
    heads: Option<PairHeads>,
}

impl PairEncoder {
    /// The encoder of keys `prefix` + a number in `keys`; a key outside
    /// `keys` is still encoded, piece by piece.
    pub fn new(protocol: Protocol, prefix: &[u8], keys: RangeInclusive<u64>) -> PairEncoder {
        let widths = decimal::digits(*keys.start())..=decimal::digits(*keys.end());
        let heads = match protocol {
            Protocol::Redis | Protocol::Resp2 | Protocol::Resp3 => {
                Some(PairHeads::new(prefix, widths))
            }
            Protocol::MemcacheText | Protocol::MemcacheBinary | Protocol::MemcacheMeta => None,
        };
        PairEncoder {
            protocol,
            prefix: prefix.into(),
            heads,
        }
    }

    /// The protocol it encodes for.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The key prefix it encodes keys with.
    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }

    /// Appends `GET prefix+key` ([`Protocol::encode_get`]); returns its length.
    #[inline]
    pub fn get(&self, out: &mut Vec<u8>, key: u64, opaque: u32) -> usize {
        match self.heads.as_ref().and_then(|h| h.get(out, key)) {
            Some(len) => len,
            None => self.protocol.encode_get(out, &self.prefix, key, opaque),
        }
    }

    /// The digits of `key` in `request`, a GET (`set` false) or SET of it
    /// that this encoder wrote ([`PairHeads::key_digits`]); `None` for
    /// memcached's requests, or a key width outside the key range.
    #[inline]
    pub fn key_digits<'r>(&self, request: &'r [u8], key: u64, set: bool) -> Option<&'r [u8]> {
        self.heads.as_ref()?.key_digits(request, key, set)
    }

    /// Appends `SET prefix+key value` ([`Protocol::encode_set`]); returns its
    /// length.
    #[inline]
    pub fn set(&self, out: &mut Vec<u8>, key: u64, value: &[u8], opaque: u32) -> usize {
        match self.heads.as_ref().and_then(|h| h.set(out, key, value)) {
            Some(len) => len,
            None => self
                .protocol
                .encode_set(out, &self.prefix, key, value, opaque),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Outcome, Protocol, WireError, decode};
    use crate::protocol::error_kind::ServerErrorKind;
    use crate::protocol::memcache::binary::OP_GET;

    #[test]
    fn every_protocol_name_parses_back_to_itself() {
        for p in Protocol::ALL {
            assert_eq!(Protocol::parse(p.name()), Some(p));
        }
        assert_eq!(Protocol::parse("RESP3"), None);
        assert_eq!(Protocol::parse("memcache"), None);
    }

    #[test]
    fn resp3_null_is_a_miss_blob_error_an_error_and_push_its_own_kind() {
        let r3 = |wire: &[u8]| decode(Protocol::Resp3, wire, 0).unwrap().unwrap();
        assert_eq!(r3(b"_\r\n"), (Outcome::Nil, 3));
        assert_eq!(r3(b"$1\r\nv\r\n"), (Outcome::Value, 7));
        assert_eq!(
            r3(b"!9\r\nOOM maybe\r\n").0,
            Outcome::Error(ServerErrorKind::Oom)
        );
        let push = b">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n";
        assert_eq!(r3(push), (Outcome::Push, push.len()));
        // The same bytes are not RESP2.
        assert!(decode(Protocol::Redis, b"_\r\n", 0).is_err());
    }

    #[test]
    fn memcached_text_hits_misses_and_errors() {
        let t = |wire: &[u8]| decode(Protocol::MemcacheText, wire, 0).unwrap().unwrap();
        assert_eq!(t(b"VALUE k 0 1\r\nv\r\nEND\r\n").0, Outcome::Value);
        assert_eq!(t(b"END\r\n"), (Outcome::Nil, 5));
        assert_eq!(t(b"STORED\r\n").0, Outcome::Other);
        assert_eq!(
            t(b"SERVER_ERROR object too large for cache\r\n").0,
            Outcome::Error(ServerErrorKind::Err)
        );
        assert_eq!(decode(Protocol::MemcacheText, b"END\r", 0), Ok(None));
    }

    #[test]
    fn a_binary_response_out_of_order_is_a_protocol_error() {
        let mut miss = vec![0x81, OP_GET, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0];
        miss.extend_from_slice(&7u32.to_be_bytes());
        miss.extend_from_slice(&[0; 8]);
        assert_eq!(
            decode(Protocol::MemcacheBinary, &miss, 7).unwrap(),
            Some((Outcome::Nil, 24))
        );
        assert_eq!(
            decode(Protocol::MemcacheBinary, &miss, 6),
            Err(WireError::OutOfOrder {
                expected: 6,
                got: 7
            })
        );
    }
}
