//! The handshake that prepares a connection: the bytes each protocol sends
//! before its first request, in one write, and the check of each reply in
//! order. Pure: [`crate::engine::worker::net`] drives it blocking before the clock starts,
//! and [`crate::engine::worker::conn`] step by step when a connection reconnects during a run.
//!
//! What each protocol sends is its family's: [`super::resp::handshake`]
//! (`HELLO`/`AUTH`/`SELECT`/`PING`), [`super::memcache::handshake`] (nothing,
//! or SASL `PLAIN`).

use super::error_kind::ServerErrorKind;
use super::memcache;
use super::resp::{self, Dialect};
use super::wire::Protocol;
use crate::protocol::wire::WireError;

/// The credentials a connection logs in with (`-a`), borrowed from the target.
#[derive(Debug, Clone, Copy)]
pub struct Login<'a> {
    /// The user, when one was named (`-a user:password`).
    pub user: Option<&'a str>,
    /// The password.
    pub password: &'a str,
}

/// Which handshake step a reply answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// RESP: `HELLO 2|3`, credentials inside it.
    Hello,
    /// RESP: `AUTH`.
    Auth,
    /// RESP: `SELECT db`.
    Select,
    /// RESP: `PING`.
    Ping,
    /// memcached binary: SASL `PLAIN`.
    SaslAuth,
    /// `--read-from replica|any`: `READONLY`, so a replica serves reads of
    /// its master's slots.
    ReadOnly,
}

/// Why the server refused a handshake step; [`crate::error::ConnectError`]
/// gives each its message and advice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The credentials are wrong.
    Auth(String),
    /// The server wants credentials and none were given.
    AuthRequired(String),
    /// `SELECT` failed.
    Select(String),
    /// The server knows no `HELLO` (a server before 6.0, or a proxy).
    HelloRefused(String),
    /// Any other refusal (max clients reached, SASL unknown).
    Other(String),
}

/// One handshake reply, decoded and checked by [`Handshake::read_reply`].
#[derive(Debug)]
pub struct Answer {
    /// The bytes it occupied.
    pub used: usize,
    /// The kind of a RESP error reply, for the error counts.
    pub error_kind: Option<ServerErrorKind>,
    /// Whether the step succeeded.
    pub verdict: Result<(), Refusal>,
}

/// The handshake of a target: its request bytes and the steps whose replies
/// must come back without an error, in order.
#[derive(Debug, Clone)]
pub struct Handshake {
    /// Every step's request, encoded, for one write.
    pub request: Vec<u8>,
    /// The steps, in the order their replies come.
    pub(super) steps: Vec<Step>,
    /// The protocol the replies come in (RESP3's after `HELLO 3`).
    pub(super) protocol: Protocol,
    /// The password sent, masked in every refusal's text: a server that
    /// knows no `AUTH` (renamed away, or none configured) quotes its
    /// arguments back in the error.
    secret: Option<Secret>,
}

/// A password kept to be masked, never shown by `Debug`.
#[derive(Clone)]
struct Secret(Box<str>);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(REDACTED)
    }
}

impl Handshake {
    /// The handshake of `protocol` for a connection that logs in with
    /// `login` and works in database `db`.
    #[must_use]
    pub fn new(protocol: Protocol, login: Option<Login<'_>>, db: u32) -> Handshake {
        let mut plan = Handshake {
            request: Vec::new(),
            steps: Vec::new(),
            protocol,
            secret: login.map(|l| Secret(l.password.into())),
        };
        match protocol {
            Protocol::Redis => resp::handshake::plan(&mut plan, None, login, db),
            Protocol::Resp2 => resp::handshake::plan(&mut plan, Some(b"2"), login, db),
            Protocol::Resp3 => resp::handshake::plan(&mut plan, Some(b"3"), login, db),
            Protocol::MemcacheText | Protocol::MemcacheMeta => {}
            Protocol::MemcacheBinary => memcache::handshake::plan(&mut plan, login),
        }
        plan
    }

    /// This handshake followed by `READONLY`, for a connection to a cluster
    /// replica that serves reads (cluster runs are RESP).
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
    /// Why the bytes are no reply of the handshake's protocol.
    pub fn read_reply(&self, index: usize, buf: &[u8]) -> Result<Option<Answer>, WireError> {
        let step = self.steps.get(index).copied();
        let mut answer = match self.protocol {
            Protocol::Redis | Protocol::Resp2 => resp::handshake::read(step, Dialect::Resp2, buf)?,
            Protocol::Resp3 => resp::handshake::read(step, Dialect::Resp3, buf)?,
            Protocol::MemcacheText | Protocol::MemcacheBinary | Protocol::MemcacheMeta => {
                memcache::handshake::read(buf)?
            }
        };
        if let Some(Answer {
            verdict: Err(refusal),
            ..
        }) = &mut answer
        {
            redact(refusal.text_mut(), self.secret.as_ref().map(|s| &*s.0));
        }
        Ok(answer)
    }
}

impl Refusal {
    fn text_mut(&mut self) -> &mut String {
        match self {
            Refusal::Auth(t)
            | Refusal::AuthRequired(t)
            | Refusal::Select(t)
            | Refusal::HelloRefused(t)
            | Refusal::Other(t) => t,
        }
    }
}

/// What replaces a credential in a server's text.
pub const REDACTED: &str = "<redacted>";

/// Masks what a server's error may quote of the credentials: every
/// occurrence of `secret`, and whatever follows Redis's "with args beginning
/// with:" (it quotes the arguments cut at 128 bytes, so a long password
/// may appear only in part).
pub fn redact(text: &mut String, secret: Option<&str>) {
    const ARGS: &str = "with args beginning with:";
    if let Some(at) = text.find(ARGS) {
        text.truncate(at + ARGS.len());
        text.push(' ');
        text.push_str(REDACTED);
    }
    if let Some(secret) = secret.filter(|s| !s.is_empty()) {
        if text.contains(secret) {
            *text = text.replace(secret, REDACTED);
        }
    }
}

#[cfg(test)]
mod redact_tests {
    use super::*;

    #[test]
    fn echoed_auth_arguments_are_masked() {
        let mut t =
            "ERR unknown command 'AUTH', with args beginning with: 'u' 'CANARY' ".to_string();
        redact(&mut t, Some("CANARY"));
        assert_eq!(
            t,
            "ERR unknown command 'AUTH', with args beginning with: <redacted>"
        );
        let mut t = "WRONGPASS CANARY is wrong".to_string();
        redact(&mut t, Some("CANARY"));
        assert_eq!(t, "WRONGPASS <redacted> is wrong");
        let mut t = "ERR max clients".to_string();
        redact(&mut t, None);
        assert_eq!(t, "ERR max clients");
    }

    #[test]
    fn a_refusal_from_a_server_without_auth_hides_the_password() {
        let login = Login {
            user: None,
            password: "CANARY",
        };
        let plan = Handshake::new(Protocol::Resp2, Some(login), 0);
        let reply = b"-ERR unknown command 'HELLO', with args beginning with: '2' 'AUTH' 'default' 'CANARY' \r\n";
        let answer = plan.read_reply(0, reply).unwrap().unwrap();
        let Err(refusal) = answer.verdict else {
            panic!("an error reply is a refusal")
        };
        assert!(!format!("{refusal:?}").contains("CANARY"), "{refusal:?}");
    }
}
