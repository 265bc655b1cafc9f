//! memcached's handshake.
//!
//! - `-P memcache_binary` with `-a user:pass`: one SASL `PLAIN` authentication
//!   (opcode `0x21`), whose response is binary; status `0x20` is a wrong
//!   password. Without credentials nothing is sent.
//! - `-P memcache_text`: nothing. The text protocol has no authentication and
//!   memcached no databases, and memtier sends no preamble either; the first
//!   request is the first byte sent.

use super::binary::{self, Status};
use crate::protocol::handshake::{Answer, Handshake, Login, Refusal, Step};
use crate::protocol::wire::WireError;

/// Appends the binary protocol's SASL `PLAIN` step when there are credentials.
pub(in crate::protocol) fn plan(plan: &mut Handshake, login: Option<Login<'_>>) {
    if let Some(login) = login {
        let user = login.user.unwrap_or_default();
        binary::encode_sasl_plain(
            &mut plan.request,
            user.as_bytes(),
            login.password.as_bytes(),
        );
        plan.steps.push(Step::SaslAuth);
    }
}

/// Decodes and checks the SASL response at the start of `buf`: `Ok(None)`
/// while it is incomplete.
pub(in crate::protocol) fn read(buf: &[u8]) -> Result<Option<Answer>, WireError> {
    let Some((response, used)) = binary::decode(buf)? else {
        return Ok(None);
    };
    let verdict = match response.status {
        _ if response.opaque != binary::SASL_OPAQUE => {
            // A response to no SASL request of ours.
            return Err(WireError::OutOfOrder {
                expected: binary::SASL_OPAQUE,
                got: response.opaque,
            });
        }
        Status::NoError => Ok(()),
        Status::AuthError => Err(Refusal::Auth(
            "SASL PLAIN refused the user and password".into(),
        )),
        other => Err(Refusal::Other(format!(
            "SASL authentication answered {other:?} (is memcached started with -S?)"
        ))),
    };
    Ok(Some(Answer {
        used,
        error_kind: None,
        verdict,
    }))
}
