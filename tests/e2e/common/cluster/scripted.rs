//! A scripted cluster node, for what a real Redis Cluster cannot be made to do
//! on demand: a `CLUSTER SLOTS` reply naming a node that refuses or ranges
//! that overlap, two nodes whose MOVED point at each other, a node that
//! refuses `ASKING`. It speaks as Redis 6 does: `CLUSTER SHARDS` is unknown,
//! so kvbench asks `CLUSTER SLOTS` next on the same connection.

use std::io::{self, Write};
use std::net::TcpStream;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};

use super::super::scripted_server::{Next, Script, ScriptedServer};

/// What a node answers to a GET or SET.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Data {
    /// `+OK` to SET, `$-1` to GET: it serves the key.
    Serve,
    /// `-MOVED <slot> 127.0.0.1:<to>`.
    Moved,
    /// `-ASK <slot> 127.0.0.1:<to>`.
    Ask,
}

/// One scripted node; `to` and `slots` may be set after it starts (its own
/// port and its peers' are known only then).
pub struct Node {
    /// The `CLUSTER SLOTS` ranges: `(start, end, port on 127.0.0.1)`.
    pub slots: Mutex<Vec<(u16, u16, u16)>>,
    /// What GET and SET get.
    pub data: Data,
    /// The port its redirects name.
    pub to: AtomicU16,
    /// Answers `ASKING` with an error instead of `+OK`.
    pub refuses_asking: bool,
    /// GETs and SETs it received.
    pub requests: AtomicU64,
    /// `ASKING`s it received.
    pub asking: AtomicU64,
}

impl Node {
    pub fn new(data: Data) -> Node {
        Node {
            slots: Mutex::new(Vec::new()),
            data,
            to: AtomicU16::new(0),
            refuses_asking: false,
            requests: AtomicU64::new(0),
            asking: AtomicU64::new(0),
        }
    }

    /// Starts `node`, its slots being `slots` with port 0 standing for its own.
    pub fn spawn(node: Node, slots: &[(u16, u16, u16)]) -> ScriptedServer<Node> {
        let server = ScriptedServer::spawn(node);
        let own = server.port;
        let resolved = slots
            .iter()
            .map(|&(s, e, p)| (s, e, if p == 0 { own } else { p }))
            .collect();
        *server.script().slots.lock().unwrap() = resolved;
        server
    }

    fn cluster_slots(&self) -> String {
        let slots = self.slots.lock().unwrap();
        let mut reply = format!("*{}\r\n", slots.len());
        for (i, (start, end, port)) in slots.iter().enumerate() {
            let id = format!("{:040}", u64::from(*port) * 1000 + i as u64);
            reply.push_str(&format!(
                "*3\r\n:{start}\r\n:{end}\r\n*3\r\n$9\r\n127.0.0.1\r\n:{port}\r\n$40\r\n{id}\r\n"
            ));
        }
        reply
    }
}

impl Script for Node {
    /// CLUSTER requests on the connection: SHARDS first, then SLOTS.
    type Connection = u64;

    fn answer(
        &self,
        stream: &mut TcpStream,
        name: Option<&[u8]>,
        cluster_requests: &mut u64,
    ) -> io::Result<Next> {
        let to = self.to.load(Ordering::SeqCst);
        let reply = match name.unwrap_or_default() {
            b"PING" => "+PONG\r\n".to_string(),
            b"CLUSTER" => {
                *cluster_requests += 1;
                if *cluster_requests % 2 == 1 {
                    "-ERR unknown subcommand 'SHARDS'. Try CLUSTER HELP.\r\n".to_string()
                } else {
                    self.cluster_slots()
                }
            }
            b"ASKING" => {
                self.asking.fetch_add(1, Ordering::SeqCst);
                if self.refuses_asking {
                    "-ERR ASKING is not allowed on this node\r\n".to_string()
                } else {
                    "+OK\r\n".to_string()
                }
            }
            command @ (b"GET" | b"SET") => {
                self.requests.fetch_add(1, Ordering::SeqCst);
                match (self.data, command) {
                    (Data::Serve, b"GET") => "$-1\r\n".to_string(),
                    (Data::Serve, _) => "+OK\r\n".to_string(),
                    (Data::Moved, _) => format!("-MOVED 1 127.0.0.1:{to}\r\n"),
                    (Data::Ask, _) => format!("-ASK 1 127.0.0.1:{to}\r\n"),
                }
            }
            _ => "-ERR unknown command\r\n".to_string(),
        };
        stream.write_all(reply.as_bytes())?;
        Ok(Next::KeepReading)
    }
}
