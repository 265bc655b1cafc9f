//! redis-benchmark's `-I`: open `-c` connections (each through the same
//! handshake as a benchmark connection: TLS, AUTH, SELECT, HELLO), send
//! nothing more, and wait. redis-benchmark waits until killed; kvbench waits
//! [`IdlePlan::wait`] (`--test-time`, or 60 s) or until SIGINT/SIGTERM, so a
//! script's `-I` ends by itself.

use std::time::{Duration, Instant};

use crate::config::suite::IdlePlan;
use crate::engine::interrupt::Interrupt;
use crate::engine::master::advice::connect_advice;
use crate::engine::worker::net::{self, BlockingStream};
use crate::error::RunError;

/// How often the wait looks at the interrupt flag: a signal ends it this soon.
const POLL: Duration = Duration::from_millis(50);

/// Opens the connections, holds them for the plan's wait (or until
/// interrupted) and closes them; returns how many were held.
pub fn run(plan: &IdlePlan, interrupt: &Interrupt) -> Result<usize, RunError> {
    let target = &plan.config.target;
    let mut held: Vec<BlockingStream> = Vec::with_capacity(plan.connections);
    for _ in 0..plan.connections {
        if interrupt.stop_requested() {
            return Ok(held.len());
        }
        let (stream, _) =
            net::connect_blocking(target).map_err(|e| connect_advice(e, &target.endpoint))?;
        held.push(stream);
    }
    let until = Instant::now() + plan.wait;
    while !interrupt.stop_requested() {
        let now = Instant::now();
        if now >= until {
            break;
        }
        std::thread::sleep(POLL.min(until - now));
    }
    Ok(held.len())
}
