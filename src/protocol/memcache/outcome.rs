//! A memcached reply as the counters read it: text replies and binary
//! responses reduced to the protocol-neutral [`Outcome`], for
//! [`crate::protocol::wire::decode_counted`].

use super::binary::{self, Status};
use super::text::{self, Asked, McDecodeError, McReply};
use crate::protocol::wire::{Outcome, WireError};

/// Decodes the first text reply in `buf`, checked against what the oldest
/// request `asked`: `Ok(None)` while it is incomplete.
///
/// # Errors
///
/// [`McDecodeError`] when the bytes are no reply to that request.
#[inline]
pub fn decode_text(
    buf: &[u8],
    asked: Asked<'_>,
) -> Result<Option<(Outcome, usize, u64)>, McDecodeError> {
    Ok(text::decode_asked(buf, asked)?.map(|(reply, used)| (text_outcome(&reply), used, 0)))
}

/// Decodes the first binary response in `buf`, which must echo `opaque`,
/// the oldest request's: `Ok(None)` while it is incomplete.
///
/// # Errors
///
/// [`WireError`] when the bytes are no binary response, or the response
/// answers another request.
#[inline]
pub fn decode_binary(buf: &[u8], opaque: u32) -> Result<Option<(Outcome, usize, u64)>, WireError> {
    match binary::decode(buf)? {
        None => Ok(None),
        Some((r, _)) if r.opaque != opaque => Err(WireError::OutOfOrder {
            expected: opaque,
            got: r.opaque,
        }),
        Some((r, used)) => Ok(Some((binary_outcome(r.opcode, r.status), used, 0))),
    }
}

fn text_outcome(reply: &McReply<'_>) -> Outcome {
    match reply {
        McReply::Hit(_) => Outcome::Value,
        McReply::Miss => Outcome::Nil,
        McReply::Error(_) => reply.error_kind().map_or(Outcome::Other, Outcome::Error),
        McReply::Done(_) | McReply::NotDone(_) | McReply::Number(_) => Outcome::Other,
    }
}

fn binary_outcome(opcode: u8, status: Status) -> Outcome {
    match (opcode, status) {
        (binary::OP_GET, Status::NoError) => Outcome::Value,
        (_, Status::KeyNotFound) => Outcome::Nil,
        (_, status) => status.error_kind().map_or(Outcome::Other, Outcome::Error),
    }
}
