//! The master side of a benchmark: the thread that validates the target with a
//! preflight connection, spawns and places the workers ([`crew`],
//! [`placement`]), runs the schedule of phases ([`run`]) or of a sweep's cells
//! ([`sweep`]), decides when a warm-up has settled ([`warmup`]), reads the
//! server's own evidence over a control connection ([`server`]) and the
//! components behind it ([`watch`]), measures this machine ([`host`],
//! [`sysinfo`]), prints the ramp-up's staircase ([`ramp`]), reads imported
//! data back ([`verify`]), and produces the result data ([`results`]) and the
//! live events ([`sink`]). [`advice`] is what a failure to connect is told.

pub mod advice;
pub mod crew;
pub mod host;
pub mod placement;
pub mod ramp;
pub mod results;
pub mod run;
pub mod server;
pub mod sink;
pub mod sweep;
pub mod sysinfo;
pub mod verify;
pub mod warmup;
pub mod watch;
