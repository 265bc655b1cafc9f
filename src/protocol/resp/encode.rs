//! RESP request encoders for the fixed SET and GET commands and for the
//! handshake and control commands; any other command goes through
//! [`crate::protocol::template`]. Each appends to the caller's buffer and
//! allocates nothing else.

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
        push_bulk(out, &[arg]);
    }
}

/// Appends `GET <prefix><key>` and returns the number of bytes appended.
/// The key is written as `prefix` followed by the decimal digits of `key`,
/// without allocating anything but growth of `out`.
pub fn encode_get(out: &mut Vec<u8>, prefix: &[u8], key: u64) -> usize {
    let before = out.len();
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(key).as_bytes();
    out.reserve(prefix.len().saturating_add(digits.len()).saturating_add(32));
    out.extend_from_slice(b"*2\r\n$3\r\nGET\r\n");
    push_bulk(out, &[prefix, digits]);
    out.len() - before
}

/// Appends `SET <prefix><key> <value>` and returns the number of bytes
/// appended. The key is formed as in [`encode_get`].
pub fn encode_set(out: &mut Vec<u8>, prefix: &[u8], key: u64, value: &[u8]) -> usize {
    let before = out.len();
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(key).as_bytes();
    let payload = prefix.len().saturating_add(digits.len());
    out.reserve(payload.saturating_add(value.len()).saturating_add(48));
    out.extend_from_slice(b"*3\r\n$3\r\nSET\r\n");
    push_bulk(out, &[prefix, digits]);
    push_bulk(out, &[value]);
    out.len() - before
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
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(key).as_bytes();
    let mut secs = itoa::Buffer::new();
    let secs = secs.format(seconds).as_bytes();
    match command {
        ExpiryCommand::SetWithEx => {
            out.extend_from_slice(b"*5\r\n$3\r\nSET\r\n");
            push_bulk(out, &[prefix, digits]);
            push_bulk(out, &[value]);
            out.extend_from_slice(b"$2\r\nEX\r\n");
            push_bulk(out, &[secs]);
        }
        ExpiryCommand::Setex => {
            out.extend_from_slice(b"*4\r\n$5\r\nSETEX\r\n");
            push_bulk(out, &[prefix, digits]);
            push_bulk(out, &[secs]);
            push_bulk(out, &[value]);
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
    out.extend_from_slice(itoa::Buffer::new().format(len).as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// Appends one bulk string whose payload is `parts` laid end to end, so a
/// key's prefix and digits never need joining in a temporary buffer.
fn push_bulk(out: &mut Vec<u8>, parts: &[&[u8]]) {
    let len = parts.iter().map(|part| part.len()).sum();
    push_length(out, b'$', len);
    for part in parts {
        out.extend_from_slice(part);
    }
    out.extend_from_slice(b"\r\n");
}
