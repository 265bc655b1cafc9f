//! The control connection's `stats`, memcached's own counters. Text
//! `stats` on its own connection works whichever protocol the benchmark's
//! connections speak, since memcached picks per connection; only memcached
//! with SASL (`-S`) speaks binary alone, so there they are asked for in
//! binary, after the handshake's authentication.

use super::binary;
use crate::protocol::control::Counters;
use crate::protocol::wire::WireError;

/// Appends `stats`: the binary request when `binary`, else the text one.
pub(in crate::protocol) fn encode_counters_request(binary: bool, out: &mut Vec<u8>) {
    if binary {
        binary::encode_stat(out);
    } else {
        out.extend_from_slice(b"stats\r\n");
    }
}

/// Reads the reply to [`encode_counters_request`]: `Ok(None)` while it is incomplete,
/// `Ok(Some(None))` for a text `ERROR`.
pub(in crate::protocol) fn decode_counters(
    binary: bool,
    buf: &[u8],
) -> Result<Option<Option<Counters>>, WireError> {
    if binary {
        return match binary::stats_as_text(buf) {
            Ok(found) => Ok(found.map(|text| Some(Counters::Stats(text)))),
            Err(e) => Err(e.into()),
        };
    }
    if !stats_complete(buf) {
        return Ok(None);
    }
    let text = String::from_utf8_lossy(buf).into_owned();
    Ok(Some(
        (!text.ends_with("ERROR\r\n")).then_some(Counters::Stats(text)),
    ))
}

/// True once `buf` holds a whole `stats` reply (its `END` line) or an error line.
fn stats_complete(buf: &[u8]) -> bool {
    buf.starts_with(b"END\r\n")
        || buf.windows(7).any(|w| w == b"\r\nEND\r\n")
        || buf.ends_with(b"ERROR\r\n")
}

#[cfg(test)]
mod tests {
    use super::stats_complete;

    #[test]
    fn a_stats_reply_is_complete_at_its_end_line() {
        assert!(!stats_complete(b"STAT pid 1\r\nSTAT uptime 2\r\n"));
        assert!(stats_complete(b"STAT pid 1\r\nEND\r\n"));
        assert!(stats_complete(b"END\r\n"));
        assert!(!stats_complete(b"STAT pid 1\r\nEN"));
    }
}
