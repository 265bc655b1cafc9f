//! Ctrl-C and SIGTERM: stop sending, drain, report what was measured, exit.
//!
//! The first SIGINT or SIGTERM only records which signal arrived; workers see it
//! at their next wake-up, stop sending, wait up to [`INTERRUPT_DRAIN`] for the
//! replies in flight, and report. The master then stops the schedule, and the
//! reports are written, marked interrupted, before kvbench exits with 128 + the
//! signal number (130, 143). A second signal of the same kind takes the default
//! action at once, for a user who does not want to wait.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::flag;

/// The stored value for a stop by the error budget rather than a signal.
const ABORTED: usize = usize::MAX;

/// How long in-flight replies are awaited after an interrupt.
pub const INTERRUPT_DRAIN: Duration = Duration::from_secs(1);

/// The handlers' flag, once installed: for blocking waits that hold no
/// [`Interrupt`] (the control connection's replies).
static INSTALLED: OnceLock<Interrupt> = OnceLock::new();

/// True once SIGINT or SIGTERM arrived (never before [`Interrupt::install`]).
pub fn signalled() -> bool {
    INSTALLED.get().is_some_and(|i| i.signal().is_some())
}

/// The signal that interrupted the run, shared with every worker; 0 while none.
#[derive(Debug, Clone, Default)]
pub struct Interrupt {
    signal: Arc<AtomicUsize>,
}

impl Interrupt {
    /// Installs the handlers for SIGINT and SIGTERM.
    pub fn install() -> io::Result<Interrupt> {
        let interrupt = Interrupt::default();
        for sig in [SIGINT, SIGTERM] {
            let seen = Arc::new(AtomicBool::new(false));
            // Registered first, so it acts on the second signal only: the first
            // one finds the flag still false.
            flag::register_conditional_default(sig, Arc::clone(&seen))?;
            flag::register(sig, seen)?;
            flag::register_usize(sig, Arc::clone(&interrupt.signal), sig as usize)?;
        }
        let _ = INSTALLED.set(interrupt.clone());
        Ok(interrupt)
    }

    /// True once the run must stop: a signal arrived or the error budget was
    /// spent. A relaxed load: workers poll this once per event-loop wake-up, not
    /// per request.
    #[inline]
    pub fn stop_requested(&self) -> bool {
        self.signal.load(Ordering::Relaxed) != 0
    }

    /// The signal number, once one arrived (not for an error-budget stop).
    pub fn signal(&self) -> Option<i32> {
        match self.signal.load(Ordering::Relaxed) {
            0 | ABORTED => None,
            sig => Some(sig as i32),
        }
    }

    /// True when `--max-errors` stopped the run.
    pub fn aborted(&self) -> bool {
        self.signal.load(Ordering::Relaxed) == ABORTED
    }

    /// Stops the run because `--max-errors` was exceeded; a signal that came
    /// first keeps precedence.
    pub fn abort(&self) {
        let _ = self
            .signal
            .compare_exchange(0, ABORTED, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Marks the run as interrupted by `sig` (for tests, and for a fatal error
    /// budget that stops the run the same way).
    pub fn raise(&self, sig: i32) {
        self.signal.store(sig as usize, Ordering::Relaxed);
    }

    /// The process exit code for an interrupted run: 128 + the signal.
    pub fn exit_code(sig: i32) -> u8 {
        (128 + sig).clamp(0, 255) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raising_is_seen_and_maps_to_shell_exit_codes() {
        let i = Interrupt::default();
        assert_eq!(i.signal(), None);
        i.clone().raise(SIGTERM);
        assert_eq!(i.signal(), Some(SIGTERM));
        assert_eq!(Interrupt::exit_code(SIGINT), 130);
        assert_eq!(Interrupt::exit_code(SIGTERM), 143);
    }

    #[test]
    fn an_error_budget_stop_is_not_a_signal() {
        let i = Interrupt::default();
        i.abort();
        assert!(i.stop_requested() && i.aborted());
        assert_eq!(i.signal(), None);
    }
}
