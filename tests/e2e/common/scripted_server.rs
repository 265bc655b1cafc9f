//! An in-process RESP server whose answers a [`Script`] writes: the part that
//! tests/e2e/fake_server.rs (replies that come apart in time) and tests/e2e/hostile.rs
//! (replies that break the protocol) share.
//!
//! It listens on 127.0.0.1 only and serves every connection (kvbench opens one
//! to check the address before its workers open theirs), each on a thread of
//! its own with `TCP_NODELAY`, so that every write leaves in its own segment.
//! Requests are read whole and handed to the script one at a time, in order. A
//! request that is not an array is not one kvbench sends: the connection is
//! closed, as a real server would. The server stops when dropped: each
//! connection ends when its client hangs up, its script hangs up or the server
//! stops, and the drop waits for all of them.

use std::io::{self, Read};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use kvbench::protocol::resp::{self, Reply};

use super::{listen, machine};

/// How often idle threads look at the stop flag.
const POLL: Duration = Duration::from_millis(20);

/// What to do after answering a request.
pub enum Next {
    KeepReading,
    Hangup,
}

/// How a scripted server answers; shared by all its connection threads.
pub trait Script: Send + Sync + 'static {
    /// What the script remembers about one connection, fresh for each.
    type Connection: Default;

    /// Answers one whole request on `stream`. `name` is its command name,
    /// upper-cased, or `None` when its first element is not a bulk string.
    fn answer(
        &self,
        stream: &mut TcpStream,
        name: Option<&[u8]>,
        connection: &mut Self::Connection,
    ) -> io::Result<Next>;

    /// Told of a request that is not an array (no request kvbench sends),
    /// before the connection is closed.
    fn malformed(&self) {}
}

/// What the server's threads share.
struct Shared<S> {
    stop: AtomicBool,
    script: S,
}

/// A running scripted server; stopped when dropped.
pub struct ScriptedServer<S: Script> {
    /// The loopback port it listens on.
    pub port: u16,
    shared: Arc<Shared<S>>,
    acceptor: Option<JoinHandle<()>>,
    _share: machine::Share,
}

impl<S: Script> ScriptedServer<S> {
    /// Starts a server that answers as `script` says.
    pub fn spawn(script: S) -> ScriptedServer<S> {
        let listener = listen();
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            script,
        });
        let acceptor = {
            let shared = Arc::clone(&shared);
            thread::spawn(move || accept_loop(&listener, &shared))
        };
        ScriptedServer {
            port,
            shared,
            acceptor: Some(acceptor),
            _share: machine::share(),
        }
    }

    /// The script, with whatever it counted so far.
    pub fn script(&self) -> &S {
        &self.shared.script
    }
}

impl<S: Script> Drop for ScriptedServer<S> {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

fn accept_loop<S: Script>(listener: &TcpListener, shared: &Arc<Shared<S>>) {
    let mut connections = Vec::new();
    while !shared.stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                let shared = Arc::clone(shared);
                connections.push(thread::spawn(move || {
                    let _ = serve(stream, &shared);
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

/// The command name of one whole request (`*N\r\n$len\r\nNAME\r\n...`), upper-cased.
fn command_name(request: &[u8]) -> Option<Vec<u8>> {
    let header = request.windows(2).position(|w| w == b"\r\n")? + 2;
    match resp::decode(&request[header..]) {
        Ok(Some((Reply::Bulk(name), _))) => Some(name.to_ascii_uppercase()),
        _ => None,
    }
}

/// Serves one connection until the client hangs up, the script hangs up or the
/// server stops.
fn serve<S: Script>(mut stream: TcpStream, shared: &Shared<S>) -> io::Result<()> {
    stream.set_nonblocking(false)?;
    // Each reply leaves in its own segment, not held back for the previous one's ACK.
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(POLL))?;
    let mut connection = S::Connection::default();
    let mut pending: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        // Answer every whole request received so far, in order.
        loop {
            let used = match resp::decode(&pending) {
                Ok(Some((Reply::Array(_), used))) => used,
                Ok(None) => break,
                // Not a request kvbench sends: hang up, as a real server would.
                Ok(Some(_)) | Err(_) => {
                    shared.script.malformed();
                    return Ok(());
                }
            };
            let name = command_name(&pending[..used]);
            pending.drain(..used);
            let next = shared
                .script
                .answer(&mut stream, name.as_deref(), &mut connection)?;
            if let Next::Hangup = next {
                return Ok(());
            }
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
