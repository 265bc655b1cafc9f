//! Redis Cluster, the pure parts: key slots with hash tags ([`slot`]), the
//! slot map read from `CLUSTER SLOTS` ([`map`]) and `-MOVED`/`-ASK`
//! redirects ([`redirect`]). Routing requests to one connection per node
//! builds on these (see docs/commands.md).

pub mod map;
pub mod redirect;
pub mod slot;
pub mod topology;
