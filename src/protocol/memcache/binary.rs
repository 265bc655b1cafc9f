//! memcached's binary protocol: 24-byte headers (magic `0x80` for requests,
//! `0x81` for responses), `GET` (opcode `0x00`) and `SET` (`0x01`) encoders,
//! and a stateless response decoder.
//!
//! Every request carries an `opaque` that the response echoes; the
//! connection matches responses to requests in order, as with RESP, and the
//! opaque is checked so that a response out of order is caught rather than
//! timed against the wrong request.

use crate::protocol::error_kind::ServerErrorKind;

/// A request header's magic byte.
pub const REQUEST_MAGIC: u8 = 0x80;
/// A response header's magic byte.
pub const RESPONSE_MAGIC: u8 = 0x81;
/// `GET`.
pub const OP_GET: u8 = 0x00;
/// `SET`.
pub const OP_SET: u8 = 0x01;
/// `SASL Auth`: the mechanism as the key, its data as the value.
pub const OP_SASL_AUTH: u8 = 0x21;
/// The opaque of the SASL request, far above the numbers of the requests
/// that follow it (which start at 0), so the two can never be confused.
pub const SASL_OPAQUE: u32 = u32::MAX;
/// `Stat`: answered by one response per statistic and an empty one.
pub const OP_STAT: u8 = 0x10;
/// The header's length.
pub const HEADER_LEN: usize = 24;
/// The largest body accepted (memcached's item limit is at most 1 GiB).
pub const MAX_BODY_LEN: u32 = 1024 * 1024 * 1024 + 1024;

/// Response status codes (section 3.2 of the binary protocol's description).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// `0x0000`.
    NoError,
    /// `0x0001`: a GET miss.
    KeyNotFound,
    /// `0x0002`.
    KeyExists,
    /// `0x0003`.
    ValueTooLarge,
    /// `0x0004`.
    InvalidArguments,
    /// `0x0005`.
    ItemNotStored,
    /// `0x0020`: SASL authentication failed.
    AuthError,
    /// `0x0081`.
    UnknownCommand,
    /// `0x0082`.
    OutOfMemory,
    /// Any other code.
    Other(u16),
}

impl Status {
    fn from_code(code: u16) -> Status {
        match code {
            0x0000 => Status::NoError,
            0x0001 => Status::KeyNotFound,
            0x0002 => Status::KeyExists,
            0x0003 => Status::ValueTooLarge,
            0x0004 => Status::InvalidArguments,
            0x0005 => Status::ItemNotStored,
            0x0020 => Status::AuthError,
            0x0081 => Status::UnknownCommand,
            0x0082 => Status::OutOfMemory,
            other => Status::Other(other),
        }
    }

    /// The error group of a failed status (`None` for success and a miss).
    pub fn error_kind(self) -> Option<ServerErrorKind> {
        match self {
            Status::NoError | Status::KeyNotFound => None,
            Status::OutOfMemory => Some(ServerErrorKind::Oom),
            _ => Some(ServerErrorKind::Err),
        }
    }
}

/// One decoded response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Response {
    /// The opcode it answers.
    pub opcode: u8,
    /// Its status.
    pub status: Status,
    /// The request's opaque, echoed.
    pub opaque: u32,
    /// Bytes of value in the body (after extras and key).
    pub value_len: usize,
}

/// Why the bytes cannot be binary-protocol responses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BinDecodeError {
    /// The first byte is not `0x81`.
    #[error("response magic 0x{0:02x}, expected 0x81")]
    BadMagic(u8),
    /// The lengths in the header do not add up, or the body is too large.
    #[error("inconsistent or oversized response lengths")]
    BadLength,
}

/// Appends a GET request for `<prefix><key>`; returns the bytes appended.
pub fn encode_get(out: &mut Vec<u8>, prefix: &[u8], key: u64, opaque: u32) -> usize {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(key).as_bytes();
    let key_len = prefix.len() + digits.len();
    let before = out.len();
    push_header(out, OP_GET, key_len, 0, key_len, opaque);
    out.extend_from_slice(prefix);
    out.extend_from_slice(digits);
    out.len() - before
}

/// Appends a SET request (flags 0, `expiry` seconds); returns the bytes appended.
pub fn encode_set(
    out: &mut Vec<u8>,
    prefix: &[u8],
    key: u64,
    expiry: u32,
    value: &[u8],
    opaque: u32,
) -> usize {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(key).as_bytes();
    let key_len = prefix.len() + digits.len();
    let before = out.len();
    push_header(out, OP_SET, key_len, 8, key_len + 8 + value.len(), opaque);
    out.extend_from_slice(&0u32.to_be_bytes());
    out.extend_from_slice(&expiry.to_be_bytes());
    out.extend_from_slice(prefix);
    out.extend_from_slice(digits);
    out.extend_from_slice(value);
    out.len() - before
}

/// Appends a `SASL Auth` request with mechanism `PLAIN` and the data
/// `\0user\0password` (RFC 4616: no authorization identity, then the
/// authentication identity and its password).
pub fn encode_sasl_plain(out: &mut Vec<u8>, user: &[u8], password: &[u8]) {
    const MECHANISM: &[u8] = b"PLAIN";
    let data_len = 2 + user.len() + password.len();
    push_header(
        out,
        OP_SASL_AUTH,
        MECHANISM.len(),
        0,
        MECHANISM.len() + data_len,
        SASL_OPAQUE,
    );
    out.extend_from_slice(MECHANISM);
    out.push(0);
    out.extend_from_slice(user);
    out.push(0);
    out.extend_from_slice(password);
}

/// Appends a `Stat` request (all statistics).
pub fn encode_stat(out: &mut Vec<u8>) {
    push_header(out, OP_STAT, 0, 0, 0, 0);
}

/// Reads the responses to a `Stat` request at the start of `buf` and writes
/// them as the text protocol's `stats` reply (`STAT name value` lines, then
/// `END`), so that one parser serves both: `Ok(None)` until the empty
/// response that ends them has arrived.
///
/// # Errors
///
/// [`BinDecodeError`] when the bytes are not responses.
pub fn stats_as_text(buf: &[u8]) -> Result<Option<String>, BinDecodeError> {
    let mut text = String::new();
    let mut pos = 0;
    while let Some((response, used)) = decode(&buf[pos..])? {
        let body = &buf[pos + HEADER_LEN..pos + used];
        let key_len = usize::from(u16::from_be_bytes([buf[pos + 2], buf[pos + 3]]));
        let extras = usize::from(buf[pos + 4]);
        let (key, value) = body[extras..].split_at(key_len);
        pos += used;
        if response.opcode != OP_STAT || response.status != Status::NoError || key.is_empty() {
            text.push_str("END\r\n");
            return Ok(Some(text));
        }
        text.push_str("STAT ");
        text.push_str(&String::from_utf8_lossy(key));
        text.push(' ');
        text.push_str(&String::from_utf8_lossy(value));
        text.push_str("\r\n");
    }
    Ok(None)
}

/// magic, opcode, key length, extras length, data type, vbucket, body
/// length, opaque, cas — all big-endian.
fn push_header(
    out: &mut Vec<u8>,
    opcode: u8,
    key_len: usize,
    extras: u8,
    body: usize,
    opaque: u32,
) {
    out.push(REQUEST_MAGIC);
    out.push(opcode);
    out.extend_from_slice(&(key_len as u16).to_be_bytes());
    out.push(extras);
    out.push(0);
    out.extend_from_slice(&0u16.to_be_bytes());
    out.extend_from_slice(&(body as u32).to_be_bytes());
    out.extend_from_slice(&opaque.to_be_bytes());
    out.extend_from_slice(&0u64.to_be_bytes());
}

/// Decodes the first response in `buf`: `Ok(None)` while incomplete.
///
/// # Errors
///
/// [`BinDecodeError`] when the stream cannot be responses.
pub fn decode(buf: &[u8]) -> Result<Option<(Response, usize)>, BinDecodeError> {
    let Some(&magic) = buf.first() else {
        return Ok(None);
    };
    if magic != RESPONSE_MAGIC {
        return Err(BinDecodeError::BadMagic(magic));
    }
    let Some(header) = buf.get(..HEADER_LEN) else {
        return Ok(None);
    };
    let be16 = |i: usize| u16::from_be_bytes([header[i], header[i + 1]]);
    let be32 =
        |i: usize| u32::from_be_bytes([header[i], header[i + 1], header[i + 2], header[i + 3]]);
    let key_len = usize::from(be16(2));
    let extras = usize::from(header[4]);
    let body = be32(8);
    if body > MAX_BODY_LEN || (body as usize) < key_len + extras {
        return Err(BinDecodeError::BadLength);
    }
    let total = HEADER_LEN + body as usize;
    if buf.len() < total {
        return Ok(None);
    }
    Ok(Some((
        Response {
            opcode: header[1],
            status: Status::from_code(be16(6)),
            opaque: be32(12),
            value_len: body as usize - key_len - extras,
        },
        total,
    )))
}

#[cfg(test)]
mod tests {
    use super::{BinDecodeError, OP_GET, OP_SET, Response, Status, decode, encode_get, encode_set};
    use super::{encode_stat, stats_as_text};

    /// A response header and body as memcached writes one.
    fn response(opcode: u8, status: u16, opaque: u32, extras: &[u8], value: &[u8]) -> Vec<u8> {
        let mut out = vec![0x81, opcode, 0, 0, extras.len() as u8, 0];
        out.extend_from_slice(&status.to_be_bytes());
        out.extend_from_slice(&((extras.len() + value.len()) as u32).to_be_bytes());
        out.extend_from_slice(&opaque.to_be_bytes());
        out.extend_from_slice(&[0; 8]);
        out.extend_from_slice(extras);
        out.extend_from_slice(value);
        out
    }

    #[test]
    fn requests_have_the_documented_layout() {
        let mut out = Vec::new();
        let n = encode_get(&mut out, b"memtier-", 42, 7);
        assert_eq!(n, 24 + 10);
        assert_eq!(&out[..8], &[0x80, OP_GET, 0, 10, 0, 0, 0, 0]);
        assert_eq!(&out[8..12], &10u32.to_be_bytes());
        assert_eq!(&out[12..16], &7u32.to_be_bytes());
        assert_eq!(&out[24..], b"memtier-42");
        out.clear();
        encode_set(&mut out, b"k", 1, 60, b"abc", 9);
        assert_eq!(out[1], OP_SET);
        assert_eq!(out[4], 8, "flags and expiry");
        assert_eq!(&out[8..12], &(2u32 + 8 + 3).to_be_bytes());
        assert_eq!(&out[24..32], &[0, 0, 0, 0, 0, 0, 0, 60]);
        assert_eq!(&out[32..], b"k1abc");
    }

    #[test]
    fn responses_decode_at_their_exact_length() {
        let hit = response(OP_GET, 0, 5, &[0, 0, 0, 0], b"value");
        let expected = Response {
            opcode: OP_GET,
            status: Status::NoError,
            opaque: 5,
            value_len: 5,
        };
        assert_eq!(decode(&hit), Ok(Some((expected, hit.len()))));
        let padded = [&hit[..], &[0x81, 0]].concat();
        assert_eq!(decode(&padded), Ok(Some((expected, hit.len()))));
        for cut in 0..hit.len() {
            assert_eq!(decode(&hit[..cut]), Ok(None), "prefix {cut}");
        }
        let miss = response(OP_GET, 1, 6, &[], b"Not found");
        let (r, _) = decode(&miss).unwrap().unwrap();
        assert_eq!(r.status, Status::KeyNotFound);
        assert_eq!(r.status.error_kind(), None);
        let oom = response(OP_SET, 0x82, 7, &[], b"Out of memory");
        let (r, _) = decode(&oom).unwrap().unwrap();
        assert_eq!(
            r.status.error_kind(),
            Some(crate::protocol::error_kind::ServerErrorKind::Oom)
        );
    }

    #[test]
    fn bad_magic_and_lengths_are_errors() {
        assert_eq!(decode(b"+OK\r\n"), Err(BinDecodeError::BadMagic(b'+')));
        let mut short_body = response(OP_GET, 0, 1, &[0; 4], b"");
        short_body[11] = 2; // body 2 < extras 4
        assert_eq!(decode(&short_body), Err(BinDecodeError::BadLength));
    }

    #[test]
    fn binary_stats_read_as_the_text_reply_once_the_empty_one_arrives() {
        let mut request = Vec::new();
        encode_stat(&mut request);
        assert_eq!((request.len(), request[1]), (24, 0x10));
        let stat = |key: &[u8], value: &[u8]| {
            let mut out = vec![0x81, 0x10];
            out.extend_from_slice(&(key.len() as u16).to_be_bytes());
            out.extend_from_slice(&[0, 0, 0, 0]);
            out.extend_from_slice(&((key.len() + value.len()) as u32).to_be_bytes());
            out.extend_from_slice(&[0; 12]);
            out.extend_from_slice(key);
            out.extend_from_slice(value);
            out
        };
        let wire = [stat(b"pid", b"42"), stat(b"cmd_get", b"7"), stat(b"", b"")].concat();
        for cut in 0..wire.len() {
            assert_eq!(stats_as_text(&wire[..cut]), Ok(None), "{cut}");
        }
        let text = stats_as_text(&wire).unwrap().unwrap();
        assert_eq!(text, "STAT pid 42\r\nSTAT cmd_get 7\r\nEND\r\n");
    }
}
