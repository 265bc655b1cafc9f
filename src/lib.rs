//! kvbench: a load generator for Redis-protocol servers, with memtier_benchmark's
//! command line and reports that existing dashboards read, built so that its
//! numbers can be trusted.
//!
//! # Layout
//! - [`cli`]: what the user typed (clap), also the shape of a `--config` file.
//! - [`config`]: the validated [`config::Config`]; every usage error names its flag.
//! - [`target`]: server address, credentials (redacted everywhere), URI parsing.
//! - [`protocol`]: pure RESP codec: encode requests, decode replies (`Ok(None)` = incomplete).
//! - [`workload`]: SET:GET mix, key patterns, value sizes; generators take `&mut impl Rng`.
//! - [`request`]: one connection's request stream for a phase, and seed derivation.
//! - [`net`]: blocking connect and handshake (AUTH, SELECT, PING) before any clock starts.
//! - [`conn`]: one connection: buffers, the queue of requests in flight, per-reply timing.
//! - [`worker`]: one thread: mio `Poll`, its connections, per-second reports to the master.
//! - [`run`]: the master: preflight, spawning and pinning, phases (warm-up, runs) on barriers.
//! - [`stats`]: per-op counters and HdrHistograms merged with `+=`; per-second series.
//! - [`results`]: finished phases, best/worst/aggregate views.
//! - [`report`]: text and JSON exporters behind one trait, progress line, atomic writes.

pub mod cli;
pub mod compare;
pub mod config;
pub mod conn;
pub mod crew;
pub mod interrupt;
pub mod net;
pub mod protocol;
pub mod report;
pub mod request;
pub mod results;
pub mod run;
pub mod schedule;
pub mod server;
pub mod stats;
pub mod sweep;
pub mod sysinfo;
pub mod target;
pub mod timer;
pub mod variance;
pub mod warnings;
pub mod worker;
pub mod workload;
