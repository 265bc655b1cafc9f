//! Running a benchmark, in two sides and what they share.
//!
//! - [`master`]: the thread that runs the benchmark ([`master::run`]): the
//!   preflight, the crew of workers it spawns and places on CPUs, the schedule
//!   of phases and sweeps, the warm-up's end, the control connection to the
//!   server and the watched components, this machine's load, the result data,
//!   the live [`master::sink::Sink`] events, and the advice a failure gets.
//! - [`worker`]: one worker thread ([`worker::Worker`]) and everything that runs
//!   on it: the reactor (epoll or io_uring) and its timer, the connections
//!   (opened and prepared by [`worker::net`]) and the clients that own them,
//!   what each sends next and when, retries, and `--client-stats`.
//!
//! A module stays directly here when both sides use it in the same way, so
//! that neither side reaches into the other for it: [`stats`] (the counters a
//! worker fills each second and the master adds up), [`cluster`] (the slot map
//! the master discovers and refreshes and every client routes by) and
//! [`interrupt`] (the signal the master catches and every worker polls). The
//! master uses the worker side (it spawns workers, and opens its own control
//! and preflight connections through [`worker::net`]); the worker side uses of
//! the master's only the messages it is sent (as [`master::warmup::EarlyEnd`]).

pub mod cluster;
pub mod interrupt;
pub mod master;
pub mod stats;
pub mod worker;
