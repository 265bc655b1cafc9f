//! The control connection's `INFO all`, read as RESP2 (the control
//! connection never switches to RESP3; see
//! [`Protocol::control`](crate::protocol::wire::Protocol::control)).

use super::encode_command;
use crate::protocol::control::Counters;
use crate::protocol::value;
use crate::protocol::wire::WireError;

/// Appends `INFO all`.
pub(in crate::protocol) fn encode_counters_request(out: &mut Vec<u8>) {
    encode_command(out, &[b"INFO", b"all"]);
}

/// Reads `INFO all`'s reply: `Ok(None)` while it is incomplete, `Ok(Some(None))`
/// for an error reply.
pub(in crate::protocol) fn decode_counters(
    buf: &[u8],
) -> Result<Option<Option<Counters>>, WireError> {
    match value::parse(buf) {
        Ok(Some((reply, _))) => Ok(Some(reply.text().map(Counters::Info))),
        Ok(None) => Ok(None),
        Err(e) => Err(e.into()),
    }
}
