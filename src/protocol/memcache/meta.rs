//! memcached's meta protocol (`-P memcache_meta`; the "Meta Commands" of
//! `protocol.txt` in memcached's source): request encoders for `ms` and `mg`,
//! a stateless decoder of the replies, and their reduction to the
//! protocol-neutral [`Outcome`].
//!
//! A SET is `ms <key> <datalen> [T<ttl>] O<n>` and its data; a GET is
//! `mg <key> v O<n>`. `v` asks for the value, so a hit is `VA <size> <flags>`
//! and the data block, a miss `EN`, a stored item `HD`. Every request carries
//! an opaque (`O`, the request's number since the connect, as the binary
//! protocol's), which memcached copies into its reply: a reply that echoes
//! another number, or none, answers some other request, and counting it would
//! be a lie, so it is a protocol error rather than a latency.
//!
//! The quiet flag (`q`) is not sent: it suppresses the `EN` and `HD` replies,
//! and those replies are what times each request.
//!
//! Like the text decoder, [`decode`] is handed whatever bytes have arrived
//! and answers `Ok(None)` while a reply is incomplete; values are skipped,
//! never copied.

use crate::protocol::error_kind::ServerErrorKind;
use crate::protocol::memcache::text::{Asked, MAX_LINE_LEN, MAX_VALUE_LEN};
use crate::protocol::wire::Outcome;

/// One decoded reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaReply<'a> {
    /// `VA <size> <flags>*` and its data block of `len` bytes.
    Value {
        /// The data's length.
        len: usize,
        /// The `O` flag's token, when the reply carries one.
        opaque: Option<&'a [u8]>,
    },
    /// A two-letter status line without data (`HD`, `EN`, …).
    Status {
        /// Which one.
        status: MetaStatus,
        /// The `O` flag's token, when the reply carries one.
        opaque: Option<&'a [u8]>,
    },
    /// `ERROR`, `CLIENT_ERROR …` or `SERVER_ERROR …`: the whole line. Error
    /// lines carry no flags, so no opaque either.
    Error(&'a [u8]),
}

/// The meta status codes that come without data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaStatus {
    /// `HD`: success without a value (an item stored, deleted, or found by
    /// an `mg` that asked for no value).
    Done,
    /// `EN`: an `mg` found nothing under the key.
    Miss,
    /// `NS`: an `ms` did not store (its mode's condition failed).
    NotStored,
    /// `EX`: a compare-and-swap's item changed since it was read.
    Exists,
    /// `NF`: the item to delete or change does not exist.
    NotFound,
    /// `MN`: the answer to `mn`, the end of a quiet pipeline.
    NoOp,
}

impl MetaStatus {
    fn of(code: &[u8]) -> Option<MetaStatus> {
        Some(match code {
            b"HD" => MetaStatus::Done,
            b"EN" => MetaStatus::Miss,
            b"NS" => MetaStatus::NotStored,
            b"EX" => MetaStatus::Exists,
            b"NF" => MetaStatus::NotFound,
            b"MN" => MetaStatus::NoOp,
            _ => return None,
        })
    }
}

/// Why the bytes cannot be meta replies to the requests in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MetaDecodeError {
    /// A line longer than [`MAX_LINE_LEN`], or not ended by `\r\n`.
    #[error("meta reply line too long or not ended by CRLF")]
    BadLine,
    /// A line that is none of memcached's meta replies.
    #[error("unexpected meta reply line")]
    Unexpected,
    /// A flag that is not a letter and its token, or an empty one.
    #[error("malformed flags in a meta reply")]
    BadFlags,
    /// A `VA` line with a bad size, or data not followed by CRLF.
    #[error("malformed VA block")]
    BadValue,
    /// A reply whose opaque is not the oldest request's, or that has none:
    /// it answers another request, or none of ours.
    #[error(
        "meta reply without the opaque O{expected} of the oldest request: the replies are out of step"
    )]
    OutOfStep {
        /// The opaque of the oldest request in flight.
        expected: u32,
    },
    /// A `VA` or `EN` answering an `ms`, or a status no `mg … v` gives
    /// answering a GET.
    #[error("meta reply of the wrong kind for the oldest request: the replies are out of step")]
    WrongKind,
}

/// Appends `mg <prefix><key> v O<opaque>\r\n`; returns the bytes appended.
pub fn encode_get(out: &mut Vec<u8>, prefix: &[u8], key: u64, opaque: u32) -> usize {
    let before = out.len();
    out.extend_from_slice(b"mg ");
    push_number(out, prefix, key);
    out.extend_from_slice(b" v O");
    push_number(out, b"", opaque);
    out.extend_from_slice(b"\r\n");
    out.len() - before
}

/// Appends `ms <prefix><key> <len> [T<expiry>] O<opaque>\r\n<value>\r\n`
/// (client flags 0, as the text protocol's `set`; no `T` when `expiry` is 0,
/// memcached's "never"); returns the bytes appended.
pub fn encode_set(
    out: &mut Vec<u8>,
    prefix: &[u8],
    key: u64,
    expiry: u32,
    value: &[u8],
    opaque: u32,
) -> usize {
    let before = out.len();
    out.extend_from_slice(b"ms ");
    push_number(out, prefix, key);
    out.push(b' ');
    push_number(out, b"", value.len() as u64);
    if expiry > 0 {
        out.extend_from_slice(b" T");
        push_number(out, b"", u64::from(expiry));
    }
    out.extend_from_slice(b" O");
    push_number(out, b"", u64::from(opaque));
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(value);
    out.extend_from_slice(b"\r\n");
    out.len() - before
}

fn push_number(out: &mut Vec<u8>, prefix: &[u8], n: impl itoa::Integer) {
    out.extend_from_slice(prefix);
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Decodes the first reply in `buf`: `Ok(None)` while incomplete,
/// `Ok(Some((reply, consumed)))`, or `Err` when the bytes are no meta reply.
///
/// # Errors
///
/// [`MetaDecodeError`] for anything memcached would not send.
pub fn decode(buf: &[u8]) -> Result<Option<(MetaReply<'_>, usize)>, MetaDecodeError> {
    let Some((reply, len)) = header(buf)? else {
        return Ok(None);
    };
    complete(buf, reply, len)
}

/// The reply whose header line starts `buf`, and the length of the whole
/// reply with its data (which may not all have come yet): `Ok(None)` while
/// the header line is incomplete.
fn header(buf: &[u8]) -> Result<Option<(MetaReply<'_>, usize)>, MetaDecodeError> {
    let Some((line, after)) = line_at(buf, 0)? else {
        return Ok(None);
    };
    if line == b"ERROR" || line.starts_with(b"CLIENT_ERROR") || line.starts_with(b"SERVER_ERROR") {
        return Ok(Some((MetaReply::Error(line), after)));
    }
    let (code, rest) = match line.get(2) {
        None => (line, &b""[..]),
        Some(b' ') => (&line[..2], &line[3..]),
        Some(_) => return Err(MetaDecodeError::Unexpected),
    };
    if code == b"VA" {
        return value_header(rest, after).map(Some);
    }
    let status = MetaStatus::of(code).ok_or(MetaDecodeError::Unexpected)?;
    let opaque = opaque_of(rest)?;
    Ok(Some((MetaReply::Status { status, opaque }, after)))
}

/// `VA <size> <flags>*` (`rest` is what follows `VA `), and the length of
/// the whole block: the line, the data and its CRLF.
fn value_header(rest: &[u8], data_start: usize) -> Result<(MetaReply<'_>, usize), MetaDecodeError> {
    let (size, flags) = match rest.iter().position(|&b| b == b' ') {
        Some(space) => (&rest[..space], &rest[space + 1..]),
        None => (rest, &b""[..]),
    };
    let len: usize = std::str::from_utf8(size)
        .ok()
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|s| s.parse().ok())
        .filter(|&n| n <= MAX_VALUE_LEN)
        .ok_or(MetaDecodeError::BadValue)?;
    let opaque = opaque_of(flags)?;
    Ok((MetaReply::Value { len, opaque }, data_start + len + 2))
}

/// `reply` of `len` bytes once they have all come: a `VA` block's data must
/// end in CRLF where its size says.
fn complete<'a>(
    buf: &[u8],
    reply: MetaReply<'a>,
    len: usize,
) -> Result<Option<(MetaReply<'a>, usize)>, MetaDecodeError> {
    match buf.get(..len) {
        None => Ok(None),
        Some(whole) if matches!(reply, MetaReply::Value { .. }) && !whole.ends_with(b"\r\n") => {
            Err(MetaDecodeError::BadValue)
        }
        Some(_) => Ok(Some((reply, len))),
    }
}

/// The `O` flag's token among `flags` (space-separated, each a letter and
/// its token), after checking that every flag is well formed.
fn opaque_of(flags: &[u8]) -> Result<Option<&[u8]>, MetaDecodeError> {
    let mut opaque = None;
    if flags.is_empty() {
        return Ok(None);
    }
    for flag in flags.split(|&b| b == b' ') {
        match flag.first() {
            Some(b'O') if opaque.is_none() => opaque = Some(&flag[1..]),
            Some(letter) if letter.is_ascii_alphabetic() => {}
            _ => return Err(MetaDecodeError::BadFlags),
        }
    }
    Ok(opaque)
}

/// The line starting at `start`, without its CRLF, and the offset after it.
fn line_at(buf: &[u8], start: usize) -> Result<Option<(&[u8], usize)>, MetaDecodeError> {
    let rest = buf.get(start..).unwrap_or_default();
    let window = rest.get(..MAX_LINE_LEN + 2).unwrap_or(rest);
    match window.iter().position(|&b| b == b'\n') {
        Some(0) => Err(MetaDecodeError::BadLine),
        Some(nl) if rest[nl - 1] == b'\r' => Ok(Some((&rest[..nl - 1], start + nl + 1))),
        Some(_) => Err(MetaDecodeError::BadLine),
        None if window.len() > MAX_LINE_LEN + 1 => Err(MetaDecodeError::BadLine),
        None => Ok(None),
    }
}

/// Decodes the first reply in `buf` as the reply to the oldest request in
/// flight, which was sent with `opaque` and asked what `asked` says, and
/// reduces it to its [`Outcome`]: `Ok(None)` while it is incomplete.
///
/// An error line is taken as it comes (memcached writes no flags on one);
/// any other reply must echo `opaque`, and be of a kind that answers the
/// request (`VA` or `EN` a GET, any other status a SET).
///
/// # Errors
///
/// [`MetaDecodeError`] when the bytes are no reply to that request.
#[inline]
pub fn decode_outcome(
    buf: &[u8],
    asked: Asked<'_>,
    opaque: u32,
) -> Result<Option<(Outcome, usize, u64)>, MetaDecodeError> {
    // Checked on the header line alone: a reply to another request is out
    // of step however much of its data has come.
    let Some((reply, len)) = header(buf)? else {
        return Ok(None);
    };
    let (outcome, echoed, gives_value) = match reply {
        MetaReply::Error(line) => return Ok(Some((Outcome::Error(error_kind(line)), len, 0))),
        MetaReply::Value { opaque, .. } => (Outcome::Value, opaque, true),
        MetaReply::Status {
            status: MetaStatus::Miss,
            opaque,
        } => (Outcome::Nil, opaque, true),
        MetaReply::Status { opaque, .. } => (Outcome::Other, opaque, false),
    };
    if !echoes(echoed, opaque) {
        return Err(MetaDecodeError::OutOfStep { expected: opaque });
    }
    match asked {
        Asked::Get { .. } if !gives_value => Err(MetaDecodeError::WrongKind),
        Asked::NoValue if gives_value => Err(MetaDecodeError::WrongKind),
        _ => Ok(complete(buf, reply, len)?.map(|(_, used)| (outcome, used, 0))),
    }
}

/// Whether `token` is `opaque`'s digits (no allocation).
fn echoes(token: Option<&[u8]>, opaque: u32) -> bool {
    token.is_some_and(|t| t == itoa::Buffer::new().format(opaque).as_bytes())
}

/// An error line's kind, in the same groups as Redis' errors:
/// `SERVER_ERROR out of memory …` is [`ServerErrorKind::Oom`].
fn error_kind(line: &[u8]) -> ServerErrorKind {
    if line.windows(13).any(|w| w == b"out of memory") {
        ServerErrorKind::Oom
    } else {
        ServerErrorKind::Err
    }
}
