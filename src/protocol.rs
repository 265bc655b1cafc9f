//! The wire protocols spoken to the server under test, one folder per family.
//!
//! Everything kvbench knows of a protocol lives here: its codec, how it
//! encodes the SET/GET pair, its handshake, what the control connection says
//! in it, and which settings it refuses. It is deliberately pure: nothing
//! here touches a socket or a clock, so the connection code can feed it
//! whatever the kernel delivered and the tests can feed it whatever a
//! hostile server might send. The blocking I/O that drives the handshake
//! and the control connection stays in [`crate::engine::worker::net`] and [`crate::engine::master::server`].
//!
//! - [`resp`]: RESP2 and RESP3 (`-P redis|resp2|resp3`).
//! - [`memcache`]: memcached's text, binary and meta protocols.
//!
//! [`wire::Protocol`] dispatches to them with a `match` per concern, each
//! naming every variant, so a new protocol is refused by the compiler until
//! every concern knows it (docs/design.md, "Protocols: one folder each"):
//! - [`wire`]: decoding a reply into a protocol-neutral [`wire::Outcome`],
//!   encoding the SET/GET pair;
//! - [`handshake`]: what a connection sends before its first request;
//! - [`control`]: the control connection's counters and commands;
//! - [`options`]: the settings a protocol refuses;
//! - [`sniff`]: what a server speaks, told from a reply in another protocol.
//!
//! Shared by all: [`decimal`] (a key's or a length's digits, appended
//! without a library call), [`error_kind`] (server error replies grouped by kind),
//! [`template`] (any `--command`, encoded once and filled per request; RESP,
//! refused by memcached), [`value`] (owned RESP replies for the control
//! connection and the cluster's slot map).

pub mod command;
pub mod control;
pub mod decimal;
pub mod error_kind;
pub mod handshake;
pub mod memcache;
pub mod options;
pub mod resp;
pub mod sniff;
pub mod template;
pub mod value;
pub mod wire;

#[cfg(test)]
mod wire_proptests;
