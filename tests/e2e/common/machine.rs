//! Turns on the machine for the tests that measure speed. Every test of the
//! suite runs in this one process, in parallel threads; a test that compares
//! rates or latencies against a bound must not have another test's
//! redis-server and kvbench taking the CPU its run is measured on.
//!
//! Every server this module's siblings start ([`Redis`](super::Redis),
//! [`Cluster`](super::cluster::Cluster), memcached, TLS and scripted servers,
//! network namespaces, Slurm) holds a [`Share`] for as long as it lives: that
//! is where the load comes from. A test that measures takes [`alone`] first,
//! before it starts any server; it waits until no server of another test is
//! left, and holds the others' new servers off until it ends. The servers it
//! starts itself pass freely.
//!
//! A share waits only while the turn is held, never behind a turn that is
//! still waiting: a test holding a share may be waiting on another test that
//! is about to take its first (a fixture behind a `OnceLock`), and a share
//! queued behind the waiting turn would then wait on the turn, which waits on
//! the first test's share: a deadlock. A waiting turn gets the machine at the
//! first moment no share is held; tests waiting for the turn hold none, so
//! that moment comes as they gather.

use std::cell::Cell;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Who holds the machine now.
struct State {
    /// Shares held, over all threads.
    shares: usize,
    /// Whether the exclusive turn is held.
    alone: bool,
}

static STATE: Mutex<State> = Mutex::new(State {
    shares: 0,
    alone: false,
});

/// Signalled whenever a share or the turn ends.
static CHANGED: Condvar = Condvar::new();

thread_local! {
    /// Shares taken on this thread and not yet dropped.
    static SHARES_HERE: Cell<usize> = const { Cell::new(0) };
    /// Whether this thread holds the exclusive turn.
    static ALONE_HERE: Cell<bool> = const { Cell::new(false) };
}

/// A test that panicked while holding the lock does not fail the others: the
/// state is updated in full before anything can panic.
fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Part of the machine, for a server or a test that loads it without
/// measuring speed; released on drop.
#[must_use = "the share ends when dropped"]
pub struct Share {
    /// False for a share taken inside the exclusive turn: it counts nothing.
    counted: bool,
}

/// Takes a share, waiting while a test that measures has the machine.
pub fn share() -> Share {
    if ALONE_HERE.get() {
        return Share { counted: false };
    }
    let mut state = state();
    while state.alone {
        state = CHANGED.wait(state).unwrap_or_else(PoisonError::into_inner);
    }
    state.shares += 1;
    SHARES_HERE.set(SHARES_HERE.get() + 1);
    Share { counted: true }
}

impl Drop for Share {
    fn drop(&mut self) {
        if !self.counted {
            return;
        }
        state().shares -= 1;
        // A server may be dropped on another thread than the one that
        // started it: this thread's count then has nothing to give back.
        SHARES_HERE.set(SHARES_HERE.get().saturating_sub(1));
        CHANGED.notify_all();
    }
}

/// The whole machine, for a test that measures speed; released on drop.
#[must_use = "the turn ends when dropped"]
pub struct Alone(());

/// Waits until no other test holds a share or the turn, then holds new
/// shares off. Panics when this thread already holds a share: it would wait
/// for itself forever.
pub fn alone() -> Alone {
    assert_eq!(
        SHARES_HERE.get(),
        0,
        "take machine::alone() before starting any server"
    );
    let mut state = state();
    while state.alone || state.shares > 0 {
        state = CHANGED.wait(state).unwrap_or_else(PoisonError::into_inner);
    }
    state.alone = true;
    ALONE_HERE.set(true);
    Alone(())
}

impl Drop for Alone {
    fn drop(&mut self) {
        state().alone = false;
        ALONE_HERE.set(false);
        CHANGED.notify_all();
    }
}
