//! The memcached codecs against a real memcached: requests made by kvbench's
//! encoders are accepted, its answers decode to exactly the bytes received,
//! and memcached's own `stats` (cmd_set, cmd_get, get_hits, get_misses)
//! count what the decoders saw. This proves the wire forms before the load
//! generator speaks them.

use std::io::{Read, Write};
use std::net::TcpStream;

use crate::common::memcached::Memcached;
use kvbench::protocol::memcache::{binary as bin, text};

/// Sends `request` and reads until `decode` returns one complete reply,
/// checking that it used every byte that came (one reply per request).
fn exchange<T>(
    s: &mut TcpStream,
    request: &[u8],
    decode: impl Fn(&[u8]) -> Option<(T, usize)>,
) -> T {
    s.write_all(request).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0; 65536];
    loop {
        if let Some((reply, used)) = decode(&buf) {
            assert_eq!(
                used,
                buf.len(),
                "the decoder left bytes of this reply behind"
            );
            return reply;
        }
        let n = s.read(&mut chunk).unwrap();
        assert!(n > 0, "memcached closed the connection");
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// One text-protocol exchange, its reply summarised: `STORED`, `hit 1000`, `miss`.
fn text_exchange(s: &mut TcpStream, request: &[u8]) -> String {
    exchange(s, request, |b: &[u8]| {
        text::decode(b).unwrap().map(|(reply, used)| {
            let summary = match reply {
                text::McReply::Done(line) => String::from_utf8_lossy(line).into_owned(),
                text::McReply::Hit(len) => format!("hit {len}"),
                text::McReply::Miss => "miss".to_string(),
                other => format!("{other:?}"),
            };
            (summary, used)
        })
    })
}

#[test]
fn text_protocol_sets_hits_and_misses_as_memcached_counts_them() {
    let m = Memcached::start();
    let mut s = m.connect();
    let value = vec![b'v'; 1000];
    let mut out = Vec::new();
    for key in 0..20 {
        out.clear();
        text::encode_set(&mut out, b"memtier-", key, 0, &value);
        assert_eq!(text_exchange(&mut s, &out), "STORED");
    }
    let (mut hits, mut misses) = (0, 0);
    for key in 10..40 {
        out.clear();
        text::encode_get(&mut out, b"memtier-", key);
        match text_exchange(&mut s, &out).as_str() {
            "hit 1000" => hits += 1,
            "miss" => misses += 1,
            other => panic!("GET memtier-{key}: {other}"),
        }
    }
    assert_eq!((hits, misses), (10, 20));
    assert_eq!(m.stat("cmd_set"), 20);
    assert_eq!(m.stat("cmd_get"), 30);
    assert_eq!(m.stat("get_hits"), 10);
    assert_eq!(m.stat("get_misses"), 20);
}

#[test]
fn binary_protocol_echoes_opaques_and_reports_misses_as_a_status() {
    let m = Memcached::start();
    let mut s = m.connect();
    let decode = |b: &[u8]| bin::decode(b).unwrap();
    let mut out = Vec::new();
    for key in 0..5u32 {
        out.clear();
        bin::encode_set(&mut out, b"memtier-", u64::from(key), 0, b"0123456789", key);
        let r = exchange(&mut s, &out, decode);
        assert_eq!(
            (r.opcode, r.status, r.opaque),
            (bin::OP_SET, bin::Status::NoError, key)
        );
    }
    let mut seen = Vec::new();
    for key in 3..8u32 {
        out.clear();
        bin::encode_get(&mut out, b"memtier-", u64::from(key), 100 + key);
        let r = exchange(&mut s, &out, decode);
        assert_eq!(r.opaque, 100 + key);
        seen.push((r.status, r.value_len));
    }
    use bin::Status::{KeyNotFound, NoError};
    assert_eq!(seen[..2], [(NoError, 10), (NoError, 10)]);
    assert!(
        seen[2..].iter().all(|(status, _)| *status == KeyNotFound),
        "{seen:?}"
    );
    assert_eq!(m.stat("cmd_set"), 5);
    assert_eq!(m.stat("get_hits"), 2);
    assert_eq!(m.stat("get_misses"), 3);
}
