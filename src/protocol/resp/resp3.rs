//! The value types RESP3 adds to RESP2 (the protocol after `HELLO 3`), read
//! by the same stateless decoder ([`super::decode_as`] with
//! [`Dialect::Resp3`](super::Dialect::Resp3)).
//!
//! | byte | type | decoded as |
//! |---|---|---|
//! | `_` | null | [`Reply::Nil`] (a miss, as RESP2's `$-1`) |
//! | `#` | boolean | [`Reply::Boolean`] |
//! | `,` | double | [`Reply::Double`] (text checked, not parsed) |
//! | `(` | big number | [`Reply::BigNumber`] |
//! | `!` | blob error | [`Reply::Error`], like a simple error |
//! | `=` | verbatim string | [`Reply::Verbatim`] |
//! | `%` | map | [`Reply::Map`] (pairs) |
//! | `~` | set | [`Reply::Set`] |
//! | `>` | push | [`Reply::Push`]: answers no request |
//! | `\|` | attribute | skipped, with the value it annotates returned |
//!
//! Streamed strings and aggregates (`$?`, `*?`) are not accepted: Redis
//! never sends them, and accepting them would need decoder state.

use super::{
    DecodeError, MAX_ARRAY_LEN, Reply, Step, checked_length, read_bulk, read_line, read_number,
};

/// Whether `kind` opens an aggregate (for the nesting limit).
pub(super) fn is_aggregate(kind: u8) -> bool {
    matches!(kind, b'%' | b'~' | b'>' | b'|')
}

/// Reads one RESP3-only value whose type byte `kind` was at `start - 1`.
pub(super) fn read_value(buf: &[u8], kind: u8, start: usize) -> Result<Step<'_>, DecodeError> {
    match kind {
        b'_' => match read_line(buf, start, DecodeError::InvalidScalar)? {
            None => Ok(None),
            Some((b"", end)) => Ok(Some((Reply::Nil, end))),
            Some(_) => Err(DecodeError::InvalidScalar),
        },
        b'#' => match read_line(buf, start, DecodeError::InvalidScalar)? {
            None => Ok(None),
            Some((b"t", end)) => Ok(Some((Reply::Boolean(true), end))),
            Some((b"f", end)) => Ok(Some((Reply::Boolean(false), end))),
            Some(_) => Err(DecodeError::InvalidScalar),
        },
        b',' => scalar(buf, start, is_double, Reply::Double),
        b'(' => scalar(buf, start, is_big_number, Reply::BigNumber),
        b'!' => blob(buf, start, Reply::Error),
        b'=' => blob(buf, start, Reply::Verbatim),
        b'%' => aggregate(buf, start, Reply::Map),
        b'~' => aggregate(buf, start, Reply::Set),
        b'>' => aggregate(buf, start, Reply::Push),
        b'|' => aggregate(buf, start, Reply::Attribute),
        other => Err(DecodeError::InvalidType(other)),
    }
}

/// A line whose text `valid` accepts.
fn scalar<'a>(
    buf: &'a [u8],
    start: usize,
    valid: fn(&[u8]) -> bool,
    make: fn(&'a [u8]) -> Reply<'a>,
) -> Result<Step<'a>, DecodeError> {
    match read_line(buf, start, DecodeError::InvalidScalar)? {
        None => Ok(None),
        Some((text, end)) if valid(text) => Ok(Some((make(text), end))),
        Some(_) => Err(DecodeError::InvalidScalar),
    }
}

/// A length-prefixed payload like a bulk string, but never nil.
fn blob<'a>(
    buf: &'a [u8],
    start: usize,
    make: fn(&'a [u8]) -> Reply<'a>,
) -> Result<Step<'a>, DecodeError> {
    match read_bulk(buf, start)? {
        None => Ok(None),
        Some((Reply::Bulk(payload), end)) => Ok(Some((make(payload), end))),
        Some(_) => Err(DecodeError::InvalidNumber),
    }
}

/// An aggregate header: its count (pairs for maps and attributes).
fn aggregate<'a>(
    buf: &'a [u8],
    start: usize,
    make: fn(usize) -> Reply<'a>,
) -> Result<Step<'a>, DecodeError> {
    let Some((len, end)) = read_number(buf, start)? else {
        return Ok(None);
    };
    match checked_length(len, MAX_ARRAY_LEN, DecodeError::ArrayTooLarge)? {
        Some(count) => Ok(Some((make(count), end))),
        // Only RESP2's arrays and bulk strings have a -1 length.
        None => Err(DecodeError::InvalidNumber),
    }
}

/// `inf`, `-inf`, `nan`, or a decimal with optional sign, point and exponent.
fn is_double(text: &[u8]) -> bool {
    if matches!(text, b"inf" | b"-inf" | b"+inf" | b"nan" | b"-nan") {
        return true;
    }
    let body = text
        .strip_prefix(b"-")
        .or_else(|| text.strip_prefix(b"+"))
        .unwrap_or(text);
    let (mantissa, exponent) = match body.iter().position(|&b| b == b'e' || b == b'E') {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let mut parts = mantissa.splitn(2, |&b| b == b'.');
    let whole = parts.next().unwrap_or_default();
    let fraction = parts.next().unwrap_or_default();
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    let mantissa_ok =
        digits(whole) && digits(fraction) && !(whole.is_empty() && fraction.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e
            .strip_prefix(b"-")
            .or_else(|| e.strip_prefix(b"+"))
            .unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

/// An optional `-` and one or more digits.
fn is_big_number(text: &[u8]) -> bool {
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

#[cfg(test)]
mod tests;
