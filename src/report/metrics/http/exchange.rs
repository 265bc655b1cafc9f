//! One connection's exchange with the endpoint, over any non-blocking stream:
//! read the request head (up to a limit), answer it, half-close, then read
//! and drop what the client still sends until it closes.
//!
//! There is no socket and no clock in here: the server owns both (and the
//! deadline), so that every step is tested with a scripted stream.

use std::io::{self, Read, Write};
use std::net::Shutdown;

use crate::report::metrics::http::respond::{Response, head_end, respond, too_large};
use crate::report::metrics::http::{Published, Shared};

/// A stream whose sending side can be closed while its receiving side stays
/// open.
pub trait HalfClose {
    /// Sends end of file to the peer.
    fn close_write(&mut self) -> io::Result<()>;
}

impl HalfClose for mio::net::TcpStream {
    fn close_write(&mut self) -> io::Result<()> {
        self.shutdown(Shutdown::Write)
    }
}

/// Whether the connection stays open after [`Exchange::advance`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Waiting for the stream to become readable or writable again.
    Open,
    /// Done, or broken: close it.
    Done,
}

#[derive(Debug)]
enum State {
    /// The request head so far.
    Reading(Vec<u8>),
    /// The answer, and how much of it the stream took.
    Writing(Response, usize),
    /// Answered and half-closed: the bytes dropped so far.
    Draining(usize),
}

/// What one connection has done so far.
#[derive(Debug)]
pub struct Exchange {
    state: State,
    max_head_bytes: usize,
}

fn would_block(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::WouldBlock
}

fn interrupted(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Interrupted
}

/// The published text as it is now. The lock is held for two reference
/// counts' increments, so the master, which swaps the text in, never waits
/// on this thread for longer than that.
fn snapshot(published: &Shared) -> Published {
    published
        .lock()
        .map(|p| p.clone())
        .unwrap_or_else(|poisoned| poisoned.into_inner().clone())
}

impl Exchange {
    /// A connection just accepted, which reads at most `max_head_bytes` of
    /// request head.
    pub fn new(max_head_bytes: usize) -> Exchange {
        Exchange {
            state: State::Reading(Vec::new()),
            max_head_bytes,
        }
    }

    /// True until the request head is complete: such a connection is the
    /// first to go when the endpoint is full.
    pub fn is_reading(&self) -> bool {
        matches!(self.state, State::Reading(_))
    }

    /// Does all the stream allows now, moving from one state to the next.
    pub fn advance<S>(&mut self, stream: &mut S, published: &Shared) -> Progress
    where
        S: Read + Write + HalfClose,
    {
        // Any error other than "not now" ends the connection: the client is
        // gone or broke the protocol, and has no one else to tell.
        self.step(stream, published).unwrap_or(Progress::Done)
    }

    fn step<S>(&mut self, stream: &mut S, published: &Shared) -> io::Result<Progress>
    where
        S: Read + Write + HalfClose,
    {
        loop {
            let next = match &mut self.state {
                State::Reading(head) => {
                    let Some(response) = read_head(stream, head, self.max_head_bytes, published)?
                    else {
                        return Ok(Progress::Open);
                    };
                    match response {
                        Some(r) => State::Writing(r, 0),
                        None => return Ok(Progress::Done),
                    }
                }
                State::Writing(response, written) => {
                    if !write_rest(stream, response, written)? {
                        return Ok(Progress::Open);
                    }
                    stream.close_write()?;
                    State::Draining(0)
                }
                State::Draining(dropped) => {
                    return drain(stream, dropped, self.max_head_bytes);
                }
            };
            self.state = next;
        }
    }
}

/// Reads what the stream has into `head`: `Ok(None)` while the head is
/// incomplete, `Ok(Some(None))` for a client that closed without a word, and
/// the answer once there is one.
fn read_head<S: Read>(
    stream: &mut S,
    head: &mut Vec<u8>,
    max_head_bytes: usize,
    published: &Shared,
) -> io::Result<Option<Option<Response>>> {
    let mut chunk = [0u8; 2048];
    loop {
        // Never read past the limit: what a client sends beyond it is not
        // kept, whatever it sends.
        let room = max_head_bytes.saturating_sub(head.len()).min(chunk.len());
        if room == 0 {
            return Ok(Some(Some(too_large(max_head_bytes))));
        }
        match stream.read(&mut chunk[..room]) {
            // A client that ends its request with end of file instead of a
            // blank line (`printf 'GET /metrics HTTP/1.0\r\n' | nc`) gets
            // the answer to what it sent.
            Ok(0) if head.is_empty() => return Ok(Some(None)),
            Ok(0) => return Ok(Some(Some(respond(head, &snapshot(published))))),
            Ok(n) => {
                // The blank line may straddle two reads.
                let from = head.len().saturating_sub(3);
                head.extend_from_slice(&chunk[..n]);
                if let Some(end) = head_end(&head[from..]) {
                    let end = from + end;
                    return Ok(Some(Some(respond(&head[..end], &snapshot(published)))));
                }
            }
            Err(e) if would_block(&e) => return Ok(None),
            Err(e) if interrupted(&e) => {}
            Err(e) => return Err(e),
        }
    }
}

/// Writes what the stream takes; true once the whole answer is written.
fn write_rest<S: Write>(
    stream: &mut S,
    response: &Response,
    written: &mut usize,
) -> io::Result<bool> {
    loop {
        let rest = response.rest(*written);
        if rest.is_empty() {
            return Ok(true);
        }
        match stream.write(rest) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => *written += n,
            Err(e) if would_block(&e) => return Ok(false),
            Err(e) if interrupted(&e) => {}
            Err(e) => return Err(e),
        }
    }
}

/// Reads and drops what the client still sends after the answer, until it
/// closes. Closing a socket with unread bytes in it sends a reset, which
/// can destroy the answer before the client has read it; a client that keeps
/// sending is cut off after `limit` bytes all the same.
fn drain<S: Read>(stream: &mut S, dropped: &mut usize, limit: usize) -> io::Result<Progress> {
    let mut chunk = [0u8; 2048];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => return Ok(Progress::Done),
            Ok(n) => {
                *dropped += n;
                if *dropped > limit {
                    return Ok(Progress::Done);
                }
            }
            Err(e) if would_block(&e) => return Ok(Progress::Open),
            Err(e) if interrupted(&e) => {}
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::io::{self, Read, Write};
    use std::sync::{Arc, Mutex};

    use super::{Exchange, HalfClose, Progress};
    use crate::report::metrics::http::{Published, Shared};

    /// What the scripted client does at its next read.
    enum Next {
        Bytes(&'static [u8]),
        Eof,
    }

    /// A non-blocking stream played from a script: reads take the next step
    /// (nothing left: would block), writes take at most `writable` bytes.
    #[derive(Default)]
    struct Scripted {
        reads: VecDeque<Next>,
        writable: usize,
        written: Vec<u8>,
        write_closed: bool,
    }

    impl Read for Scripted {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.reads.pop_front() {
                None => Err(io::ErrorKind::WouldBlock.into()),
                Some(Next::Eof) => Ok(0),
                Some(Next::Bytes(b)) => {
                    let n = b.len().min(buf.len());
                    buf[..n].copy_from_slice(&b[..n]);
                    if n < b.len() {
                        self.reads.push_front(Next::Bytes(&b[n..]));
                    }
                    Ok(n)
                }
            }
        }
    }

    impl Write for Scripted {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            assert!(!self.write_closed, "a write after the half-close");
            let n = buf.len().min(self.writable);
            if n == 0 {
                return Err(io::ErrorKind::WouldBlock.into());
            }
            self.writable -= n;
            self.written.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl HalfClose for Scripted {
        fn close_write(&mut self) -> io::Result<()> {
            self.write_closed = true;
            Ok(())
        }
    }

    fn shared() -> Shared {
        Arc::new(Mutex::new(Published {
            prometheus: "p 1\n".into(),
            openmetrics: "o 1\n# EOF\n".into(),
        }))
    }

    fn written(s: &Scripted) -> String {
        String::from_utf8(s.written.clone()).unwrap()
    }

    #[test]
    fn a_head_in_pieces_is_answered_in_pieces_then_drained_to_the_clients_close() {
        let published = shared();
        let mut exchange = Exchange::new(8192);
        let mut s = Scripted {
            reads: [
                Next::Bytes(b"GET /metrics HT"),
                Next::Bytes(b"TP/1.1\r\nHost: x\r"),
            ]
            .into(),
            writable: 10,
            ..Scripted::default()
        };
        assert_eq!(exchange.advance(&mut s, &published), Progress::Open);
        assert!(exchange.is_reading() && s.written.is_empty());
        // The blank line comes split between two reads.
        s.reads = [Next::Bytes(b"\n\r"), Next::Bytes(b"\n")].into();
        assert_eq!(exchange.advance(&mut s, &published), Progress::Open);
        assert!(!exchange.is_reading());
        assert_eq!(written(&s), "HTTP/1.1 2", "as much as the stream took");
        // What was published in between is not what this request gets: its
        // answer was fixed when its head was complete.
        published.lock().unwrap().prometheus = "p 2\n".into();
        s.writable = 1 << 20;
        assert_eq!(exchange.advance(&mut s, &published), Progress::Open);
        let answer = written(&s);
        assert!(
            answer.starts_with("HTTP/1.1 200 OK\r\n") && answer.ends_with("\r\n\r\np 1\n"),
            "{answer}"
        );
        assert!(s.write_closed, "half-closed once answered");
        s.reads = [Next::Bytes(b"stray bytes"), Next::Eof].into();
        assert_eq!(exchange.advance(&mut s, &published), Progress::Done);
        assert_eq!(written(&s), answer, "nothing more was written");
    }

    #[test]
    fn a_head_over_the_limit_gets_431_and_a_client_that_keeps_sending_is_cut_off() {
        let published = shared();
        let mut exchange = Exchange::new(64);
        let mut s = Scripted {
            reads: [Next::Bytes(&[b'a'; 100])].into(),
            writable: 1 << 20,
            ..Scripted::default()
        };
        // 64 bytes are read as the head, the other 36 are drained.
        assert_eq!(exchange.advance(&mut s, &published), Progress::Open);
        let answer = written(&s);
        assert!(answer.starts_with("HTTP/1.1 431 "), "{answer}");
        assert!(answer.contains("Connection: close\r\n"), "{answer}");
        assert!(s.write_closed);
        // 20 more stay under the drain's limit of 64 (56 in all); another
        // 20 do not.
        s.reads = [Next::Bytes(&[b'a'; 20])].into();
        assert_eq!(exchange.advance(&mut s, &published), Progress::Open);
        s.reads = [Next::Bytes(&[b'a'; 20])].into();
        assert_eq!(exchange.advance(&mut s, &published), Progress::Done);
        assert_eq!(written(&s), answer, "nothing more was written");
    }

    #[test]
    fn a_client_that_closes_without_a_word_gets_nothing() {
        let published = shared();
        let mut exchange = Exchange::new(8192);
        let mut s = Scripted {
            reads: [Next::Eof].into(),
            writable: 1 << 20,
            ..Scripted::default()
        };
        assert_eq!(exchange.advance(&mut s, &published), Progress::Done);
        assert!(s.written.is_empty() && !s.write_closed);
    }

    #[test]
    fn a_head_ended_by_end_of_file_is_answered() {
        let published = shared();
        let mut exchange = Exchange::new(8192);
        let mut s = Scripted {
            reads: [Next::Bytes(b"GET /metrics HTTP/1.0\r\n"), Next::Eof].into(),
            writable: 1 << 20,
            ..Scripted::default()
        };
        // Answered, then the drain reads end of file again and is done.
        s.reads.push_back(Next::Eof);
        assert_eq!(exchange.advance(&mut s, &published), Progress::Done);
        assert!(written(&s).ends_with("\r\n\r\np 1\n"), "{}", written(&s));
    }
}
