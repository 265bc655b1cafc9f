//! Running a benchmark: the master, the worker threads, their connections and
//! clients, cluster routing, timers, placement, the control connection, and the
//! result data and live events they produce (outputs observe them from `report`),
//! the advice a failure to connect gets ([`advice`]), and the read-back of
//! imported data ([`verify`]).

pub mod advice;
pub mod client;
pub mod client_stats;
pub mod cluster;
pub mod conn;
pub mod crew;
pub mod host;
pub mod interrupt;
pub mod net;
pub mod placement;
pub mod ramp;
pub mod reactor;
pub mod request;
pub mod results;
pub mod retry;
pub mod run;
pub mod schedule;
pub mod server;
pub mod sink;
pub mod stats;
pub mod sweep;
pub mod sysinfo;
pub mod timer;
pub mod verify;
pub mod warmup;
pub mod watch;
pub mod worker;
