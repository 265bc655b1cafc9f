//! RESP request encoders for the fixed SET and GET commands and for the
//! handshake and control commands; any other command goes through
//! [`crate::protocol::template`]. Each appends to the caller's buffer and
//! allocates nothing else.

use crate::protocol::decimal;

/// How the SETs' expiry is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpiryCommand {
    /// `SET key value EX n`: counted in `cmdstat_set` with every other SET
    /// (SETEX is deprecated since Redis 2.6.12).
    SetWithEx,
    /// `SETEX key n value`, as memtier sends it (`--memtier-compat`).
    Setex,
}

/// Appends a RESP array-of-bulk-strings command, `*N\r\n$len\r\narg\r\n...`.
/// Meant for handshake commands such as AUTH, SELECT, PING and INFO.
pub fn encode_command(out: &mut Vec<u8>, args: &[&[u8]]) {
    push_length(out, b'*', args.len());
    for arg in args {
        out.push(b'$');
        push_value(out, arg);
    }
}

/// Appends `GET <prefix><key>` and returns the number of bytes appended.
/// The key is written as `prefix` followed by the decimal digits of `key`,
/// without allocating anything but growth of `out`.
pub fn encode_get(out: &mut Vec<u8>, prefix: &[u8], key: u64) -> usize {
    let before = out.len();
    out.reserve(prefix.len() + 64);
    out.extend_from_slice(b"*2\r\n$3\r\nGET\r\n$");
    push_key(out, prefix, key);
    out.len() - before
}

/// Appends `SET <prefix><key> <value>` and returns the number of bytes
/// appended. The key is formed as in [`encode_get`].
pub fn encode_set(out: &mut Vec<u8>, prefix: &[u8], key: u64, value: &[u8]) -> usize {
    let before = out.len();
    out.reserve(prefix.len() + value.len() + 96);
    out.extend_from_slice(b"*3\r\n$3\r\nSET\r\n$");
    push_key(out, prefix, key);
    out.push(b'$');
    push_value(out, value);
    out.len() - before
}

/// The rest of a key's bulk string after its `$`: the length, CRLF, the
/// prefix, the digits, CRLF. Only the prefix is a copy of run-time size.
#[inline]
fn push_key(out: &mut Vec<u8>, prefix: &[u8], key: u64) {
    let width = decimal::digits(key);
    decimal::push_crlf(out, (prefix.len() + width) as u64);
    out.extend_from_slice(prefix);
    decimal::push_crlf_width(out, key, width);
}

/// The rest of a value's bulk string after its `$`.
#[inline]
fn push_value(out: &mut Vec<u8>, value: &[u8]) {
    decimal::push_crlf(out, value.len() as u64);
    out.extend_from_slice(value);
    out.extend_from_slice(b"\r\n");
}

/// Appends `SET <prefix><key> <value> EX <seconds>` (or memtier's `SETEX
/// <prefix><key> <seconds> <value>`) and returns the bytes appended.
pub fn encode_set_expiring(
    out: &mut Vec<u8>,
    prefix: &[u8],
    key: u64,
    value: &[u8],
    seconds: u32,
    command: ExpiryCommand,
) -> usize {
    let before = out.len();
    let mut secs = itoa::Buffer::new();
    let secs = secs.format(seconds).as_bytes();
    out.reserve(prefix.len() + value.len() + 160);
    match command {
        ExpiryCommand::SetWithEx => {
            out.extend_from_slice(b"*5\r\n$3\r\nSET\r\n$");
            push_key(out, prefix, key);
            out.push(b'$');
            push_value(out, value);
            out.extend_from_slice(b"$2\r\nEX\r\n$");
            push_value(out, secs);
        }
        ExpiryCommand::Setex => {
            out.extend_from_slice(b"*4\r\n$5\r\nSETEX\r\n$");
            push_key(out, prefix, key);
            out.push(b'$');
            push_value(out, secs);
            out.push(b'$');
            push_value(out, value);
        }
    }
    out.len() - before
}

/// Appends `WAIT <replicas> <timeout_ms>` and returns the bytes appended.
pub fn encode_wait(out: &mut Vec<u8>, replicas: u32, timeout_ms: u32) -> usize {
    let before = out.len();
    let mut a = itoa::Buffer::new();
    let mut b = itoa::Buffer::new();
    encode_command(
        out,
        &[
            b"WAIT",
            a.format(replicas).as_bytes(),
            b.format(timeout_ms).as_bytes(),
        ],
    );
    out.len() - before
}

/// Appends a header line such as `*3\r\n` or `$5\r\n`.
fn push_length(out: &mut Vec<u8>, kind: u8, len: usize) {
    out.push(kind);
    decimal::push_crlf(out, len as u64);
}
