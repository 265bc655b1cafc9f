//! memcached's text protocol (`protocol.txt` in memcached's source): request
//! encoders for `set` and `get`, and a stateless decoder of the replies.
//!
//! Like the RESP decoder, [`decode`] is handed whatever bytes have arrived
//! and answers `Ok(None)` while a reply is incomplete. A `get` is answered by
//! zero or more `VALUE <key> <flags> <bytes> [<cas>]` blocks and `END`; one
//! key per request (as memtier sends), so a hit is one block and `END`, a
//! miss `END` alone. Values are skipped, never copied.
//!
//! Told what the oldest request in flight asked ([`Asked`]), the decoder also
//! refuses a `VALUE` for another key (the replies are out of step with the
//! requests, and counting it a hit would be a lie), and a `VALUE` block that
//! ends in `END` before its announced length (memcached never sends one; the
//! connection would otherwise wait for bytes that never come).

use crate::protocol::decimal;
use crate::protocol::error_kind::ServerErrorKind;

/// The longest reply line accepted (memcached's keys are at most 250 bytes,
/// its error lines short); a longer unterminated line is a protocol error.
pub const MAX_LINE_LEN: usize = 2048;

/// The largest value accepted: memcached's item size limit can be raised to
/// 1 GiB (`-I`), no further.
pub const MAX_VALUE_LEN: usize = 1024 * 1024 * 1024;

/// One decoded reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McReply<'a> {
    /// `STORED`, `DELETED`, `TOUCHED`, `OK` and the like: success without data.
    Done(&'a [u8]),
    /// `NOT_STORED`, `EXISTS`, `NOT_FOUND`: the command ran but did nothing.
    NotDone(&'a [u8]),
    /// A `get` hit: one `VALUE` block of this many data bytes, then `END`.
    Hit(usize),
    /// A `get` miss: `END` alone.
    Miss,
    /// A number (the reply to `incr`/`decr`).
    Number(u64),
    /// `ERROR`, `CLIENT_ERROR …` or `SERVER_ERROR …`: the whole line.
    Error(&'a [u8]),
}

impl McReply<'_> {
    /// The error kind of an error line, in the same groups as Redis' errors:
    /// `SERVER_ERROR out of memory …` is [`ServerErrorKind::Oom`].
    pub fn error_kind(&self) -> Option<ServerErrorKind> {
        let McReply::Error(line) = self else {
            return None;
        };
        let oom = line.windows(13).any(|w| w == b"out of memory");
        Some(if oom {
            ServerErrorKind::Oom
        } else {
            ServerErrorKind::Err
        })
    }
}

/// What the oldest request in flight asked, for [`decode_asked`] to check
/// its reply against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked<'a> {
    /// Unknown: a `VALUE` for any key is taken.
    Anything,
    /// `get <prefix><key>`: a `VALUE` must be for that key.
    Get {
        /// `--key-prefix`.
        prefix: &'a [u8],
        /// The key's number.
        key: u64,
    },
    /// A command that no `VALUE` answers (`set`).
    NoValue,
}

/// How a short `VALUE` block ends: its data's CRLF-less bytes cut short by
/// memcached's terminator. kvbench's own values ('x' or alphanumeric) hold
/// neither CR nor LF, so a value of kvbench's never ends so before its length.
const SHORT_BLOCK_END: &[u8] = b"\r\nEND\r\n";

/// Why the bytes cannot be memcached text replies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum McDecodeError {
    /// A line longer than [`MAX_LINE_LEN`], or not ended by `\r\n`.
    #[error("reply line too long or not ended by CRLF")]
    BadLine,
    /// A line that is none of memcached's replies.
    #[error("unexpected reply line")]
    Unexpected,
    /// A `VALUE` line with a bad length, a value not followed by CRLF, or a
    /// second `VALUE` block where one key was asked for.
    #[error("malformed VALUE block")]
    BadValue,
    /// A `VALUE` for a key the oldest request did not ask for (or answering
    /// a command that returns none): the replies are out of step.
    #[error("VALUE for a key the request did not ask for: the replies are out of step")]
    UnaskedValue,
    /// The bytes after a `VALUE` line end in `END` before the announced
    /// length: the block is shorter than it says.
    #[error("VALUE block shorter than its announced length (END where its data was due)")]
    ShortValue,
}

/// Appends `get <prefix><key>\r\n`; returns the bytes appended.
pub fn encode_get(out: &mut Vec<u8>, prefix: &[u8], key: u64) -> usize {
    let before = out.len();
    out.extend_from_slice(b"get ");
    push_key(out, prefix, key);
    out.extend_from_slice(b"\r\n");
    out.len() - before
}

/// Appends `set <prefix><key> 0 <expiry> <len>\r\n<value>\r\n` (flags 0, as
/// memtier); returns the bytes appended.
pub fn encode_set(out: &mut Vec<u8>, prefix: &[u8], key: u64, expiry: u32, value: &[u8]) -> usize {
    let before = out.len();
    out.extend_from_slice(b"set ");
    push_key(out, prefix, key);
    out.extend_from_slice(b" 0 ");
    decimal::push(out, u64::from(expiry));
    out.push(b' ');
    decimal::push_crlf(out, value.len() as u64);
    out.extend_from_slice(value);
    out.extend_from_slice(b"\r\n");
    out.len() - before
}

fn push_key(out: &mut Vec<u8>, prefix: &[u8], key: u64) {
    out.extend_from_slice(prefix);
    decimal::push(out, key);
}

/// Decodes the first reply in `buf`: `Ok(None)` while incomplete,
/// `Ok(Some((reply, consumed)))`, or `Err` when the stream is out of sync.
///
/// # Errors
///
/// [`McDecodeError`] for anything memcached would not send.
pub fn decode(buf: &[u8]) -> Result<Option<(McReply<'_>, usize)>, McDecodeError> {
    decode_asked(buf, Asked::Anything)
}

/// [`decode`], checking a `VALUE` against what the request `asked`.
///
/// # Errors
///
/// [`McDecodeError`] for anything memcached would not send, and
/// [`McDecodeError::UnaskedValue`] for a `VALUE` that answers another request.
pub fn decode_asked<'a>(
    buf: &'a [u8],
    asked: Asked<'_>,
) -> Result<Option<(McReply<'a>, usize)>, McDecodeError> {
    let Some((line, after)) = line_at(buf, 0)? else {
        return Ok(None);
    };
    let reply = match line {
        b"END" => McReply::Miss,
        b"STORED" | b"DELETED" | b"TOUCHED" | b"OK" => McReply::Done(line),
        b"NOT_STORED" | b"EXISTS" | b"NOT_FOUND" => McReply::NotDone(line),
        b"ERROR" => McReply::Error(line),
        _ if line.starts_with(b"CLIENT_ERROR") || line.starts_with(b"SERVER_ERROR") => {
            McReply::Error(line)
        }
        _ if line.starts_with(b"VALUE ") => return value_block(buf, line, after, asked),
        _ if !line.is_empty() && line.iter().all(u8::is_ascii_digit) => {
            let n = std::str::from_utf8(line)
                .ok()
                .and_then(|s| s.parse().ok())
                .ok_or(McDecodeError::Unexpected)?;
            McReply::Number(n)
        }
        _ => return Err(McDecodeError::Unexpected),
    };
    Ok(Some((reply, after)))
}

/// `VALUE <key> <flags> <bytes> [<cas>]`, the data, and `END`.
fn value_block<'a>(
    buf: &'a [u8],
    line: &[u8],
    data_start: usize,
    asked: Asked<'_>,
) -> Result<Option<(McReply<'a>, usize)>, McDecodeError> {
    let mut fields = line.split(|&b| b == b' ').skip(1);
    let (key, _flags) = (fields.next().unwrap_or_default(), fields.next());
    // Checked on the header line alone: a block for another key is out of
    // step however much of its data has come.
    let expected = match asked {
        Asked::Anything => true,
        Asked::Get {
            prefix,
            key: number,
        } => is_key(key, prefix, number),
        Asked::NoValue => false,
    };
    if !expected {
        return Err(McDecodeError::UnaskedValue);
    }
    let len: usize = fields
        .next()
        .and_then(|f| std::str::from_utf8(f).ok())
        .and_then(|f| f.parse().ok())
        .filter(|&n| n <= MAX_VALUE_LEN)
        .ok_or(McDecodeError::BadValue)?;
    let data_end = data_start + len;
    let incomplete = || {
        // More bytes may be on their way, unless what came already ends the
        // block: memcached sends nothing after END until asked again.
        if buf.len() - data_start >= SHORT_BLOCK_END.len() && buf.ends_with(SHORT_BLOCK_END) {
            Err(McDecodeError::ShortValue)
        } else {
            Ok(None)
        }
    };
    match buf.get(data_end..data_end + 2) {
        None if buf.len() < data_end + 2 => return incomplete(),
        Some(b"\r\n") => {}
        _ => return Err(McDecodeError::BadValue),
    }
    match line_at(buf, data_end + 2)? {
        None => incomplete(),
        Some((b"END", end)) => Ok(Some((McReply::Hit(len), end))),
        Some(_) => Err(McDecodeError::BadValue),
    }
}

/// Whether `field` is `prefix` followed by `key`'s digits (no allocation).
fn is_key(field: &[u8], prefix: &[u8], key: u64) -> bool {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(key).as_bytes();
    field.len() == prefix.len() + digits.len()
        && field.starts_with(prefix)
        && field.ends_with(digits)
}

/// The line starting at `start`, without its CRLF, and the offset after it.
fn line_at(buf: &[u8], start: usize) -> Result<Option<(&[u8], usize)>, McDecodeError> {
    let rest = buf.get(start..).unwrap_or_default();
    let window = rest.get(..MAX_LINE_LEN + 2).unwrap_or(rest);
    match window.iter().position(|&b| b == b'\n') {
        Some(0) => Err(McDecodeError::BadLine),
        Some(nl) if rest[nl - 1] == b'\r' => Ok(Some((&rest[..nl - 1], start + nl + 1))),
        Some(_) => Err(McDecodeError::BadLine),
        None if window.len() > MAX_LINE_LEN + 1 => Err(McDecodeError::BadLine),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::{Asked, McDecodeError, McReply, decode, decode_asked, encode_get, encode_set};
    use crate::protocol::error_kind::ServerErrorKind;

    fn transcript(wire: &[u8], expected: McReply<'_>) {
        assert_eq!(decode(wire), Ok(Some((expected, wire.len()))), "{wire:?}");
        let padded = [wire, b"STORED\r\n"].concat();
        assert_eq!(
            decode(&padded),
            Ok(Some((expected, wire.len()))),
            "{padded:?}"
        );
        for cut in 0..wire.len() {
            assert_eq!(decode(&wire[..cut]), Ok(None), "prefix {cut} of {wire:?}");
        }
    }

    #[test]
    fn encoders_write_memtiers_commands() {
        let mut out = Vec::new();
        assert_eq!(encode_get(&mut out, b"memtier-", 42), out.len());
        assert_eq!(out, b"get memtier-42\r\n");
        out.clear();
        encode_set(&mut out, b"memtier-", 7, 0, b"abc");
        assert_eq!(out, b"set memtier-7 0 0 3\r\nabc\r\n");
    }

    #[test]
    fn replies_decode_exactly() {
        transcript(b"STORED\r\n", McReply::Done(b"STORED"));
        transcript(b"NOT_STORED\r\n", McReply::NotDone(b"NOT_STORED"));
        transcript(b"END\r\n", McReply::Miss);
        transcript(b"VALUE memtier-7 0 3\r\nabc\r\nEND\r\n", McReply::Hit(3));
        transcript(b"VALUE k 0 4 99\r\na\r\nb\r\nEND\r\n", McReply::Hit(4));
        transcript(b"VALUE k 0 0\r\n\r\nEND\r\n", McReply::Hit(0));
        transcript(b"12\r\n", McReply::Number(12));
        let oom = b"SERVER_ERROR out of memory storing object\r\n";
        transcript(oom, McReply::Error(&oom[..oom.len() - 2]));
        let Ok(Some((reply, _))) = decode(oom) else {
            panic!()
        };
        assert_eq!(reply.error_kind(), Some(ServerErrorKind::Oom));
        transcript(b"ERROR\r\n", McReply::Error(b"ERROR"));
    }

    #[test]
    fn out_of_sync_streams_are_errors() {
        assert_eq!(decode(b"+OK\r\n"), Err(McDecodeError::Unexpected));
        assert_eq!(decode(b"STORED\n"), Err(McDecodeError::BadLine));
        assert_eq!(decode(b"VALUE k 0 x\r\n"), Err(McDecodeError::BadValue));
        assert_eq!(
            decode(b"VALUE k 0 1\r\nab\r\nEND\r\n"),
            Err(McDecodeError::BadValue)
        );
        assert_eq!(
            decode(b"VALUE k 0 1\r\na\r\nVALUE k 0 1\r\na\r\nEND\r\n"),
            Err(McDecodeError::BadValue)
        );
        assert_eq!(decode(&[b'x'; 4096]), Err(McDecodeError::BadLine));
    }

    #[test]
    fn a_value_for_another_key_than_asked_is_out_of_step() {
        let asked = Asked::Get {
            prefix: b"memtier-",
            key: 7,
        };
        let hit = b"VALUE memtier-7 0 3\r\nabc\r\nEND\r\n";
        assert_eq!(
            decode_asked(hit, asked),
            Ok(Some((McReply::Hit(3), hit.len())))
        );
        assert_eq!(
            decode_asked(b"END\r\n", asked),
            Ok(Some((McReply::Miss, 5)))
        );
        for other in [
            &b"VALUE memtier-8 0 3\r\nabc\r\nEND\r\n"[..],
            b"VALUE memtier-77 0 3\r\nabc\r\nEND\r\n",
            b"VALUE other-7 0 3\r\nabc\r\nEND\r\n",
            b"VALUE 7 0 3\r\nabc\r\nEND\r\n",
            // Known from the header line, before any data.
            b"VALUE memtier-8 0 3\r\n",
        ] {
            assert_eq!(
                decode_asked(other, asked),
                Err(McDecodeError::UnaskedValue),
                "{other:?}"
            );
        }
        // A value answering a set is out of step too.
        assert_eq!(
            decode_asked(hit, Asked::NoValue),
            Err(McDecodeError::UnaskedValue)
        );
        assert_eq!(
            decode_asked(b"STORED\r\n", Asked::NoValue),
            Ok(Some((McReply::Done(b"STORED"), 8)))
        );
    }

    #[test]
    fn a_value_block_that_ends_before_its_length_is_short_at_once() {
        // 10 announced, 5 sent, then END: the CRLF at byte 10 is END's.
        for wire in [
            &b"VALUE k 0 10\r\n01234\r\nEND\r\n"[..],
            b"VALUE k 0 100\r\n01234\r\nEND\r\n",
            b"VALUE k 0 5\r\n\r\nEND\r\n",
        ] {
            assert_eq!(decode(wire), Err(McDecodeError::ShortValue), "{wire:?}");
        }
        // Cut anywhere before its end, a valid block is only incomplete.
        let full = b"VALUE k 0 10\r\n0123456789\r\nEND\r\n";
        for cut in 0..full.len() {
            assert_eq!(decode(&full[..cut]), Ok(None), "prefix {cut}");
        }
    }
}
