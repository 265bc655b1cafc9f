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
//! - memcached: nothing. memcached has neither AUTH nor databases, and memtier
//!   sends no preamble either; the first request is the first byte sent.

use std::io::{self, Read, Write};

use crate::net::ConnectError;
use crate::protocol::resp::{self, Dialect, Reply};
use crate::protocol::wire::Protocol;
use crate::target::Target;

/// Which handshake step a reply answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Hello,
    Auth,
    Select,
    Ping,
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

    /// How many replies the handshake expects.
    pub fn replies(&self) -> usize {
        self.steps.len()
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
            match resp::decode_as(&buf[start..], plan.dialect) {
                Ok(Some((reply, used))) => {
                    plan.check(index, &reply)?;
                    start += used;
                    break;
                }
                Ok(None) => read_more(stream, &mut buf).map_err(io_err)?,
                Err(e) => return Err(ConnectError::Protocol(e.to_string())),
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
mod tests {
    use super::*;
    use crate::target::Auth;
    use crate::target::Endpoint;
    use std::io::Cursor;
    use std::time::Duration;

    /// A scripted peer: reads go to `replies`, writes are kept.
    struct Scripted {
        replies: Cursor<Vec<u8>>,
        written: Vec<u8>,
    }

    impl Read for Scripted {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.replies.read(buf)
        }
    }

    impl Write for Scripted {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.written.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn target(auth: Option<&str>, db: u32) -> Target {
        target_speaking(auth, db, Protocol::Redis)
    }

    fn target_speaking(auth: Option<&str>, db: u32, protocol: Protocol) -> Target {
        Target {
            endpoint: Endpoint::Unix("/nonexistent".into()),
            auth: auth.and_then(Auth::parse),
            db,
            connect_timeout: Duration::from_secs(1),
            tls: None,
            protocol,
        }
    }

    fn run(replies: &[u8], t: &Target) -> (Result<bool, ConnectError>, Vec<u8>) {
        let mut s = Scripted {
            replies: Cursor::new(replies.to_vec()),
            written: Vec::new(),
        };
        let r = handshake(&mut s, t);
        (r, s.written)
    }

    #[test]
    fn handshake_sends_auth_select_ping_in_order() {
        let (r, written) = run(b"+OK\r\n+OK\r\n+PONG\r\n", &target(Some("u:pw"), 3));
        assert!(r.is_ok());
        let text = String::from_utf8(written).unwrap();
        let auth = text.find("AUTH").unwrap();
        let select = text.find("SELECT").unwrap();
        let ping = text.find("PING").unwrap();
        assert!(auth < select && select < ping);
    }

    #[test]
    fn bytes_after_the_handshake_replies_are_reported() {
        let (clean, _) = run(b"+PONG\r\n", &target(None, 0));
        assert!(matches!(clean, Ok(false)));
        let (extra, _) = run(b"+PONG\r\n+surprise\r\n", &target(None, 0));
        assert!(matches!(extra, Ok(true)));
    }

    #[test]
    fn wrong_password_is_an_auth_error() {
        let (r, _) = run(
            b"-WRONGPASS invalid username-password pair\r\n+PONG\r\n",
            &target(Some("pw"), 0),
        );
        assert!(matches!(r, Err(ConnectError::Auth(m)) if m.starts_with("WRONGPASS")));
    }

    #[test]
    fn missing_password_is_reported_as_required() {
        let (r, _) = run(b"-NOAUTH Authentication required.\r\n", &target(None, 0));
        assert!(matches!(r, Err(ConnectError::AuthRequired(_))));
    }

    #[test]
    fn bad_select_is_a_select_error() {
        let (r, _) = run(
            b"-ERR DB index is out of range\r\n+PONG\r\n",
            &target(None, 99),
        );
        assert!(matches!(r, Err(ConnectError::Select(_))));
    }

    #[test]
    fn a_peer_that_hangs_up_is_an_io_error() {
        let (r, _) = run(b"", &target(None, 0));
        assert!(matches!(r, Err(ConnectError::Io { .. })));
    }

    #[test]
    fn resp3_folds_auth_into_hello_and_reads_its_map_reply() {
        let hello = b"%2\r\n$6\r\nserver\r\n$5\r\nredis\r\n$5\r\nproto\r\n:3\r\n";
        let replies = [&hello[..], b"+OK\r\n+PONG\r\n"].concat();
        let t = target_speaking(Some("pw"), 2, Protocol::Resp3);
        let (r, written) = run(&replies, &t);
        assert!(matches!(r, Ok(false)), "{r:?}");
        let text = String::from_utf8(written).unwrap();
        assert!(
            text.starts_with(
                "*5\r\n$5\r\nHELLO\r\n$1\r\n3\r\n$4\r\nAUTH\r\n$7\r\ndefault\r\n$2\r\npw\r\n"
            ),
            "{text:?}"
        );
        assert!(
            !text.contains("*2\r\n$4\r\nAUTH"),
            "no separate AUTH: {text:?}"
        );
        assert!(text.find("SELECT").unwrap() < text.find("PING").unwrap());
    }

    #[test]
    fn resp3_hello_refused_by_an_old_server_names_the_fix() {
        let t = target_speaking(None, 0, Protocol::Resp3);
        let (r, _) = run(b"-ERR unknown command 'HELLO'\r\n+PONG\r\n", &t);
        assert!(matches!(r, Err(ConnectError::HelloRefused(m)) if m.contains("unknown command")));
        let (r, _) = run(b"-WRONGPASS invalid\r\n+PONG\r\n", &t);
        assert!(matches!(r, Err(ConnectError::Auth(_))));
    }

    #[test]
    fn memcached_has_no_handshake() {
        for p in [Protocol::MemcacheText, Protocol::MemcacheBinary] {
            let plan = Handshake::for_target(&target_speaking(None, 0, p));
            assert!(plan.request.is_empty());
            assert_eq!(plan.replies(), 0);
            let (r, written) = run(b"", &target_speaking(None, 0, p));
            assert!(matches!(r, Ok(false)));
            assert!(written.is_empty());
        }
    }
}
