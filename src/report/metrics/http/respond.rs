//! What the endpoint answers, as pure functions of the bytes received: where
//! a request head ends, and the whole response to it. No socket here, so that
//! every answer is tested as a transcript.

use std::sync::Arc;

use crate::report::metrics::exposition::Format;
use crate::report::metrics::http::Published;

/// One answer: the status line and headers, then the body, which for a
/// scrape is the published text itself (an `Arc`, not a copy of it).
#[derive(Debug, Clone)]
pub struct Response {
    head: Vec<u8>,
    body: Arc<str>,
}

impl Response {
    /// The bytes still to send after the first `written` ones: the rest of
    /// the head, or once it is sent the rest of the body; empty at the end.
    pub fn rest(&self, written: usize) -> &[u8] {
        match self.head.get(written..) {
            Some(head) if !head.is_empty() => head,
            _ => self
                .body
                .as_bytes()
                .get(written - self.head.len()..)
                .unwrap_or_default(),
        }
    }

    /// The whole response in one buffer, for tests and transcripts.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut all = self.head.clone();
        all.extend_from_slice(self.body.as_bytes());
        all
    }
}

/// Where the request head in `received` ends (the blank line included), or
/// `None` while it is incomplete. Only CRLF line ends count, as HTTP/1.1
/// requires and every scraper sends.
pub fn head_end(received: &[u8]) -> Option<usize> {
    received
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|at| at + 4)
}

/// The answer to a request head longer than the endpoint reads.
pub fn too_large(limit: usize) -> Response {
    plain(
        431,
        "Request Header Fields Too Large",
        &format!("a request head is at most {limit} bytes\n"),
    )
}

/// The whole response to a request head.
pub fn respond(head: &[u8], published: &Published) -> Response {
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
    let body = match format {
        Format::Prometheus => &published.prometheus,
        Format::OpenMetrics => &published.openmetrics,
    };
    Response {
        head: status_and_headers(200, "OK", format.content_type(), body.len()),
        // HEAD announces the length of the body it does not send.
        body: if head_only {
            Arc::from("")
        } else {
            Arc::clone(body)
        },
    }
}

/// True when an `Accept` header names OpenMetrics (Prometheus sends it first).
fn accepts_openmetrics<'a>(headers: impl Iterator<Item = &'a str>) -> bool {
    headers
        .filter_map(|h| h.split_once(':'))
        .filter(|(name, _)| name.trim().eq_ignore_ascii_case("accept"))
        .any(|(_, value)| value.contains("application/openmetrics-text"))
}

fn plain(code: u16, reason: &str, body: &str) -> Response {
    Response {
        head: status_and_headers(code, reason, "text/plain; charset=utf-8", body.len()),
        body: Arc::from(body),
    }
}

fn status_and_headers(code: u16, reason: &str, content_type: &str, length: usize) -> Vec<u8> {
    format!(
        "HTTP/1.1 {code} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n"
    )
    .into_bytes()
}

/// Adds a header line before the blank line that ends the head.
fn insert_header(response: &mut Response, line: &str) {
    if let Some(end) = head_end(&response.head) {
        let at = end - 2;
        let added = format!("{line}\r\n");
        response.head.splice(at..at, added.into_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::{head_end, respond, too_large};
    use crate::report::metrics::http::Published;

    fn published() -> Published {
        Published {
            prometheus: "p 1\n".into(),
            openmetrics: "o 1\n# EOF\n".into(),
        }
    }

    fn answer(head: &str) -> String {
        String::from_utf8(respond(head.as_bytes(), &published()).to_bytes()).unwrap()
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
            post.starts_with("HTTP/1.1 405 ") && post.contains("\r\nAllow: GET, HEAD\r\n\r\n"),
            "{post}"
        );
        assert!(answer("nonsense\r\n\r\n").starts_with("HTTP/1.1 400 "));
        assert!(answer("GET /metrics SPDY/3\r\n\r\n").starts_with("HTTP/1.1 505 "));
    }

    #[test]
    fn a_head_ends_at_its_blank_line_and_not_before() {
        let head = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
        assert_eq!(head_end(head), Some(head.len()));
        for prefix in 0..head.len() {
            assert_eq!(head_end(&head[..prefix]), None, "{prefix} bytes");
        }
        // What follows the head (a body, a second request) is not part of it.
        let mut more = head.to_vec();
        more.extend_from_slice(b"junk\r\n\r\n");
        assert_eq!(head_end(&more), Some(head.len()));
    }

    #[test]
    fn a_response_is_sent_head_then_body_from_any_offset() {
        let r = respond(b"GET /metrics HTTP/1.1\r\n\r\n", &published());
        let all = r.to_bytes();
        for written in 0..=all.len() {
            let rest = r.rest(written);
            assert!(!rest.is_empty() || written == all.len(), "{written}");
            assert!(all[written..].starts_with(rest), "{written}");
        }
        let big = String::from_utf8(too_large(8192).to_bytes()).unwrap();
        assert!(
            big.starts_with("HTTP/1.1 431 ") && big.contains("Connection: close\r\n"),
            "{big}"
        );
    }
}
