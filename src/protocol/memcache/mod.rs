//! memcached, and everything kvbench knows of it: `-P memcache_text` and
//! `memcache_binary`.
//!
//! - [`text`] / [`binary`]: the two codecs (request encoders, stateless
//!   decoders answering `Ok(None)` while a reply is incomplete).
//! - [`outcome`]: a reply or response as the counters read it.
//! - [`handshake`]: nothing for text; SASL `PLAIN` for binary with `-a`.
//! - [`control`]: the control connection's `stats`.
//! - [`options`]: the settings memcached refuses, and its key limits.

pub mod binary;
pub mod control;
pub mod handshake;
pub mod options;
pub mod outcome;
pub mod text;
