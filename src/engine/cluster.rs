//! Redis Cluster: key slots with hash tags ([`slot`]), the slot map
//! ([`map`]), `-MOVED`/`-ASK` redirects ([`redirect`]), the topology of
//! masters and replicas ([`topology`]), reading it from a node before the
//! run ([`discover`]) and again on request during it ([`refresh`]), and how
//! fast each node answers for `--read-from nearest` ([`nearest`]). Routing
//! requests to one connection per node builds on these (docs/cluster.md).

pub mod discover;
pub mod map;
pub mod nearest;
pub mod redirect;
pub mod refresh;
pub mod slot;
pub mod topology;
