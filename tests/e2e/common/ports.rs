//! Ports for the suite's servers, handed out once per process. Every test of
//! the suite runs in this one process, in parallel threads: a port probed free
//! for one test must not be handed to another before the first has bound it,
//! and a port given to a test as one nobody listens on must not become another
//! test's listener. The cluster's port pairs and Slurm's ports go through
//! [`hand_out`] too.

use std::net::TcpListener;
use std::sync::{Mutex, PoisonError};

/// Ports handed out in this process.
static HANDED_OUT: Mutex<Vec<u16>> = Mutex::new(Vec::new());

/// Records `port` as handed out; false when it already was.
pub fn hand_out(port: u16) -> bool {
    let mut taken = HANDED_OUT.lock().unwrap_or_else(PoisonError::into_inner);
    if taken.contains(&port) {
        return false;
    }
    taken.push(port);
    true
}

/// A loopback port nobody listens on right now, never handed out before in
/// this process.
pub fn free_port() -> u16 {
    loop {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral loopback port");
        let port = listener.local_addr().unwrap().port();
        if hand_out(port) {
            return port;
        }
    }
}

/// A listener on a loopback port never handed out before in this process, so
/// that a port another test was given as one nobody listens on stays that way.
pub fn listen() -> TcpListener {
    loop {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral loopback port");
        if hand_out(listener.local_addr().unwrap().port()) {
            return listener;
        }
    }
}
