//! RESP, the Redis serialization protocol (`-P redis`, `resp2`, `resp3`).
//! This file is the reply decoder (RESP2, and with [`Dialect::Resp3`] the
//! types [`resp3`] adds) and the request encoders ([`encode_command`]; the
//! SET/GET pair's heads built once per key width in [`heads`]);
//! beside it, the rest of what kvbench knows of RESP: [`outcome`],
//! [`handshake`], [`control`], [`options`], and [`scan`] (the cursor of a
//! SCAN reply).
//!
//! The decoder is stateless. It is handed whatever bytes have arrived so far
//! and answers whether they begin with one complete reply, so the connection
//! code needs no parser state of its own and can simply retry after the next
//! read. Replies borrow from the input buffer, which keeps bulk payloads from
//! ever being copied on the hot path.
//!
//! Every limit below exists because the server is not trusted: a length line
//! announcing 2^40 bytes, ten thousand nested array headers, or a line that
//! never ends must each end in an error, not in unbounded memory, a stack
//! overflow, or a connection that waits forever.

use thiserror::Error;

pub use crate::protocol::error_kind::ServerErrorKind;
pub use encode::{
    ExpiryCommand, encode_command, encode_get, encode_set, encode_set_expiring, encode_wait,
};
pub use scan::scan_cursor;

pub mod control;
mod encode;
pub mod exec;
pub mod found;
pub mod handshake;
pub mod heads;
pub mod options;
pub mod outcome;
pub mod resp3;
pub mod scan;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod resp3_proptests;
#[cfg(test)]
mod tests;

/// The deepest array nesting accepted; the top-level array is level one.
/// Any array header inside this many open arrays, even an empty or nil one,
/// is rejected.
pub const MAX_DEPTH: usize = 32;

/// The largest bulk string accepted, matching Redis' `proto-max-bulk-len`
/// default, so that anything a stock server may legally send decodes.
pub const MAX_BULK_LEN: i64 = 512 * 1024 * 1024;

/// The largest element count accepted in one array header.
pub const MAX_ARRAY_LEN: i64 = 1 << 24;

/// The longest line accepted, excluding its type byte and CRLF.
///
/// This applies to simple strings, errors, integers and lengths alike. A
/// line still unterminated after this many bytes is rejected rather than
/// waited for, because no honest server sends one and waiting would let a
/// hostile one grow the receive buffer without bound.
pub const MAX_LINE_LEN: usize = 64 * 1024;

/// One decoded top-level reply. Borrowed from the input buffer; bulk payloads
/// are never copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply<'a> {
    /// A simple string such as `+OK\r\n`, without the `+` and CRLF.
    Simple(&'a [u8]),
    /// A server error such as `-ERR foo\r\n`, without the `-` and CRLF. It is
    /// a value the server chose to send, not a decoding failure.
    Error(&'a [u8]),
    /// An integer such as `:12\r\n`.
    Integer(i64),
    /// A bulk string such as `$3\r\nabc\r\n`; only the payload is kept.
    Bulk(&'a [u8]),
    /// The null bulk string `$-1\r\n` or the null array `*-1\r\n`.
    Nil,
    /// An array of this many elements. All nested elements were validated
    /// and are included in the consumed length, but are not returned,
    /// because a load generator only needs to know the reply is complete.
    Array(usize),
    /// RESP3: `#t` or `#f`.
    Boolean(bool),
    /// RESP3: a double (`,1.5`, `,inf`, `,nan`), as its text.
    Double(&'a [u8]),
    /// RESP3: a big number (`(3492890328409238509324850943850943825024385`), as its digits.
    BigNumber(&'a [u8]),
    /// RESP3: a verbatim string (`=15\r\ntxt:Some string`): its payload, the
    /// three-letter format and colon included.
    Verbatim(&'a [u8]),
    /// RESP3: a map of this many key-value pairs (validated like an array).
    Map(usize),
    /// RESP3: a set of this many elements.
    Set(usize),
    /// RESP3: out-of-band data (`>`: pub/sub messages, client-side caching
    /// invalidations). It answers no request, so the connection must not
    /// match it to one.
    Push(usize),
    /// RESP3: attributes of the reply that follows, as this many pairs. Never
    /// returned by [`decode`], which skips them and returns that reply.
    Attribute(usize),
}

impl Reply<'_> {
    /// How many elements follow an aggregate's header (two per map or
    /// attribute pair); `None` for everything else.
    pub fn elements(&self) -> Option<usize> {
        match *self {
            Reply::Array(n) | Reply::Set(n) | Reply::Push(n) => Some(n),
            Reply::Map(n) | Reply::Attribute(n) => Some(n.saturating_mul(2)),
            _ => None,
        }
    }
}

/// Which RESP a connection speaks: the type bytes of RESP3 are errors in a
/// RESP2 stream, so a confused server is caught rather than misread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    /// RESP2: `+ - : $ *`.
    #[default]
    Resp2,
    /// RESP3 (after `HELLO 3`): also `_ # , ( ! = % ~ > |`.
    Resp3,
}

/// Why the bytes received cannot be a RESP2 reply stream. Every variant
/// means the connection is out of sync and must be closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum DecodeError {
    /// The first byte of a value is none of `+ - : $ *`.
    #[error("unexpected reply type byte 0x{0:02x}")]
    InvalidType(u8),
    /// A length or integer is empty, has a stray character, overflows an
    /// `i64`, is a negative length other than -1, or its line never ends.
    #[error("malformed length or integer")]
    InvalidNumber,
    /// A bulk string announced more than [`MAX_BULK_LEN`] bytes.
    #[error("bulk length {0} exceeds the limit")]
    BulkTooLarge(i64),
    /// An array announced more than [`MAX_ARRAY_LEN`] elements.
    #[error("array length {0} exceeds the limit")]
    ArrayTooLarge(i64),
    /// Arrays were nested more than [`MAX_DEPTH`] levels deep.
    #[error("replies nested deeper than {MAX_DEPTH} levels")]
    TooDeep,
    /// A RESP3 boolean, double or big number whose text is not one.
    #[error("malformed RESP3 boolean, double or big number")]
    InvalidScalar,
    /// A line or bulk payload was not followed by exactly `\r\n`, or a
    /// simple string or error line never ended.
    #[error("missing CRLF terminator")]
    MissingCrlf,
}

/// A decoded value header and the offset just past it.
pub(super) type Step<'a> = Option<(Reply<'a>, usize)>;

/// Decodes the first reply in `buf`.
///
/// Returns `Ok(None)` when `buf` holds only part of a reply, which is the
/// normal outcome of a short read; `Ok(Some((reply, consumed)))` for one
/// complete reply `consumed` bytes long; and `Err` for malformed input,
/// after which the caller should close the connection. Errors are reported
/// as early as the bytes allow, so a hostile length or nesting is rejected
/// without waiting for data that may never come.
///
/// # Errors
///
/// Any [`DecodeError`] means the bytes cannot be RESP2: an unknown type
/// byte, a malformed or out-of-range length, nesting beyond [`MAX_DEPTH`],
/// or a line or payload not terminated by exactly `\r\n`.
pub fn decode(buf: &[u8]) -> Result<Option<(Reply<'_>, usize)>, DecodeError> {
    decode_as(buf, Dialect::Resp2)
}

/// [`decode`] for either dialect. RESP3 attributes before a reply are
/// validated and skipped; the reply after them is returned, and the length
/// consumed covers both.
///
/// # Errors
///
/// As [`decode`]; in RESP3 also [`DecodeError::InvalidScalar`].
pub fn decode_as(buf: &[u8], dialect: Dialect) -> Result<Option<(Reply<'_>, usize)>, DecodeError> {
    Ok(decode_counting_attributes(buf, dialect)?.map(|(reply, used, _)| (reply, used)))
}

/// [`decode_as`], also saying how many RESP3 attribute frames (`|`) the
/// reply carried: those before it and those annotating its elements. They
/// are counted while they are skipped, so nothing is allocated for them.
///
/// # Errors
///
/// As [`decode_as`].
pub fn decode_counting_attributes(
    buf: &[u8],
    dialect: Dialect,
) -> Result<Option<(Reply<'_>, usize, u64)>, DecodeError> {
    let mut pos = 0;
    let mut attributes = 0_u64;
    loop {
        let Some((reply, after_header)) = read_value(buf, pos, 0, dialect)? else {
            return Ok(None);
        };
        let end = match reply.elements() {
            Some(count) if count > 0 => {
                match skip_elements(buf, after_header, count, dialect, &mut attributes)? {
                    Some(end) => end,
                    None => return Ok(None),
                }
            }
            _ => after_header,
        };
        if matches!(reply, Reply::Attribute(_)) {
            // Each attribute consumes bytes, so this ends with the buffer.
            attributes += 1;
            pos = end;
            continue;
        }
        return Ok(Some((reply, end, attributes)));
    }
}

/// Validates the `count` elements of an array starting at `pos` and returns
/// the offset after the last one, adding the attributes among them to
/// `attributes`.
///
/// Nesting is tracked in a fixed array of per-level counters instead of by
/// recursion, so neither the call stack nor the heap grows with the input.
fn skip_elements(
    buf: &[u8],
    mut pos: usize,
    count: usize,
    dialect: Dialect,
    attributes: &mut u64,
) -> Result<Option<usize>, DecodeError> {
    let mut owed = [0_usize; MAX_DEPTH];
    owed[0] = count;
    let mut open = 1_usize;
    while let Some(level) = open.checked_sub(1) {
        let remaining = owed.get_mut(level).ok_or(DecodeError::TooDeep)?;
        if *remaining == 0 {
            open = level;
            continue;
        }
        *remaining -= 1;
        let Some((reply, next)) = read_value(buf, pos, open, dialect)? else {
            return Ok(None);
        };
        pos = next;
        if matches!(reply, Reply::Attribute(_)) {
            // An attribute annotates the element after it and is not one.
            *remaining += 1;
            *attributes += 1;
        }
        match reply.elements() {
            Some(inner) if inner > 0 => {
                *owed.get_mut(open).ok_or(DecodeError::TooDeep)? = inner;
                open += 1;
            }
            _ => {}
        }
    }
    Ok(Some(pos))
}

/// Decodes one value header at `pos`, nested inside `depth` open arrays.
/// For an array only the header is read; its elements are the caller's.
fn read_value(
    buf: &[u8],
    pos: usize,
    depth: usize,
    dialect: Dialect,
) -> Result<Step<'_>, DecodeError> {
    let Some(&kind) = buf.get(pos) else {
        return Ok(None);
    };
    let start = pos + 1;
    match kind {
        b'+' => Ok(read_line(buf, start, DecodeError::MissingCrlf)?
            .map(|(line, end)| (Reply::Simple(line), end))),
        b'-' => Ok(read_line(buf, start, DecodeError::MissingCrlf)?
            .map(|(line, end)| (Reply::Error(line), end))),
        b':' => Ok(read_number(buf, start)?.map(|(value, end)| (Reply::Integer(value), end))),
        b'$' => read_bulk(buf, start),
        // The depth is checked on the type byte itself so that a hostile
        // nesting fails at once, however much of it is still in flight.
        b'*' if depth >= MAX_DEPTH => Err(DecodeError::TooDeep),
        b'*' => read_array_header(buf, start),
        other if dialect == Dialect::Resp3 => {
            if resp3::is_aggregate(other) && depth >= MAX_DEPTH {
                return Err(DecodeError::TooDeep);
            }
            resp3::read_value(buf, other, start)
        }
        other => Err(DecodeError::InvalidType(other)),
    }
}

/// Reads a line starting at `start` and returns it without its CRLF, along
/// with the offset after the CRLF. A line longer than [`MAX_LINE_LEN`] fails
/// with `too_long`, so each caller can name the failure in its own terms.
pub(super) fn read_line(
    buf: &[u8],
    start: usize,
    too_long: DecodeError,
) -> Result<Option<(&[u8], usize)>, DecodeError> {
    let rest = buf.get(start..).unwrap_or_default();
    let window = rest.get(..=MAX_LINE_LEN).unwrap_or(rest);
    let Some(cut) = window.iter().position(|&b| b == b'\r' || b == b'\n') else {
        return if window.len() > MAX_LINE_LEN {
            Err(too_long)
        } else {
            Ok(None)
        };
    };
    let (line, terminator) = rest.split_at(cut);
    match terminator {
        [b'\r', b'\n', ..] => Ok(Some((line, start + cut + 2))),
        // The byte after `\r` has not arrived yet, so it may still be `\n`.
        [b'\r'] => Ok(None),
        _ => Err(DecodeError::MissingCrlf),
    }
}

/// Reads an integer line such as the body of `:12\r\n` or `$3\r\n`.
#[inline]
pub(super) fn read_number(buf: &[u8], start: usize) -> Result<Option<(i64, usize)>, DecodeError> {
    match whole_number(buf, start) {
        Some(found) => Ok(Some(found)),
        None => read_number_line(buf, start),
    }
}

/// The common case of [`read_number`] in one pass: an optional `-`, digits
/// that fit an `i64`, CRLF. Anything else (incomplete, too long, malformed)
/// is `None` and left to [`read_number_line`], which names it; where both
/// answer, they answer alike.
#[inline]
fn whole_number(buf: &[u8], start: usize) -> Option<(i64, usize)> {
    let rest = buf.get(start..)?;
    let negative = rest.first() == Some(&b'-');
    let first = usize::from(negative);
    let mut at = first;
    let mut value = 0_i64;
    loop {
        let digit = rest.get(at)?.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        value = value.checked_mul(10)?;
        value = if negative {
            value.checked_sub(i64::from(digit))?
        } else {
            value.checked_add(i64::from(digit))?
        };
        at += 1;
    }
    (at > first && rest.get(at..at + 2)? == b"\r\n").then_some((value, start + at + 2))
}

/// [`read_number`] by its line: finds the CRLF, then parses what is before it.
fn read_number_line(buf: &[u8], start: usize) -> Result<Option<(i64, usize)>, DecodeError> {
    let Some((digits, end)) = read_line(buf, start, DecodeError::InvalidNumber)? else {
        return Ok(None);
    };
    Ok(Some((parse_i64(digits)?, end)))
}

/// Parses an optional `-` followed by one or more ASCII digits.
///
/// Negative values are accumulated downwards so that `i64::MIN`, whose
/// magnitude does not fit in an `i64`, still parses.
fn parse_i64(text: &[u8]) -> Result<i64, DecodeError> {
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    if digits.is_empty() {
        return Err(DecodeError::InvalidNumber);
    }
    digits.iter().try_fold(0_i64, |value, &byte| {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return Err(DecodeError::InvalidNumber);
        }
        let shifted = value.checked_mul(10);
        let next = if negative {
            shifted.and_then(|v| v.checked_sub(i64::from(digit)))
        } else {
            shifted.and_then(|v| v.checked_add(i64::from(digit)))
        };
        next.ok_or(DecodeError::InvalidNumber)
    })
}

/// Checks an announced length: -1 means nil (`None`), anything else must lie
/// in `0..=limit`.
pub(super) fn checked_length(
    len: i64,
    limit: i64,
    too_large: fn(i64) -> DecodeError,
) -> Result<Option<usize>, DecodeError> {
    match len {
        -1 => Ok(None),
        _ if len < -1 => Err(DecodeError::InvalidNumber),
        _ if len > limit => Err(too_large(len)),
        _ => usize::try_from(len).map(Some).map_err(|_| too_large(len)),
    }
}

/// Reads a bulk string whose `$` has already been seen.
pub(super) fn read_bulk(buf: &[u8], start: usize) -> Result<Step<'_>, DecodeError> {
    let Some((len, payload_start)) = read_number(buf, start)? else {
        return Ok(None);
    };
    let Some(len) = checked_length(len, MAX_BULK_LEN, DecodeError::BulkTooLarge)? else {
        return Ok(Some((Reply::Nil, payload_start)));
    };
    let payload_end = payload_start.saturating_add(len);
    let Some(payload) = buf.get(payload_start..payload_end) else {
        return Ok(None);
    };
    match buf.get(payload_end..).unwrap_or_default() {
        [b'\r', b'\n', ..] => Ok(Some((Reply::Bulk(payload), payload_end + 2))),
        [] | [b'\r'] => Ok(None),
        _ => Err(DecodeError::MissingCrlf),
    }
}

/// Reads an array header whose `*` has already been seen.
fn read_array_header(buf: &[u8], start: usize) -> Result<Step<'_>, DecodeError> {
    let Some((len, end)) = read_number(buf, start)? else {
        return Ok(None);
    };
    let reply = match checked_length(len, MAX_ARRAY_LEN, DecodeError::ArrayTooLarge)? {
        Some(count) => Reply::Array(count),
        None => Reply::Nil,
    };
    Ok(Some((reply, end)))
}
