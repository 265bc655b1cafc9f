//! The crate's errors: why kvbench stopped, and what the user can do about it.
//!
//! # Which errors live here
//! An error type lives here when it crosses a module boundary on its way to
//! the user: `main` turns it into an exit code ([`UsageError`], [`RunError`],
//! [`OutputError`]), or one module raises it and another turns it into advice
//! ([`ConnectError`] and [`DiscoverError`], which
//! [`crate::engine::master::advice::connect_advice`] and
//! [`DiscoverError::into_run_error`] make into a [`RunError`] naming the flag
//! to change).
//!
//! This module is the bottom layer and imports nothing from the crate, so the
//! small errors that the ones here carry live here too, in their own files:
//! the slot map's [`MapError`] (in [`DiscoverError::Map`]), TLS's
//! [`TlsFailure`] (in [`ConnectError::Tls`]), and the typed report's
//! [`ModelError`]. The code that raises them stays with its module
//! (`engine::cluster::map`, `engine::worker::net`, `report::model`). [`note`] is the one
//! stderr printer, here so that every layer can use it, with [`terminal`]:
//! whether a stream is a terminal, its width, and prose wrapped to it.
//!
//! An error that is one module's own vocabulary stays next to the code that
//! raises it, so that the code and the words for its failures are read
//! together, and it never reaches `main` on its own:
//! - a codec's decode errors ([`crate::protocol::resp::DecodeError`],
//!   [`crate::protocol::wire::WireError`], memcached's text and binary ones),
//!   also for the handshake's and the control connection's replies, and
//!   [`crate::protocol::control::NoControlCommands`];
//! - a parser's rejection of one value, which its caller wraps into a
//!   [`UsageError`] with the flag: [`crate::protocol::command::CommandError`],
//!   [`crate::workload::keys::KeyPatternError`],
//!   [`crate::workload::values::SizeSpecError`], [`crate::config::target::UriError`],
//!   the command line's comma lists (`NumListError`) and suite test names
//!   ([`crate::protocol::command::suite::UnknownTest`]);
//! - a generator's refusal of parameters that `config` has already checked
//!   with the flag: [`crate::workload::keys::KeyGenError`].
//!
//! No function returns an error as a `String` (`make lint` checks it with
//! `scripts/check-errors.py`).
//!
//! # Messages
//! `Display` is what the user reads after `kvbench: error: ` (an output
//! error, after `kvbench: `, once per file that could not be written). A usage error
//! names the flag and the fix; a run error names the server and the advice;
//! an output error names the flag and the file. tests/cli_errors.rs and the
//! end-to-end tests assert on these texts, so a change to one is a change to
//! the command line's interface.
//!
//! # Exit codes
//! Only `main` exits, with the code of `tools::exit::Exit`, the one place
//! the policy is written: 2 for a [`UsageError`] (also inside
//! [`RunError::Usage`]), found before any connection opens or when the
//! server says the command line is wrong; 1 for any other [`RunError`] and
//! for an [`OutputError`]; 128 + the signal for [`RunError::Interrupted`].
//! Exit codes 3 (a result that is not valid) and 4 (a shard that started too
//! late) come from a finished run's verdict and timing, not from an error,
//! except a [`BarrierError::Timeout`] and a [`BarrierError::Shares`] (a
//! fleet capacity search whose shard posted nothing), which are 4 as well.

use std::io;
use std::path::PathBuf;

use hdrhistogram::errors::CreationError;

mod barrier;
mod report;
mod say;
mod slot_map;
pub mod terminal;
mod tls;

pub use barrier::BarrierError;
pub use report::ModelError;
pub use say::note;
pub use slot_map::{MapError, describe_ranges};
pub use tls::TlsFailure;

/// A mistake the user can fix: which flag, what is wrong, what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{flag}: {message}")]
pub struct UsageError {
    /// The flag (or config key) at fault, as the user would type it.
    pub flag: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl UsageError {
    /// Shorthand used throughout validation.
    pub fn new(flag: &str, message: impl Into<String>) -> Self {
        UsageError {
            flag: flag.to_string(),
            message: message.into(),
        }
    }
}

/// Why a benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Something the user can fix (exit code 2).
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// This machine could not set up (the event loop, a timer, a socket's
    /// registration): a limit of this machine, so no advice about the server.
    #[error(
        "{0}; this is a limit of this machine, not of the server: check the open-file limit (ulimit -n) and the kernel's limits on epoll instances and timers"
    )]
    ThisMachine(ConnectError),
    /// The connection to a cluster node broke while its topology was read:
    /// nothing the user typed is at fault.
    #[error(transparent)]
    Topology(DiscoverError),
    /// A worker thread could not be started.
    #[error("cannot start worker thread {thread}: {source}")]
    Spawn {
        /// The worker's index.
        thread: usize,
        /// What the OS said.
        source: io::Error,
    },
    /// A worker thread ended before its connections were ready.
    #[error("a worker thread ended during setup")]
    WorkerLost,
    /// The run's histograms could not be created.
    #[error("cannot create histograms: {0}")]
    Histograms(CreationError),
    /// `--start-at barrier` did not open (exit code 4 on its timeout).
    #[error(transparent)]
    Barrier(#[from] BarrierError),
    /// A signal arrived before anything was measured (exit code 128 + the
    /// signal); the failure it caused (`EINTR`) is no error.
    #[error("interrupted {0}")]
    Interrupted(Before),
}

/// What a signal that came before anything was measured interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Before {
    /// Connecting, or the handshake.
    Connecting,
    /// The wait for `--start-at`'s planned start.
    Start,
}

impl std::fmt::Display for Before {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Before::Connecting => "while connecting",
            Before::Start => "while waiting for the planned start (--start-at)",
        })
    }
}

/// Why a connection could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The name did not resolve to a usable address.
    #[error("cannot resolve {0}")]
    Resolve(String),
    /// connect() or the handshake's I/O failed.
    #[error("cannot connect to {endpoint}: {source}")]
    Io {
        /// Where we tried to connect.
        endpoint: String,
        /// What the OS said.
        source: io::Error,
    },
    /// The server refused the credentials.
    #[error("authentication failed: {0}")]
    Auth(String),
    /// The server wants credentials and none were given.
    #[error("the server requires a password: {0}")]
    AuthRequired(String),
    /// SELECT failed.
    #[error("SELECT failed: {0}")]
    Select(String),
    /// `-P resp2|resp3`: the server refused `HELLO` (a server before 6.0, or
    /// a proxy that does not speak it).
    #[error("the server refused HELLO: {0}")]
    HelloRefused(String),
    /// Any other error reply during the handshake (e.g. max clients reached).
    #[error("the server refused the connection: {0}")]
    Refused(String),
    /// `--tls`: the TLS handshake failed (a certificate, a name, a client
    /// certificate the server wants, a port that speaks no TLS).
    #[error("TLS with {endpoint} failed: {}", failure.message)]
    Tls {
        /// Where we tried to connect.
        endpoint: String,
        /// The flag to change, and how.
        failure: TlsFailure,
    },
    /// The server sent something that is not RESP.
    #[error("the server's handshake reply is not RESP: {0}")]
    Protocol(String),
    /// Something on this machine failed before any connection was involved
    /// (creating the event loop, the timer, registering a socket).
    #[error("cannot create {what} on this machine: {source}")]
    Local {
        /// What could not be created.
        what: &'static str,
        /// What the OS said.
        source: io::Error,
    },
    /// `--cluster-mode`: a node the seed's slot map named (not the seed
    /// itself) could not be connected to or prepared.
    #[error("the cluster node {node}: {source}")]
    ClusterNode {
        /// Its `host:port`, as the slot map names it.
        node: String,
        /// What went wrong there.
        source: Box<ConnectError>,
    },
    /// `--read-server`: the read endpoint could not be connected to or
    /// prepared.
    #[error("the read server {node}: {source}")]
    ReadServer {
        /// Its `host:port`, as `--read-server` gave it.
        node: String,
        /// What went wrong there.
        source: Box<ConnectError>,
    },
    /// The connect or the handshake took longer than `--connection-timeout`
    /// (the OS says "Resource temporarily unavailable", which names no cause).
    #[error(
        "{endpoint} did not connect and answer the handshake within --connection-timeout {secs} s"
    )]
    TimedOut {
        /// Where we tried to connect.
        endpoint: String,
        /// `--connection-timeout`, seconds.
        secs: f64,
    },
}

/// Why the topology could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    /// The node could not be reached or refused the handshake.
    #[error(transparent)]
    Connect(#[from] ConnectError),
    /// The node runs with `cluster-enabled no`.
    #[error(
        "{endpoint} is not a cluster node (it answers \"{reply}\"); drop --cluster-mode, or point --server/--port at a node of a Redis Cluster"
    )]
    NotCluster {
        /// The node asked.
        endpoint: String,
        /// Its error reply.
        reply: String,
    },
    /// The reply could not be used, or slots have no master.
    #[error("the cluster seen from {endpoint} cannot be benchmarked: {source}")]
    Map {
        /// The node asked.
        endpoint: String,
        /// What is wrong with its map.
        source: MapError,
    },
    /// Any other error reply (an ACL that forbids CLUSTER, for one).
    #[error("{endpoint} refused {command}: {reply}")]
    Refused {
        /// The node asked.
        endpoint: String,
        /// `CLUSTER SHARDS` or `CLUSTER SLOTS`.
        command: &'static str,
        /// Its error reply.
        reply: String,
    },
    /// The connection failed while asking.
    #[error("reading the cluster's topology from {endpoint} failed: {source}")]
    Io {
        /// The node asked.
        endpoint: String,
        /// What the OS said.
        source: io::Error,
    },
}

/// A report that could not be written: which output, which file, and why.
/// The run's measurements are not lost with it (each output is attempted
/// whatever became of the others); the exit code is 1.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The file (or stdout) could not be opened, written or renamed into place.
    #[error("cannot write {what}{}: {source}", shown(path))]
    Write {
        /// What was being written: the flag that names the file
        /// (`--json-out-file`), or `the report` for stdout.
        what: &'static str,
        /// The file, when the message names it.
        path: Option<PathBuf>,
        /// What the OS said.
        source: io::Error,
    },
    /// The JSON report could not be encoded.
    #[error("cannot encode the JSON report: {0}")]
    Encode(serde_json::Error),
}

/// ` PATH` when there is a path to name, else nothing.
fn shown(path: &Option<PathBuf>) -> String {
    path.as_ref()
        .map(|p| format!(" {}", p.display()))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::path::PathBuf;

    use super::OutputError;

    #[test]
    fn an_output_error_names_the_flag_and_the_file_when_there_is_one() {
        let denied = || io::Error::from(io::ErrorKind::PermissionDenied);
        let file = OutputError::Write {
            what: "--json-out-file",
            path: Some(PathBuf::from("/tmp/r.json")),
            source: denied(),
        };
        assert_eq!(
            file.to_string(),
            format!("cannot write --json-out-file /tmp/r.json: {}", denied())
        );
        let stdout = OutputError::Write {
            what: "the report",
            path: None,
            source: denied(),
        };
        assert_eq!(
            stdout.to_string(),
            format!("cannot write the report: {}", denied())
        );
    }
}
