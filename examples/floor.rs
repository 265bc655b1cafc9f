//! The floor client of `make bench`: the least work a Redis load client can do
//! per request, the reference every CPU-per-request ratio in
//! docs/performance.md is read against.
//!
//! It keeps `--conns` connections busy with a fixed window of `GET` requests
//! for one key that does not exist, and does nothing else: per window one
//! write of bytes encoded at start and reads until the window's replies are in
//! (each `$-1\r\n`, counted by its newline). No latency is measured, no reply
//! is parsed, nothing is allocated after start. It stops after `--requests`
//! replies and prints `{"requests": N, "seconds": S}`; the caller reads the CPU
//! time from the process's rusage.
//!
//! ```text
//! cargo run --release --example floor -- --port 6379 --conns 50 --window 16 --requests 1000000
//! ```

use std::io::{self, Read, Write};
use std::net::TcpStream as StdStream;
use std::time::Instant;

use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};

/// One connection: its socket, the window's bytes and how many replies of the
/// window are still to come.
struct Conn {
    stream: TcpStream,
    awaited: usize,
    written: usize,
}

impl Conn {
    /// Writes what is left of the window; a full socket waits for WRITABLE.
    fn send(&mut self, batch: &[u8]) -> io::Result<()> {
        while self.written < batch.len() {
            match self.stream.write(&batch[self.written..]) {
                Ok(n) => self.written += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

fn flag(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().expect("a number"))
        .unwrap_or(default)
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let port = flag(&args, "--port", 6379);
    let conns = flag(&args, "--conns", 50) as usize;
    let window = flag(&args, "--window", 1) as usize;
    let requests = flag(&args, "--requests", 100_000);

    let request = b"*2\r\n$3\r\nGET\r\n$13\r\nfloor:missing\r\n";
    let batch: Vec<u8> = request.repeat(window);
    let mut poll = Poll::new()?;
    let mut all = Vec::with_capacity(conns);
    for i in 0..conns {
        let std = StdStream::connect(("127.0.0.1", port as u16))?;
        std.set_nodelay(true)?;
        std.set_nonblocking(true)?;
        let mut stream = TcpStream::from_std(std);
        poll.registry().register(
            &mut stream,
            Token(i),
            Interest::READABLE | Interest::WRITABLE,
        )?;
        all.push(Conn {
            stream,
            awaited: window,
            written: 0,
        });
    }

    let start = Instant::now();
    let mut replies = 0u64;
    let mut sent = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    let mut events = Events::with_capacity(1024);
    // Every connection starts with a window to send.
    for c in &mut all {
        c.send(&batch)?;
        sent += window as u64;
    }
    while replies < requests {
        poll.poll(&mut events, None)?;
        for event in &events {
            let c = &mut all[event.token().0];
            c.send(&batch)?;
            // Edge-triggered: read until the socket is empty.
            loop {
                match c.stream.read(&mut buf) {
                    Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                    Ok(n) => {
                        let lines = buf[..n].iter().filter(|&&b| b == b'\n').count();
                        c.awaited -= lines.min(c.awaited);
                        replies += lines as u64;
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e),
                }
            }
            if c.awaited == 0 && sent < requests {
                c.written = 0;
                c.awaited = window;
                sent += window as u64;
                c.send(&batch)?;
            }
        }
    }
    println!(
        "{{\"requests\": {replies}, \"seconds\": {:.6}}}",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
