//! memcached, and everything kvbench knows of it: `-P memcache_text`,
//! `memcache_binary` and `memcache_meta`.
//!
//! - [`text`] / [`binary`] / [`meta`]: the three codecs (request encoders,
//!   stateless decoders answering `Ok(None)` while a reply is incomplete).
//! - [`outcome`]: a reply or response as the counters read it.
//! - [`handshake`]: nothing for text and meta; SASL `PLAIN` for binary with `-a`.
//! - [`control`]: the control connection's `stats`.
//! - [`options`]: the settings memcached refuses, and its key limits.

pub mod binary;
pub mod control;
pub mod handshake;
pub mod meta;
#[cfg(test)]
mod meta_proptests;
#[cfg(test)]
mod meta_tests;
pub mod options;
pub mod outcome;
pub mod text;
