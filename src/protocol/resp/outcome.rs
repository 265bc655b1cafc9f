//! A RESP reply as the counters read it: the decoder's [`Reply`] reduced to
//! the protocol-neutral [`Outcome`], for [`crate::protocol::wire::decode_counted`].

use super::{DecodeError, Dialect, Reply, decode_counting_attributes};
use crate::protocol::error_kind::ServerErrorKind;
use crate::protocol::wire::Outcome;

/// Decodes the first reply in `buf` in `dialect`: `Ok(None)` while it is
/// incomplete, otherwise its outcome, the bytes it occupies and how many
/// RESP3 attribute frames it carried.
///
/// # Errors
///
/// [`DecodeError`] when the bytes are not RESP.
#[inline]
pub fn decode(buf: &[u8], dialect: Dialect) -> Result<Option<(Outcome, usize, u64)>, DecodeError> {
    Ok(decode_counting_attributes(buf, dialect)?
        .map(|(reply, used, attributes)| (outcome(&reply), used, attributes)))
}

/// A reply's outcome: RESP3's null is a miss and its blob error an error
/// (the decoder already returns both as RESP2's kinds).
fn outcome(reply: &Reply<'_>) -> Outcome {
    match reply {
        Reply::Nil => Outcome::Nil,
        Reply::Bulk(_) | Reply::Verbatim(_) => Outcome::Value,
        Reply::Error(message) => Outcome::Error(ServerErrorKind::classify(message)),
        Reply::Push(_) => Outcome::Push,
        _ => Outcome::Other,
    }
}
