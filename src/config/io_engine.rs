//! `--io-engine`: how a worker drives its sockets, epoll readiness (the
//! default) or an io_uring ring, and what the ring does not carry yet.

use clap::ValueEnum;
use serde::{Deserialize, Serialize};

use crate::config::target::Target;
use crate::error::UsageError;

/// How a worker thread drives its connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IoEngine {
    /// mio over epoll: readiness, then one read and one write system call
    /// per connection and wake-up.
    #[default]
    Epoll,
    /// io_uring: every connection's sends and multishot receives batched
    /// into one system call per wake-up (Linux 6.0 or later; plain TCP and
    /// UNIX sockets, no TLS yet).
    Uring,
}

impl IoEngine {
    /// The name `--io-engine` takes and the report shows.
    pub fn name(self) -> &'static str {
        match self {
            IoEngine::Epoll => "epoll",
            IoEngine::Uring => "uring",
        }
    }
}

/// The engine asked for, refused before any connection opens when the
/// target needs what the ring does not carry or the kernel refuses io_uring.
pub(super) fn build_io_engine(
    asked: Option<IoEngine>,
    target: &Target,
) -> Result<IoEngine, UsageError> {
    let engine = asked.unwrap_or_default();
    if engine != IoEngine::Uring {
        return Ok(engine);
    }
    if target.tls.is_some() {
        return Err(UsageError::new(
            "--io-engine",
            "uring does not carry TLS yet; use --io-engine epoll with --tls",
        ));
    }
    if let Err(why) = crate::engine::reactor::uring_available() {
        return Err(UsageError::new(
            "--io-engine",
            format!("uring: this kernel refuses io_uring ({why}); use --io-engine epoll"),
        ));
    }
    Ok(engine)
}
