//! The RESP3 decoder against a real redis-server after `HELLO 3`: maps,
//! sets, nulls, doubles and an out-of-band invalidation push, each decoded
//! to exactly the bytes the server sent.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::common::Redis;
use kvbench::protocol::resp::{Dialect, Reply, decode_as, encode_command};

/// A RESP3 connection; replies summarised as their debug form, so they
/// outlive the read buffer.
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    fn open(port: u16) -> Conn {
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut c = Conn {
            stream,
            buf: Vec::new(),
        };
        let hello = c.ask(&[b"HELLO", b"3"]);
        assert!(hello.starts_with("Map("), "HELLO 3 answered {hello}");
        c
    }

    fn send(&mut self, args: &[&[u8]]) {
        let mut out = Vec::new();
        encode_command(&mut out, args);
        self.stream.write_all(&out).unwrap();
    }

    /// The next reply; the bytes it used are removed from the buffer.
    fn next(&mut self) -> String {
        let mut chunk = [0; 65536];
        loop {
            if let Some((reply, used)) = decode_as(&self.buf, Dialect::Resp3).unwrap() {
                let summary = format!("{reply:?}");
                self.buf.drain(..used);
                return summary;
            }
            let n = self.stream.read(&mut chunk).unwrap();
            assert!(n > 0, "the server closed the connection");
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    fn ask(&mut self, args: &[&[u8]]) -> String {
        self.send(args);
        self.next()
    }
}

#[test]
fn resp3_replies_of_a_real_server_decode_exactly() {
    let redis = Redis::start();
    let mut c = Conn::open(redis.port);
    assert_eq!(c.ask(&[b"GET", b"nothing"]), "Nil");
    assert_eq!(
        c.ask(&[b"HSET", b"h", b"a", b"1", b"b", b"2"]),
        "Integer(2)"
    );
    assert_eq!(c.ask(&[b"HGETALL", b"h"]), "Map(2)");
    assert_eq!(c.ask(&[b"SADD", b"s", b"x", b"y", b"z"]), "Integer(3)");
    assert_eq!(c.ask(&[b"SMEMBERS", b"s"]), "Set(3)");
    assert_eq!(c.ask(&[b"ZADD", b"z", b"1.5", b"m"]), "Integer(1)");
    assert_eq!(c.ask(&[b"ZSCORE", b"z", b"m"]), "Double([49, 46, 53])");
    let pipeline = 100;
    for _ in 0..pipeline {
        c.send(&[b"HGETALL", b"h"]);
    }
    for _ in 0..pipeline {
        assert_eq!(c.next(), "Map(2)");
    }
    assert!(
        c.buf.is_empty(),
        "bytes left after every reply: {:?}",
        c.buf
    );
}

#[test]
fn an_invalidation_push_is_decoded_apart_from_replies() {
    let redis = Redis::start();
    let mut tracked = Conn::open(redis.port);
    assert_eq!(
        tracked.ask(&[b"CLIENT", b"TRACKING", b"on"]),
        "Simple([79, 75])"
    );
    assert_eq!(tracked.ask(&[b"SET", b"k", b"1"]), "Simple([79, 75])");
    assert_eq!(tracked.ask(&[b"GET", b"k"]), "Bulk([49])");
    let mut other = Conn::open(redis.port);
    other.ask(&[b"SET", b"k", b"2"]);
    // The invalidation arrives out of band, before the PING's own reply.
    tracked.send(&[b"PING"]);
    let first = tracked.next();
    let second = tracked.next();
    assert_eq!(first, "Push(2)", "then {second}");
    assert_eq!(second, format!("{:?}", Reply::Simple(b"PONG")));
}
