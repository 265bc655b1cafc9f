//! The master's way to end a phase before its deadline: a flag every worker
//! reads at each wake-up, as it reads the interrupt, set when `--warmup-time
//! auto` found the warm-up steady and cleared before each phase starts.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Shared between the master and every worker.
#[derive(Debug, Clone, Default)]
pub struct EarlyEnd {
    requested: Arc<AtomicBool>,
}

impl EarlyEnd {
    /// The phase is to stop sending now and drain as at its deadline.
    pub fn request(&self) {
        self.requested.store(true, Ordering::Relaxed);
    }

    /// Before a phase starts (no worker is in a phase then).
    pub fn clear(&self) {
        self.requested.store(false, Ordering::Relaxed);
    }

    /// A relaxed load, polled once per event-loop wake-up, not per request.
    #[inline]
    pub fn requested(&self) -> bool {
        self.requested.load(Ordering::Relaxed)
    }
}
