//! The connection's timing and memory: send times taken at the write, and
//! the in-flight entry's size that docs/design.md's memory formula uses.

use super::*;
use crate::config::MAX_PIPELINE;

/// A connection over a loopback socket, and the server's end of it.
fn connected() -> (Conn, std::net::TcpStream) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (server, _) = listener.accept().unwrap();
    client.set_nonblocking(true).unwrap();
    let stream = Stream::Tcp(mio::net::TcpStream::from_std(client));
    (Conn::new(stream, 4, 64, 1024, 1 << 20, 0), server)
}

#[test]
fn a_new_requests_send_time_is_the_writes_and_a_resent_one_keeps_its_first() {
    let (mut conn, _server) = connected();
    let ping = |buf: &mut Vec<u8>, _| {
        buf.extend_from_slice(b"PING\r\n");
        Some(Queued::ASKING)
    };
    let queued_at = Instant::now();
    // A redirected or retried request: sent once already.
    let first = queued_at - std::time::Duration::from_millis(5);
    conn.queue(ping, queued_at, Some(first));
    conn.queue(ping, queued_at, None);
    assert_eq!(conn.inflight[1].sent_at, None, "timed before its write");
    let before_write = Instant::now();
    assert_eq!(conn.send(), None);
    assert_eq!(conn.inflight[0].sent_at, Some(first));
    let sent = conn.inflight[1].sent_at.unwrap();
    assert!(sent >= before_write, "the send time is the write's");
    // The next write times only what was queued after the last one.
    conn.queue(ping, queued_at, None);
    let second_write = Instant::now();
    assert_eq!(conn.send(), None);
    assert_eq!(conn.inflight[1].sent_at, Some(sent));
    assert!(conn.inflight[2].sent_at.is_some_and(|t| t >= second_write));
}

#[test]
fn micros_between_counts_whole_microseconds_and_never_goes_negative() {
    let t0 = Instant::now();
    let later = t0 + std::time::Duration::new(3, 1_999);
    assert_eq!(micros_between(t0, later), 3_000_001);
    assert_eq!(micros_between(later, t0), 0);
    let hour = t0 + std::time::Duration::from_secs(3600);
    assert_eq!(micros_between(t0, hour), 3_600_000_000);
}

#[test]
fn the_memory_formula_of_the_design_doc_holds() {
    // docs/design.md, "Memory": 56 B per request in flight, at most
    // MAX_PIPELINE of them (3.5 MiB), and a 256 KiB write budget.
    assert_eq!(IN_FLIGHT_BYTES, 56);
    const { assert!(MAX_PIPELINE * IN_FLIGHT_BYTES <= 7 * 1024 * 1024 / 2) };
    assert_eq!(WRITE_BUDGET, 256 * 1024);
}
