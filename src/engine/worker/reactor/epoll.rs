//! `--io-engine epoll`: mio's `Poll`, every connection registered
//! edge-triggered once, and a timerfd for the wake-ups finer than the
//! poll's millisecond timeout ([`crate::engine::worker::timer`]).

use std::io;
use std::time::{Duration, Instant};

use mio::{Events, Interest, Poll, Token};

use crate::engine::worker::net::Stream;
use crate::engine::worker::reactor::Readiness;
use crate::engine::worker::timer::Timer;

/// The timerfd's token, at the top of the token range, apart from connections.
const TIMER: Token = Token(usize::MAX);

/// mio's poll, its events and the timer.
pub struct Epoll {
    poll: Poll,
    events: Events,
    timer: Timer,
}

impl Epoll {
    /// A poll with room for events of `connections` connections.
    pub fn new(connections: usize) -> io::Result<Epoll> {
        let poll = Poll::new()?;
        let mut timer = Timer::new()?;
        poll.registry()
            .register(&mut timer, TIMER, Interest::READABLE)?;
        Ok(Epoll {
            poll,
            events: Events::with_capacity(connections.max(16)),
            timer,
        })
    }

    /// Registers `stream` as connection `index`: edge-triggered, never
    /// re-registered per request.
    pub fn attach(&self, mut stream: Stream, index: usize) -> io::Result<Stream> {
        self.poll.registry().register(
            &mut stream,
            Token(index),
            Interest::READABLE | Interest::WRITABLE,
        )?;
        Ok(stream)
    }

    /// Arms the timerfd for `at` (no system call when it is already armed
    /// for that instant, or when there is none and it is idle).
    pub fn wake_at(&mut self, at: Option<Instant>) {
        match at {
            Some(at) => {
                let _ = self.timer.arm(at);
            }
            None if self.timer.armed_for().is_some() => {
                let _ = self.timer.disarm();
            }
            None => {}
        }
    }

    /// Waits for readiness at most `timeout`.
    pub fn wait(&mut self, timeout: Duration, out: &mut Vec<Readiness>) -> io::Result<()> {
        // mio rounds the timeout up to whole milliseconds; sub-millisecond
        // wake-ups come from the timerfd instead.
        let timeout = timeout.max(Duration::from_millis(1));
        self.poll.poll(&mut self.events, Some(timeout))?;
        for event in self.events.iter() {
            if event.token() == TIMER {
                self.timer.clear();
                continue;
            }
            let closed = event.is_read_closed() || event.is_error();
            out.push(Readiness {
                index: event.token().0,
                writable: event.is_writable(),
                readable: event.is_readable() || closed,
                closed,
            });
        }
        Ok(())
    }
}
