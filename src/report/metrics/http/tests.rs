//! The endpoint's thread over real loopback sockets, with small limits: what
//! it serves, and that no client holds it up for another.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::report::metrics::http::{LIMITS, Limits, Published, Shared, bind, spawn};

/// Far longer than any step here takes, however loaded the machine.
const GENEROUS: Duration = Duration::from_secs(30);

fn start(limits: Limits) -> (SocketAddr, Shared) {
    let listener = bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = listener.local_addr().unwrap();
    let shared = Arc::new(Mutex::new(Published {
        prometheus: "p 1\n".into(),
        openmetrics: "o 1\n# EOF\n".into(),
    }));
    spawn(listener, Arc::clone(&shared), limits).unwrap();
    (addr, shared)
}

/// Sends `request` and reads the answer to the server's close.
fn exchange(addr: SocketAddr, request: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(GENEROUS)).unwrap();
    s.write_all(request).unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn get(addr: SocketAddr) -> String {
    exchange(addr, b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
}

/// True once the server closed `s` (end of file or a reset), false if it
/// is still open after `bound`.
fn closed_by_server(s: &mut TcpStream, bound: Duration) -> bool {
    s.set_read_timeout(Some(bound)).unwrap();
    let mut buf = [0u8; 512];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return false;
            }
            Err(_) => return true,
        }
    }
}

#[test]
fn the_endpoint_thread_serves_what_was_published_last() {
    let (addr, shared) = start(LIMITS);
    assert!(get(addr).ends_with("\r\n\r\np 1\n"));
    shared.lock().unwrap().prometheus = "p 2\n".into();
    assert!(get(addr).ends_with("\r\n\r\np 2\n"));
}

#[test]
fn a_stalled_client_is_closed_at_its_deadline_and_others_are_answered_meanwhile() {
    let (addr, _) = start(Limits {
        deadline: Duration::from_millis(300),
        ..LIMITS
    });
    let mut stalled = TcpStream::connect(addr).unwrap();
    stalled.write_all(b"GET /metrics HTTP/1.1\r\nHo").unwrap();
    // Answered while the stalled request is open, however long it stays.
    assert!(get(addr).starts_with("HTTP/1.1 200 OK\r\n"));
    assert!(closed_by_server(&mut stalled, GENEROUS));
    assert!(get(addr).starts_with("HTTP/1.1 200 OK\r\n"));
}

#[test]
fn a_head_over_the_limit_gets_431_even_when_the_client_sends_more() {
    let (addr, _) = start(LIMITS);
    let mut request = b"GET /metrics HTTP/1.1\r\nX-Big: ".to_vec();
    request.resize(LIMITS.max_head_bytes + 1000, b'a');
    request.extend_from_slice(b"\r\n\r\n");
    // The bytes past the limit are drained, not left to turn the close into
    // a reset that would lose the answer.
    let answer = exchange(addr, &request);
    assert!(answer.starts_with("HTTP/1.1 431 "), "{answer}");
    // Just under the limit is a request like any other.
    let mut request = b"GET /metrics HTTP/1.1\r\nX-Big: ".to_vec();
    request.resize(LIMITS.max_head_bytes - 4, b'a');
    request.extend_from_slice(b"\r\n\r\n");
    assert!(exchange(addr, &request).starts_with("HTTP/1.1 200 OK\r\n"));
}

#[test]
fn when_the_table_is_full_a_new_connection_closes_the_oldest_idle_one() {
    let (addr, _) = start(Limits {
        max_connections: 2,
        deadline: Duration::from_secs(600),
        ..LIMITS
    });
    // The kernel hands connections to accept in the order they came, so
    // both idle ones are in the table before the scrape.
    let mut first = TcpStream::connect(addr).unwrap();
    let mut second = TcpStream::connect(addr).unwrap();
    // The scrape is the third: it pushes the first out and is answered.
    assert!(get(addr).starts_with("HTTP/1.1 200 OK\r\n"));
    assert!(closed_by_server(&mut first, GENEROUS));
    // The second is still open: nothing but its deadline, 10 minutes away,
    // or a fourth connection would close it.
    second.set_nonblocking(true).unwrap();
    let mut buf = [0u8; 16];
    let still = second.read(&mut buf);
    assert!(
        still
            .as_ref()
            .is_err_and(|e| e.kind() == ErrorKind::WouldBlock),
        "{still:?}"
    );
}

#[test]
fn many_idle_connections_do_not_lock_a_scraper_out() {
    let (addr, _) = start(Limits {
        max_connections: 8,
        deadline: Duration::from_secs(600),
        ..LIMITS
    });
    let idle: Vec<TcpStream> = (0..50).map(|_| TcpStream::connect(addr).unwrap()).collect();
    for _ in 0..3 {
        assert!(get(addr).starts_with("HTTP/1.1 200 OK\r\n"));
    }
    drop(idle);
}
