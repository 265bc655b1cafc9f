//! RESP's handshake, sent in one write; each reply is checked in order.
//!
//! - `-P redis`: AUTH (when credentials are given), SELECT (for a database
//!   other than 0), PING — no HELLO, so servers before 6.0 work.
//! - `-P resp2` / `-P resp3`: `HELLO 2|3`, with the credentials inside it
//!   (`HELLO 3 AUTH user pass`, user `default` when none is named): one round
//!   trip, and the protocol is switched by the same command that logs in, so no
//!   reply can arrive in the wrong dialect. Then SELECT and PING.

use super::{Dialect, Reply, ServerErrorKind, decode_as, encode_command};
use crate::protocol::handshake::{Answer, Handshake, Login, Refusal, Step};
use crate::protocol::wire::WireError;

/// Appends RESP's steps to `plan`: `HELLO version` when a version is named
/// (`-P resp2|resp3`), the credentials, the database, and `PING`.
pub(in crate::protocol) fn plan(
    plan: &mut Handshake,
    version: Option<&[u8]>,
    login: Option<Login<'_>>,
    db: u32,
) {
    let request = &mut plan.request;
    match (version, login) {
        (Some(version), Some(login)) => {
            // HELLO's AUTH always names a user; `default` is the one a
            // bare password logs in as.
            let user = login.user.unwrap_or("default");
            encode_command(
                request,
                &[
                    b"HELLO",
                    version,
                    b"AUTH",
                    user.as_bytes(),
                    login.password.as_bytes(),
                ],
            );
            plan.steps.push(Step::Hello);
        }
        (Some(version), None) => {
            encode_command(request, &[b"HELLO", version]);
            plan.steps.push(Step::Hello);
        }
        (None, Some(login)) => {
            let mut args: Vec<&[u8]> = vec![b"AUTH"];
            if let Some(user) = login.user {
                args.push(user.as_bytes());
            }
            args.push(login.password.as_bytes());
            encode_command(request, &args);
            plan.steps.push(Step::Auth);
        }
        (None, None) => {}
    }
    if db != 0 {
        let db = db.to_string();
        encode_command(request, &[b"SELECT", db.as_bytes()]);
        plan.steps.push(Step::Select);
    }
    encode_command(request, &[b"PING"]);
    plan.steps.push(Step::Ping);
}

/// Decodes the reply to `step` at the start of `buf` in `dialect` and
/// checks it: `Ok(None)` while it is incomplete.
pub(in crate::protocol) fn read(
    step: Option<Step>,
    dialect: Dialect,
    buf: &[u8],
) -> Result<Option<Answer>, WireError> {
    let Some((reply, used)) = decode_as(buf, dialect)? else {
        return Ok(None);
    };
    let error_kind = match reply {
        Reply::Error(message) => Some(ServerErrorKind::classify(message)),
        _ => None,
    };
    Ok(Some(Answer {
        used,
        error_kind,
        verdict: check(step, &reply),
    }))
}

/// An error reply to `step` becomes the matching [`Refusal`] (wrong
/// password, bad database, a server refusing clients).
fn check(step: Option<Step>, reply: &Reply<'_>) -> Result<(), Refusal> {
    let Reply::Error(message) = reply else {
        return Ok(());
    };
    let message = String::from_utf8_lossy(message).into_owned();
    Err(match step {
        Some(Step::Auth) => Refusal::Auth(message),
        Some(Step::Hello) if message.starts_with("NOAUTH") => Refusal::AuthRequired(message),
        Some(Step::Hello) if message.starts_with("WRONGPASS") => Refusal::Auth(message),
        // Servers before 6.0 know no HELLO; `-P redis` speaks to them.
        Some(Step::Hello) => Refusal::HelloRefused(message),
        Some(Step::Select) => Refusal::Select(message),
        Some(Step::Ping) if message.starts_with("NOAUTH") => Refusal::AuthRequired(message),
        _ => Refusal::Other(message),
    })
}
