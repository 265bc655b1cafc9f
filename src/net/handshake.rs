//! The handshake that prepares a connection, per protocol, sent in one write;
//! each reply is checked in order. Used blocking before the clock starts, and
//! step by step by a connection that reconnects during a run.
//!
//! - `-P redis`: AUTH (when credentials are given), SELECT (for a database
//!   other than 0), PING — no HELLO, so servers before 6.0 work.
//! - `-P resp2` / `-P resp3`: `HELLO 2|3`, with the credentials inside it
//!   (`HELLO 3 AUTH user pass`, user `default` when none is named): one round
//!   trip, and the protocol is switched by the same command that logs in, so no
//!   reply can arrive in the wrong dialect. Then SELECT and PING.
//! - `-P memcache_binary` with `-a user:pass`: one SASL `PLAIN` authentication
//!   (opcode `0x21`), whose response is binary; status `0x20` is a wrong
//!   password. Without credentials nothing is sent.
//! - `-P memcache_text`: nothing. The text protocol has no authentication and
//!   memcached no databases, and memtier sends no preamble either; the first
//!   request is the first byte sent.

use std::io::{self, Read, Write};

use crate::error::ConnectError;
use crate::protocol::memcache_binary::{self, Status};
use crate::protocol::resp::{self, Dialect, Reply, ServerErrorKind};
use crate::protocol::wire::Protocol;
use crate::target::Target;

/// Which handshake step a reply answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Hello,
    Auth,
    Select,
    Ping,
    /// memcached binary: SASL `PLAIN`.
    SaslAuth,
    /// `--read-from replica|any`: `READONLY`, so a replica serves reads of
    /// its master's slots.
    ReadOnly,
}

/// One handshake reply, decoded and checked by [`Handshake::read_reply`].
#[derive(Debug)]
pub struct Answer {
    /// The bytes it occupied.
    pub used: usize,
    /// The kind of a RESP error reply, for the error counts.
    pub error_kind: Option<ServerErrorKind>,
    /// Whether the step succeeded.
    pub verdict: Result<(), ConnectError>,
}

/// The handshake of a target: its request bytes and the steps whose replies
/// must come back without an error, in order.
#[derive(Debug, Clone)]
pub struct Handshake {
    /// AUTH / SELECT / PING, encoded, for one write.
    pub request: Vec<u8>,
    steps: Vec<Step>,
    /// The dialect the replies come in (RESP3's after `HELLO 3`).
    pub dialect: Dialect,
}

impl Handshake {
    /// The handshake for this target.
    pub fn for_target(target: &Target) -> Handshake {
        let mut request = Vec::new();
        let mut steps = Vec::new();
        let dialect = target.protocol.dialect();
        let version: &[u8] = match target.protocol {
            Protocol::MemcacheBinary if target.auth.is_some() => {
                if let Some(auth) = &target.auth {
                    let user = auth.user.as_deref().unwrap_or_default();
                    memcache_binary::encode_sasl_plain(
                        &mut request,
                        user.as_bytes(),
                        auth.password.as_bytes(),
                    );
                    steps.push(Step::SaslAuth);
                }
                return Handshake {
                    request,
                    steps,
                    dialect,
                };
            }
            Protocol::MemcacheText | Protocol::MemcacheBinary => {
                return Handshake {
                    request,
                    steps,
                    dialect,
                };
            }
            Protocol::Redis => b"",
            Protocol::Resp2 => b"2",
            Protocol::Resp3 => b"3",
        };
        match &target.auth {
            Some(auth) if !version.is_empty() => {
                // HELLO's AUTH always names a user; `default` is the one a
                // bare password logs in as.
                let user = auth.user.as_deref().unwrap_or("default");
                resp::encode_command(
                    &mut request,
                    &[
                        b"HELLO",
                        version,
                        b"AUTH",
                        user.as_bytes(),
                        auth.password.as_bytes(),
                    ],
                );
                steps.push(Step::Hello);
            }
            _ if !version.is_empty() => {
                resp::encode_command(&mut request, &[b"HELLO", version]);
                steps.push(Step::Hello);
            }
            Some(auth) => {
                let mut args: Vec<&[u8]> = vec![b"AUTH"];
                if let Some(user) = &auth.user {
                    args.push(user.as_bytes());
                }
                args.push(auth.password.as_bytes());
                resp::encode_command(&mut request, &args);
                steps.push(Step::Auth);
            }
            None => {}
        }
        let db = target.db.to_string();
        if target.db != 0 {
            resp::encode_command(&mut request, &[b"SELECT", db.as_bytes()]);
            steps.push(Step::Select);
        }
        resp::encode_command(&mut request, &[b"PING"]);
        steps.push(Step::Ping);
        Handshake {
            request,
            steps,
            dialect,
        }
    }

    /// This handshake followed by `READONLY`, for a connection to a cluster
    /// replica that serves reads.
    #[must_use]
    pub fn with_readonly(&self) -> Handshake {
        let mut h = self.clone();
        resp::encode_command(&mut h.request, &[b"READONLY"]);
        h.steps.push(Step::ReadOnly);
        h
    }

    /// How many replies the handshake expects.
    pub fn replies(&self) -> usize {
        self.steps.len()
    }

    /// Decodes the reply to step `index` at the start of `buf` and checks it:
    /// `Ok(None)` while it is incomplete.
    ///
    /// # Errors
    ///
    /// A message when the bytes are no reply of the handshake's protocol.
    pub fn read_reply(&self, index: usize, buf: &[u8]) -> Result<Option<Answer>, String> {
        if self.steps.get(index) == Some(&Step::SaslAuth) {
            let Some((response, used)) = memcache_binary::decode(buf).map_err(|e| e.to_string())?
            else {
                return Ok(None);
            };
            let verdict = match response.status {
                _ if response.opaque != memcache_binary::SASL_OPAQUE => {
                    return Err("a binary response to no SASL request".into());
                }
                Status::NoError => Ok(()),
                Status::AuthError => Err(ConnectError::Auth(
                    "SASL PLAIN refused the user and password".into(),
                )),
                other => Err(ConnectError::Refused(format!(
                    "SASL authentication answered {other:?} (is memcached started with -S?)"
                ))),
            };
            return Ok(Some(Answer {
                used,
                error_kind: None,
                verdict,
            }));
        }
        let Some((reply, used)) = resp::decode_as(buf, self.dialect).map_err(|e| e.to_string())?
        else {
            return Ok(None);
        };
        let error_kind = match reply {
            Reply::Error(message) => Some(ServerErrorKind::classify(message)),
            _ => None,
        };
        Ok(Some(Answer {
            used,
            error_kind,
            verdict: self.check(index, &reply),
        }))
    }

    /// Checks reply number `index`: an error reply becomes the matching
    /// [`ConnectError`] (wrong password, bad database, a server refusing clients).
    pub fn check(&self, index: usize, reply: &Reply<'_>) -> Result<(), ConnectError> {
        let Reply::Error(message) = reply else {
            return Ok(());
        };
        let message = String::from_utf8_lossy(message).into_owned();
        Err(match self.steps.get(index) {
            Some(Step::Auth) => ConnectError::Auth(message),
            Some(Step::Hello) if message.starts_with("NOAUTH") => {
                ConnectError::AuthRequired(message)
            }
            Some(Step::Hello) if message.starts_with("WRONGPASS") => ConnectError::Auth(message),
            // Servers before 6.0 know no HELLO; `-P redis` speaks to them.
            Some(Step::Hello) => ConnectError::HelloRefused(message),
            Some(Step::Select) => ConnectError::Select(message),
            Some(Step::Ping) if message.starts_with("NOAUTH") => {
                ConnectError::AuthRequired(message)
            }
            _ => ConnectError::Refused(message),
        })
    }
}

/// Sends the handshake in one write and checks each reply in order (blocking).
/// Returns true when the server sent more than the handshake's replies: bytes
/// nobody asked for, which the connection will count as a protocol error.
pub(super) fn handshake<S: Read + Write>(
    stream: &mut S,
    target: &Target,
) -> Result<bool, ConnectError> {
    let plan = Handshake::for_target(target);
    let io_err = |source| ConnectError::Io {
        endpoint: String::new(),
        source,
    };
    stream.write_all(&plan.request).map_err(io_err)?;
    let mut buf = Vec::with_capacity(512);
    let mut start = 0;
    for index in 0..plan.replies() {
        loop {
            match plan.read_reply(index, &buf[start..]) {
                Ok(Some(answer)) => {
                    answer.verdict?;
                    start += answer.used;
                    break;
                }
                Ok(None) => read_more(stream, &mut buf).map_err(io_err)?,
                Err(e) => return Err(ConnectError::Protocol(e)),
            }
        }
    }
    Ok(start < buf.len())
}

fn read_more<S: Read>(stream: &mut S, buf: &mut Vec<u8>) -> io::Result<()> {
    let mut chunk = [0u8; 512];
    let n = stream.read(&mut chunk)?;
    if n == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the server closed the connection",
        ));
    }
    buf.extend_from_slice(&chunk[..n]);
    Ok(())
}

#[cfg(test)]
mod tests;
