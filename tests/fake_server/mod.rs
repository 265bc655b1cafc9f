//! An in-process fake RESP server whose replies come apart in time: it answers
//! PING at once (kvbench's handshake), then every GET (`$-1`) and SET (`+OK`) it
//! reads ONE reply at a time, each written after a pause of its own and flushed
//! alone, so that the replies to one pipelined batch reach the client in
//! different reads. A real server answers a batch in one write, which would hide
//! a client that times a whole batch with one clock reading.
//!
//! Any other command gets an error reply, as from a minimal server. It listens on
//! 127.0.0.1 only, serves every connection (kvbench opens one to check the
//! address before its workers open theirs), counts the GETs and SETs it answered,
//! and stops when dropped: each connection ends when its client hangs up or the
//! server stops, and the drop waits for all of them.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use kvbench::protocol::resp::{self, Reply};

/// How often idle threads look at the stop flag.
const POLL: Duration = Duration::from_millis(20);

/// What the server's threads share.
#[derive(Default)]
struct Shared {
    stop: AtomicBool,
    gets: AtomicU64,
    sets: AtomicU64,
    /// Requests that were not arrays of bulk strings.
    malformed: AtomicU64,
}

/// A running fake server; stopped when dropped.
pub struct FakeServer {
    /// The loopback port it listens on.
    pub port: u16,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl FakeServer {
    /// Starts a server that pauses `gap` before each GET or SET reply.
    pub fn start(gap: Duration) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared::default());
        let acceptor = {
            let shared = Arc::clone(&shared);
            thread::spawn(move || accept_loop(&listener, &shared, gap))
        };
        FakeServer {
            port,
            shared,
            acceptor: Some(acceptor),
        }
    }

    /// GET requests answered so far.
    pub fn gets(&self) -> u64 {
        self.shared.gets.load(Ordering::SeqCst)
    }

    /// SET requests answered so far.
    pub fn sets(&self) -> u64 {
        self.shared.sets.load(Ordering::SeqCst)
    }

    /// Requests that were not arrays of bulk strings (the connection was closed).
    pub fn malformed(&self) -> u64 {
        self.shared.malformed.load(Ordering::SeqCst)
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>, gap: Duration) {
    let mut connections = Vec::new();
    while !shared.stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                let shared = Arc::clone(shared);
                connections.push(thread::spawn(move || {
                    let _ = serve(stream, &shared, gap);
                }));
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                thread::sleep(Duration::from_millis(2))
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    for connection in connections {
        let _ = connection.join();
    }
}

/// The command name of one whole request (`*N\r\n$len\r\nNAME\r\n...`).
fn command_name(request: &[u8]) -> Option<&[u8]> {
    let header = request.windows(2).position(|w| w == b"\r\n")? + 2;
    match resp::decode(&request[header..]) {
        Ok(Some((Reply::Bulk(name), _))) => Some(name),
        _ => None,
    }
}

/// Answers one connection until the client hangs up or the server stops.
fn serve(mut stream: TcpStream, shared: &Shared, gap: Duration) -> io::Result<()> {
    stream.set_nonblocking(false)?;
    // Each reply leaves in its own segment, not held back for the previous one's ACK.
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(POLL))?;
    let mut pending: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        // Answer every whole request received so far, one reply per write.
        loop {
            let used = match resp::decode(&pending) {
                Ok(Some((Reply::Array(_), used))) => used,
                Ok(None) => break,
                // Not a request kvbench sends: hang up, as a real server would.
                Ok(Some(_)) | Err(_) => {
                    shared.malformed.fetch_add(1, Ordering::SeqCst);
                    return Ok(());
                }
            };
            let Some(name) = command_name(&pending[..used]).map(<[u8]>::to_ascii_uppercase) else {
                shared.malformed.fetch_add(1, Ordering::SeqCst);
                return Ok(());
            };
            let reply: &[u8] = match name.as_slice() {
                b"PING" => b"+PONG\r\n",
                b"GET" => {
                    thread::sleep(gap);
                    shared.gets.fetch_add(1, Ordering::SeqCst);
                    b"$-1\r\n"
                }
                b"SET" => {
                    thread::sleep(gap);
                    shared.sets.fetch_add(1, Ordering::SeqCst);
                    b"+OK\r\n"
                }
                // Anything else (INFO, CONFIG, ...) is not supported, as on a
                // minimal server.
                _ => b"-ERR unknown command\r\n",
            };
            stream.write_all(reply)?;
            stream.flush()?;
            pending.drain(..used);
        }
        if shared.stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Ok(()),
            Ok(n) => pending.extend_from_slice(&chunk[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(e),
        }
    }
}
