//! A sub-millisecond wake-up for the event loop: a Linux `timerfd` registered
//! with mio.
//!
//! mio's poll timeout has millisecond resolution, too coarse for an open-loop
//! schedule at thousands of requests per second per thread. A timerfd fires at
//! the nanosecond-resolution instant it is armed for and wakes `epoll` like any
//! socket, so the worker sleeps until exactly the next intended send time without
//! spinning. Timer slack (50 µs by default on Linux) does not apply to timerfd.
//!
//! Also here: the calling thread's CPU time, which tells whether a worker was
//! near saturation (a client-bound result).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

use mio::event::Source;
use mio::unix::SourceFd;
use mio::{Interest, Registry, Token};

/// A one-shot monotonic timer that wakes a mio `Poll`.
#[derive(Debug)]
pub struct Timer {
    fd: OwnedFd,
    armed_for: Option<Instant>,
}

impl Timer {
    /// A disarmed timer.
    pub fn new() -> io::Result<Timer> {
        // SAFETY: timerfd_create takes no pointers; a negative result is an error.
        let raw = unsafe {
            libc::timerfd_create(
                libc::CLOCK_MONOTONIC,
                libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
            )
        };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        Ok(Timer {
            fd,
            armed_for: None,
        })
    }

    /// The instant the timer is armed for, if any.
    pub fn armed_for(&self) -> Option<Instant> {
        self.armed_for
    }

    /// Arms the timer to fire at `at` (at once if `at` has passed). Re-arming for
    /// the instant it is already armed for costs no system call.
    pub fn arm(&mut self, at: Instant) -> io::Result<()> {
        if self.armed_for == Some(at) {
            return Ok(());
        }
        // Rust's Instant is CLOCK_MONOTONIC on Linux, so a relative arm from "now"
        // lands on `at` to within the few nanoseconds between the two readings.
        // A zero it_value would disarm the timer, hence the 1 ns floor.
        let delay = at
            .saturating_duration_since(Instant::now())
            .max(Duration::from_nanos(1));
        self.set(delay)?;
        self.armed_for = Some(at);
        Ok(())
    }

    /// Stops the timer.
    pub fn disarm(&mut self) -> io::Result<()> {
        self.armed_for = None;
        self.set(Duration::ZERO)
    }

    /// Consumes a pending expiration so that the next one is a new edge.
    pub fn clear(&mut self) {
        let mut expirations = [0u8; 8];
        // SAFETY: reads at most 8 bytes into a local 8-byte buffer. A WouldBlock
        // error (nothing pending) is expected and ignored.
        let _ = unsafe {
            libc::read(
                self.fd.as_raw_fd(),
                expirations.as_mut_ptr().cast(),
                expirations.len(),
            )
        };
        self.armed_for = None;
    }

    fn set(&self, delay: Duration) -> io::Result<()> {
        let spec = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: delay.as_secs() as libc::time_t,
                tv_nsec: delay.subsec_nanos() as libc::c_long,
            },
        };
        // SAFETY: `spec` is a valid itimerspec; the old-value pointer may be null.
        let rc =
            unsafe { libc::timerfd_settime(self.fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) };
        if rc < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }
}

impl Source for Timer {
    fn register(
        &mut self,
        registry: &Registry,
        token: Token,
        interests: Interest,
    ) -> io::Result<()> {
        SourceFd(&self.fd.as_raw_fd()).register(registry, token, interests)
    }

    fn reregister(
        &mut self,
        registry: &Registry,
        token: Token,
        interests: Interest,
    ) -> io::Result<()> {
        SourceFd(&self.fd.as_raw_fd()).reregister(registry, token, interests)
    }

    fn deregister(&mut self, registry: &Registry) -> io::Result<()> {
        SourceFd(&self.fd.as_raw_fd()).deregister(registry)
    }
}

/// CPU time (user + system) consumed by the calling thread so far; zero if the
/// clock cannot be read.
pub fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mio::{Events, Poll};

    #[test]
    fn wakes_the_poll_after_the_armed_instant_not_before() {
        let mut poll = Poll::new().unwrap();
        let mut timer = Timer::new().unwrap();
        poll.registry()
            .register(&mut timer, Token(7), Interest::READABLE)
            .unwrap();
        let mut events = Events::with_capacity(4);
        let at = Instant::now() + Duration::from_micros(2500);
        timer.arm(at).unwrap();
        let mut woke = false;
        while !woke {
            poll.poll(&mut events, Some(Duration::from_secs(5)))
                .unwrap();
            woke = events.iter().any(|e| e.token() == Token(7));
        }
        assert!(Instant::now() >= at, "fired early");
        timer.clear();
        assert_eq!(timer.armed_for(), None);
    }

    #[test]
    fn thread_cpu_time_grows_with_work_on_this_thread() {
        let before = thread_cpu_time();
        let mut x = 0u64;
        while thread_cpu_time() - before < Duration::from_millis(5) {
            x = x.wrapping_add(std::hint::black_box(1));
        }
        assert!(x > 0);
        assert!(thread_cpu_time() > before);
    }

    #[test]
    fn a_disarmed_timer_stays_quiet() {
        let mut poll = Poll::new().unwrap();
        let mut timer = Timer::new().unwrap();
        poll.registry()
            .register(&mut timer, Token(1), Interest::READABLE)
            .unwrap();
        timer
            .arm(Instant::now() + Duration::from_millis(1))
            .unwrap();
        timer.disarm().unwrap();
        let mut events = Events::with_capacity(4);
        poll.poll(&mut events, Some(Duration::from_millis(20)))
            .unwrap();
        assert!(events.is_empty());
    }
}
