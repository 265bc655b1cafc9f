//! The `/metrics` endpoint: a small HTTP/1.1 responder over `std::net` on
//! its own thread, serving the text the master published last.
//!
//! A scrape is one short request a few times a minute, so one connection is
//! answered at a time, each bounded by a timeout of a few seconds so that a stuck
//! client cannot hold the endpoint for long; every answer closes its
//! connection (`Connection: close`). Nothing here runs per request on a
//! worker, nor renders anything: the master swaps in new text once a second
//! and a request only clones an `Arc` under the lock.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::metrics::exposition::Format;

/// How long one client may take to send its request or read the answer.
const IO_TIMEOUT: Duration = Duration::from_secs(2);
/// The longest request head read; a scrape's is a few hundred bytes.
const MAX_HEAD: usize = 16 * 1024;

/// The text the endpoint serves, in both formats, swapped by the master.
#[derive(Debug, Clone, Default)]
pub struct Published {
    /// Prometheus' text format.
    pub prometheus: Arc<str>,
    /// OpenMetrics.
    pub openmetrics: Arc<str>,
}

/// Shared between the master (writer) and the endpoint's thread (reader).
pub type Shared = Arc<Mutex<Published>>;

/// Binds the endpoint's address; the caller reports a failure (port in
/// use, address not on this machine) before anything else starts.
pub fn bind(addr: SocketAddr) -> io::Result<TcpListener> {
    TcpListener::bind(addr)
}

/// Serves `published` on `listener` from a new thread, until the process ends.
pub fn spawn(listener: TcpListener, published: Shared) -> io::Result<()> {
    std::thread::Builder::new()
        .name("kvbench-metrics".into())
        .spawn(move || serve(&listener, &published))
        .map(|_| ())
}

fn serve(listener: &TcpListener, published: &Shared) {
    for stream in listener.incoming() {
        match stream {
            // A client that breaks off is its own business.
            Ok(stream) => {
                let _ = answer(stream, published);
            }
            // Out of file descriptors, or a connection reset before accept:
            // wait a little rather than spin.
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

fn answer(mut stream: TcpStream, published: &Shared) -> io::Result<()> {
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    stream.set_write_timeout(Some(IO_TIMEOUT))?;
    let head = read_head(&mut stream)?;
    let snapshot = published
        .lock()
        .map(|p| p.clone())
        .unwrap_or_else(|poisoned| poisoned.into_inner().clone());
    stream.write_all(&respond(&head, &snapshot))?;
    stream.flush()
}

/// Reads up to the blank line that ends the request head.
fn read_head(stream: &mut TcpStream) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_HEAD {
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&chunk[..n]);
    }
    Ok(head)
}

/// The whole response to a request head: pure, so that it is tested without
/// a socket.
pub fn respond(head: &[u8], published: &Published) -> Vec<u8> {
    let text = String::from_utf8_lossy(head);
    let mut lines = text.split("\r\n");
    let request = lines.next().unwrap_or_default();
    let mut parts = request.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return plain(
            400,
            "Bad Request",
            "a request line is METHOD PATH HTTP/1.1\n",
        );
    };
    if !version.starts_with("HTTP/1.") {
        return plain(505, "HTTP Version Not Supported", "HTTP/1.x only\n");
    }
    let head_only = match method {
        "GET" => false,
        "HEAD" => true,
        _ => {
            let mut r = plain(405, "Method Not Allowed", "GET or HEAD\n");
            insert_header(&mut r, "Allow: GET, HEAD");
            return r;
        }
    };
    let path = target.split('?').next().unwrap_or_default();
    if path != "/metrics" {
        return plain(404, "Not Found", "the metrics are at /metrics\n");
    }
    let format = if accepts_openmetrics(lines) {
        Format::OpenMetrics
    } else {
        Format::Prometheus
    };
    let body: &str = match format {
        Format::Prometheus => &published.prometheus,
        Format::OpenMetrics => &published.openmetrics,
    };
    let mut r = status_and_headers(200, "OK", format.content_type(), body.len());
    if !head_only {
        r.extend_from_slice(body.as_bytes());
    }
    r
}

/// True when an `Accept` header names OpenMetrics (Prometheus sends it first).
fn accepts_openmetrics<'a>(headers: impl Iterator<Item = &'a str>) -> bool {
    headers
        .filter_map(|h| h.split_once(':'))
        .filter(|(name, _)| name.trim().eq_ignore_ascii_case("accept"))
        .any(|(_, value)| value.contains("application/openmetrics-text"))
}

fn plain(code: u16, reason: &str, body: &str) -> Vec<u8> {
    let mut r = status_and_headers(code, reason, "text/plain; charset=utf-8", body.len());
    r.extend_from_slice(body.as_bytes());
    r
}

fn status_and_headers(code: u16, reason: &str, content_type: &str, length: usize) -> Vec<u8> {
    format!(
        "HTTP/1.1 {code} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n"
    )
    .into_bytes()
}

/// Adds a header line before the blank line that ends the head.
fn insert_header(response: &mut Vec<u8>, line: &str) {
    if let Some(end) = response.windows(4).position(|w| w == b"\r\n\r\n") {
        let at = end + 2;
        let added = format!("{line}\r\n");
        response.splice(at..at, added.into_bytes());
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::{Published, bind, respond, spawn};

    fn published() -> Published {
        Published {
            prometheus: "p 1\n".into(),
            openmetrics: "o 1\n# EOF\n".into(),
        }
    }

    fn answer(head: &str) -> String {
        String::from_utf8(respond(head.as_bytes(), &published())).unwrap()
    }

    #[test]
    fn the_endpoint_answers_get_head_and_refuses_the_rest() {
        let ok = answer("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
        assert!(
            ok.contains("Content-Type: text/plain; version=0.0.4"),
            "{ok}"
        );
        assert!(
            ok.contains("Content-Length: 4\r\n") && ok.ends_with("\r\n\r\np 1\n"),
            "{ok}"
        );
        let om = answer(
            "GET /metrics?x=1 HTTP/1.1\r\naccept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5\r\n\r\n",
        );
        assert!(
            om.contains("application/openmetrics-text") && om.ends_with("# EOF\n"),
            "{om}"
        );
        let head = answer("HEAD /metrics HTTP/1.0\r\n\r\n");
        assert!(
            head.contains("Content-Length: 4\r\n") && head.ends_with("\r\n\r\n"),
            "{head}"
        );
        assert!(answer("GET / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404 "));
        assert!(answer("GET /metricsx HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404 "));
        let post = answer("POST /metrics HTTP/1.1\r\n\r\n");
        assert!(
            post.starts_with("HTTP/1.1 405 ") && post.contains("\r\nAllow: GET, HEAD\r\n"),
            "{post}"
        );
        assert!(answer("nonsense\r\n\r\n").starts_with("HTTP/1.1 400 "));
        assert!(answer("GET /metrics SPDY/3\r\n\r\n").starts_with("HTTP/1.1 505 "));
    }

    #[test]
    fn the_endpoint_thread_serves_what_was_published_last() {
        let listener = bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Mutex::new(published()));
        spawn(listener, Arc::clone(&shared)).unwrap();
        let get = || {
            let mut s = TcpStream::connect(addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            s.write_all(b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
                .unwrap();
            let mut out = String::new();
            s.read_to_string(&mut out).unwrap();
            out
        };
        assert!(get().ends_with("p 1\n"));
        shared.lock().unwrap().prometheus = "p 2\n".into();
        assert!(get().ends_with("p 2\n"));
    }
}
