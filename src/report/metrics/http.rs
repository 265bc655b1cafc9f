//! The `/metrics` endpoint: a small HTTP/1.1 server on its own thread,
//! serving the text the master published last, to many clients at once
//! within fixed limits, so that no client can hold it up for another.
//!
//! - [`respond`]: the answer to a request head, a pure function.
//! - [`exchange`]: one connection's steps (read the head, answer,
//!   half-close, drain), over any non-blocking stream.
//! - [`server`]: the mio event loop, its table of connections, the
//!   [`LIMITS`] and their deadlines.
//!
//! Nothing here runs on a worker, nor renders anything: the master swaps in
//! new text once a second and a request only clones an `Arc` under the lock.

pub mod exchange;
pub mod respond;
pub mod server;

#[cfg(test)]
mod tests;

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};

pub use server::{LIMITS, Limits};

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

/// Serves `published` on `listener` within `limits` from a new thread,
/// until the process ends.
pub fn spawn(listener: TcpListener, published: Shared, limits: Limits) -> io::Result<()> {
    let server = server::Server::new(listener, published, limits)?;
    std::thread::Builder::new()
        .name("kvbench-metrics".into())
        .spawn(move || server.run())
        .map(|_| ())
}
