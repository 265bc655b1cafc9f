//! The wire protocol spoken to the server under test.
//!
//! This module owns everything that turns commands into bytes and bytes into
//! replies. It is deliberately pure: nothing here touches a socket or a clock,
//! so the connection code can feed it whatever the kernel delivered and the
//! tests can feed it whatever a hostile server might send.
//!
//! - [`resp`] / [`resp3`]: RESP2 and the types RESP3 adds, one stateless decoder;
//!   [`error_kind`]: server error replies grouped by kind, for every protocol.
//! - [`template`]: any command, encoded once and filled per request.
//! - [`memcache_text`] / [`memcache_binary`]: memcached's two protocols.
//! - [`value`]: owned replies for the control connection.
//! - [`wire`]: the run's [`wire::Protocol`] and the decoder of each, every
//!   reply reduced to a protocol-neutral [`wire::Outcome`].

pub mod error_kind;
pub mod memcache_binary;
pub mod memcache_text;
pub mod resp;
pub mod resp3;
pub mod template;
pub mod value;
pub mod wire;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod resp3_proptests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod wire_proptests;
