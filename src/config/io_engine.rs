//! `--io-engine` validated: what the ring does not carry yet is refused
//! (the engines themselves are [`IoEngine`], the reactors
//! `crate::engine::worker::reactor`).

pub use crate::cli::IoEngine;
use crate::config::target::Target;
use crate::error::UsageError;

/// The engine asked for, refused when the target needs what the ring does
/// not carry (whether the kernel gives a ring is the engine's to ask, before
/// any connection opens).
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
    Ok(engine)
}
