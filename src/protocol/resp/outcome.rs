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
    // The pair's commonest replies, a miss and a SET's OK, are fixed bytes:
    // matched whole, they skip the general decoder's type dispatch, length
    // line and checks (about a hundred instructions a reply at pipeline
    // depth). Both read alike in either dialect, and the general decoder
    // gives the same answer for them (a unit test holds the two equal).
    match buf {
        [b'$', b'-', b'1', b'\r', b'\n', ..] => return Ok(Some((Outcome::Nil, 5, 0))),
        [b'+', b'O', b'K', b'\r', b'\n', ..] => return Ok(Some((Outcome::Other, 5, 0))),
        _ => {}
    }
    Ok(decode_counting_attributes(buf, dialect)?
        .map(|(reply, used, attributes)| (outcome(&reply), used, attributes)))
}

/// A reply's outcome: RESP3's null is a miss and its blob error an error
/// (the decoder already returns both as RESP2's kinds).
pub(super) fn outcome(reply: &Reply<'_>) -> Outcome {
    match reply {
        Reply::Nil => Outcome::Nil,
        Reply::Bulk(_) | Reply::Verbatim(_) => Outcome::Value,
        Reply::Error(message) => Outcome::Error(ServerErrorKind::classify(message)),
        Reply::Push(_) => Outcome::Push,
        _ => Outcome::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::{Dialect, decode, decode_counting_attributes, outcome};

    #[test]
    fn the_fixed_replies_read_as_the_general_decoder_reads_them() {
        let general = |buf: &[u8], dialect| {
            decode_counting_attributes(buf, dialect)
                .map(|r| r.map(|(reply, used, attributes)| (outcome(&reply), used, attributes)))
        };
        let fixtures: [&[u8]; 6] = [
            b"$-1\r\n",
            b"+OK\r\n",
            b"$-10\r\n",
            b"+OKAY\r\n",
            b"$3\r\nabc\r\n",
            b"-ERR no\r\n",
        ];
        for dialect in [Dialect::Resp2, Dialect::Resp3] {
            for fixture in fixtures {
                for junk in [&b""[..], b"+OK\r\n", b"$-1\r\n", b"\r\n"] {
                    let buf = [fixture, junk].concat();
                    for end in 0..=buf.len() {
                        let prefix = &buf[..end];
                        assert_eq!(
                            decode(prefix, dialect),
                            general(prefix, dialect),
                            "{:?}",
                            String::from_utf8_lossy(prefix)
                        );
                    }
                }
            }
        }
    }
}
