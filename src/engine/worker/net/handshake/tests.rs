//! The handshake of each protocol against a scripted peer: what is sent,
//! and which error each refusal becomes.

use super::*;
use crate::config::target::Auth;
use crate::config::target::Endpoint;
use crate::protocol::wire::Protocol;
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

/// A binary SASL response with `status`, echoing the SASL opaque.
fn sasl_response(status: u16, body: &[u8]) -> Vec<u8> {
    let mut out = vec![0x81, 0x21, 0, 0, 0, 0];
    out.extend_from_slice(&status.to_be_bytes());
    out.extend_from_slice(&(body.len() as u32).to_be_bytes());
    out.extend_from_slice(&u32::MAX.to_be_bytes());
    out.extend_from_slice(&[0; 8]);
    out.extend_from_slice(body);
    out
}

#[test]
fn memcache_binary_logs_in_with_sasl_plain() {
    let t = target_speaking(Some("bench:pw"), 0, Protocol::MemcacheBinary);
    let (r, written) = run(&sasl_response(0, b"Authenticated"), &t);
    assert!(matches!(r, Ok(false)), "{r:?}");
    // Opcode 0x21, key "PLAIN" (5), body 5 + "\0bench\0pw" (9).
    assert_eq!(&written[..4], &[0x80, 0x21, 0, 5]);
    assert_eq!(&written[8..12], &14_u32.to_be_bytes());
    assert_eq!(&written[24..], b"PLAIN\0bench\0pw");
}

#[test]
fn memcache_binary_auth_error_is_an_auth_error() {
    let t = target_speaking(Some("bench:bad"), 0, Protocol::MemcacheBinary);
    let (r, _) = run(&sasl_response(0x20, b"Auth failure."), &t);
    assert!(
        matches!(r, Err(ConnectError::Auth(ref m)) if m.contains("SASL")),
        "{r:?}"
    );
    // A memcached without -S knows no SASL: refused, not a wrong password.
    let (r, _) = run(&sasl_response(0x81, b"Unknown command"), &t);
    assert!(matches!(r, Err(ConnectError::Refused(_))), "{r:?}");
}

#[test]
fn memcached_has_no_handshake() {
    for p in [Protocol::MemcacheText, Protocol::MemcacheBinary] {
        let plan = handshake_for(&target_speaking(None, 0, p));
        assert!(plan.request.is_empty());
        assert_eq!(plan.replies(), 0);
        let (r, written) = run(b"", &target_speaking(None, 0, p));
        assert!(matches!(r, Ok(false)));
        assert!(written.is_empty());
    }
}
