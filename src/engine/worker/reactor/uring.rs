//! `--io-engine uring`: one io_uring ring per worker. Each wait submits, in
//! one system call, every connection's pending send and any receive that
//! must be armed, then waits for the first completion or the next wake-up
//! (the timeout is the ring's, no timerfd). Receives are multishot and pick
//! from the worker's provided buffers ([`bufs`]): one armed receive per
//! connection for its life. A completion's bytes go to the connection's
//! [`RingSocket`](crate::engine::worker::net::RingSocket), which its connection then reads as it would a socket.
//!
//! A connection's socket sits in the ring's file table at the connection's
//! index (registered files: no descriptor lookup per operation), replaced
//! when it reconnects and cleared when it closes, so that the table never
//! holds a closed socket open.
//!
//! Every operation carries its connection's index, the generation of the
//! socket it was submitted for (a reconnect starts a new one; completions of
//! the old are dropped) and its kind. A send's bytes belong to the ring's
//! slot until it completes, so nothing the kernel reads is freed or moved
//! under it.

pub mod bufs;

use std::io;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

use io_uring::{IoUring, cqueue, opcode, squeue, types};

use crate::engine::worker::conn::{Conn, ConnState};
use crate::engine::worker::net::{RingEnd, Stream};
use crate::engine::worker::reactor::Readiness;
use bufs::BufRing;

/// Each provided buffer's size: a few replies of a pipeline, or a slice
/// of a large one (which then takes several).
const BUFFER_SIZE: usize = 16 * 1024;

const RECV: u64 = 1;
const SEND: u64 = 2;
const POLL: u64 = 3;

const READ: u8 = 1;
const WRITE: u8 = 2;
const CLOSED: u8 = 4;

fn user_data(index: usize, generation: u32, kind: u64) -> u64 {
    ((index as u64) << 32) | (u64::from(generation & 0xFF_FFFF) << 8) | kind
}

fn decode(data: u64) -> (usize, u32, u64) {
    (
        (data >> 32) as usize,
        ((data >> 8) & 0xFF_FFFF) as u32,
        data & 0xFF,
    )
}

/// What the ring knows of one connection.
#[derive(Debug, Default)]
struct Slot {
    /// The generation of its current socket.
    generation: u32,
    recv_armed: bool,
    poll_armed: bool,
    send_busy: bool,
    /// The generation the send in flight was for.
    send_generation: u32,
    /// Bytes handed to the kernel, the first `sent` of them sent.
    out: Vec<u8>,
    sent: usize,
    /// Its socket is in the ring's file table at its index.
    fixed: bool,
}

/// How an operation names its socket: by descriptor, or by its place in the
/// ring's file table (no descriptor lookup per operation).
#[derive(Debug, Clone, Copy)]
enum Sock {
    Fd(RawFd),
    Fixed(u32),
}

fn poll_out(s: Sock) -> squeue::Entry {
    let mask = libc::POLLOUT as u32;
    match s {
        Sock::Fd(fd) => opcode::PollAdd::new(types::Fd(fd), mask).build(),
        Sock::Fixed(i) => opcode::PollAdd::new(types::Fixed(i), mask).build(),
    }
}

fn recv_multi(s: Sock) -> squeue::Entry {
    match s {
        Sock::Fd(fd) => opcode::RecvMulti::new(types::Fd(fd), bufs::GROUP).build(),
        Sock::Fixed(i) => opcode::RecvMulti::new(types::Fixed(i), bufs::GROUP).build(),
    }
}

fn send(s: Sock, bytes: &[u8]) -> squeue::Entry {
    let (ptr, len) = (bytes.as_ptr(), bytes.len() as u32);
    match s {
        Sock::Fd(fd) => opcode::Send::new(types::Fd(fd), ptr, len)
            .flags(libc::MSG_NOSIGNAL)
            .build(),
        Sock::Fixed(i) => opcode::Send::new(types::Fixed(i), ptr, len)
            .flags(libc::MSG_NOSIGNAL)
            .build(),
    }
}

/// A worker's ring.
pub struct Uring {
    // Declared first, so dropped first: the kernel lets go of the buffers
    // before they are freed.
    ring: IoUring,
    bufs: BufRing,
    slots: Vec<Slot>,
    marks: Vec<u8>,
    hits: Vec<usize>,
    wake_at: Option<Instant>,
    /// Entries of the ring's file table (connections past it use their
    /// descriptor).
    files: u32,
}

/// Whether this kernel gives a ring with what the engine needs (multishot
/// receive, provided-buffer rings, the wait's timeout), and if not why.
///
/// The probe's ring lives and dies on a thread of its own: its teardown
/// notifies the thread that made it, which would interrupt (EINTR) a
/// blocking read with a timeout, such as the preflight's handshake.
pub fn uring_available() -> io::Result<()> {
    std::thread::spawn(probe)
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("the probe failed")))
}

fn probe() -> io::Result<()> {
    let missing = |what: &str| io::Error::new(io::ErrorKind::Unsupported, what.to_string());
    let ring = IoUring::new(8)?;
    let mut probe = io_uring::Probe::new();
    ring.submitter().register_probe(&mut probe)?;
    for (code, name) in [
        (opcode::RecvMulti::CODE, "no recv operation"),
        (opcode::Send::CODE, "no send operation"),
        (opcode::PollAdd::CODE, "no poll operation"),
    ] {
        if !probe.is_supported(code) {
            return Err(missing(name));
        }
    }
    if !ring.params().is_feature_ext_arg() {
        return Err(missing("no timeout on the wait (Linux 5.11)"));
    }
    BufRing::new(&ring, 2, 64)
        .map(drop)
        .map_err(|e| missing(&format!("no provided-buffer ring (Linux 5.19): {e}")))
}

impl Uring {
    /// A ring for about `connections` connections.
    pub fn new(connections: usize) -> io::Result<Uring> {
        let entries = (connections * 2).next_power_of_two().clamp(64, 4096) as u32;
        // One thread submits and reaps: the kernel then runs completion work
        // only when asked, in the wait (Linux 6.1); older kernels get a
        // plain ring.
        let ring = IoUring::builder()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .setup_cqsize(entries * 4)
            .build(entries)
            .or_else(|_| IoUring::builder().setup_cqsize(entries * 4).build(entries))?;
        let count = (connections * 2).next_power_of_two().clamp(64, 1024) as u16;
        let bufs = BufRing::new(&ring, count, BUFFER_SIZE)?;
        // A file table with room for every connection and its reconnects or
        // new nodes; a kernel without sparse tables (5.19) names descriptors.
        let files = (connections * 2).clamp(64, 65_536) as u32;
        let files = if ring.submitter().register_files_sparse(files).is_ok() {
            files
        } else {
            0
        };
        Ok(Uring {
            files,
            ring,
            bufs,
            slots: Vec::new(),
            marks: Vec::new(),
            hits: Vec::new(),
            wake_at: None,
        })
    }

    /// The next wake-up apart from the sockets.
    pub fn wake_at(&mut self, at: Option<Instant>) {
        self.wake_at = at;
    }

    /// Submits what every connection needs, waits for a completion at most
    /// `timeout` (or until the wake-up), and lists what happened.
    pub fn wait(
        &mut self,
        timeout: Duration,
        conns: &mut [Conn],
        out: &mut Vec<Readiness>,
    ) -> io::Result<()> {
        self.prepare(conns)?;
        let timeout = match self.wake_at {
            Some(at) => timeout.min(at.saturating_duration_since(Instant::now())),
            None => timeout,
        };
        let ts = types::Timespec::from(timeout);
        let args = types::SubmitArgs::new().timespec(&ts);
        match self.ring.submitter().submit_with_args(1, &args) {
            Ok(_) => {}
            // The timeout, a signal, or completions to reap first.
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::ETIME | libc::EINTR | libc::EBUSY | libc::EAGAIN)
                ) => {}
            Err(e) => return Err(e),
        }
        self.reap(conns, out);
        Ok(())
    }

    /// Arms what each connection needs: a poll for a connect, a receive,
    /// and a send of what it wrote since its last one completed.
    fn prepare(&mut self, conns: &mut [Conn]) -> io::Result<()> {
        if self.slots.len() < conns.len() {
            self.slots.resize_with(conns.len(), Slot::default);
            self.marks.resize(conns.len(), 0);
        }
        let Uring {
            ring, slots, files, ..
        } = self;
        for (i, conn) in conns.iter_mut().enumerate() {
            let state = conn.state();
            let Stream::Ring(sock) = conn.stream_mut() else {
                continue;
            };
            let slot = &mut slots[i];
            if sock.fresh {
                sock.fresh = false;
                slot.generation = slot.generation.wrapping_add(1) & 0xFF_FFFF;
                slot.recv_armed = false;
                slot.poll_armed = false;
                if !slot.send_busy {
                    slot.out.clear();
                    slot.sent = 0;
                }
                // The new socket takes its place in the file table (and lets
                // go of the old one there).
                slot.fixed = (i as u32) < *files
                    && ring
                        .submitter()
                        .register_files_update(i as u32, &[sock.fd()])
                        .is_ok();
            }
            if state == ConnState::Closed {
                if slot.fixed {
                    // The table must not hold a closed socket open.
                    slot.fixed = ring
                        .submitter()
                        .register_files_update(i as u32, &[-1])
                        .is_err();
                }
                continue;
            }
            let target = if slot.fixed {
                Sock::Fixed(i as u32)
            } else {
                Sock::Fd(sock.fd())
            };
            let generation = slot.generation;
            if state == ConnState::Connecting {
                if !slot.poll_armed {
                    let poll = poll_out(target).user_data(user_data(i, generation, POLL));
                    push(ring, &poll)?;
                    slot.poll_armed = true;
                }
                continue;
            }
            if !slot.recv_armed && sock.ended().is_none() {
                let recv = recv_multi(target).user_data(user_data(i, generation, RECV));
                push(ring, &recv)?;
                slot.recv_armed = true;
            }
            if slot.send_busy {
                continue;
            }
            if slot.sent >= slot.out.len() {
                slot.out.clear();
                slot.sent = 0;
                if sock.has_tx() {
                    sock.take_tx(&mut slot.out);
                }
            }
            if slot.sent < slot.out.len() {
                let bytes = send(target, &slot.out[slot.sent..]);
                push(ring, &bytes.user_data(user_data(i, generation, SEND)))?;
                slot.send_busy = true;
                slot.send_generation = generation;
            }
        }
        Ok(())
    }

    /// Takes every completion: received bytes to their socket (and the
    /// buffer back to the kernel), sends accounted, connects announced.
    fn reap(&mut self, conns: &mut [Conn], out: &mut Vec<Readiness>) {
        let Uring {
            ring,
            bufs,
            slots,
            marks,
            hits,
            ..
        } = self;
        for cqe in ring.completion() {
            let (i, generation, kind) = decode(cqe.user_data());
            let (res, flags) = (cqe.result(), cqe.flags());
            let buffer = cqueue::buffer_select(flags);
            let Some(slot) = slots.get_mut(i) else {
                if let Some(bid) = buffer {
                    bufs.recycle(bid);
                }
                continue;
            };
            let current = generation == slot.generation;
            let mut sock = match conns.get_mut(i).map(Conn::stream_mut) {
                Some(Stream::Ring(s)) if current => Some(s),
                _ => None,
            };
            let mut mark = 0;
            match kind {
                RECV => {
                    if current && !cqueue::more(flags) {
                        slot.recv_armed = false;
                    }
                    if let Some(bid) = buffer {
                        if let (Some(s), true) = (sock.as_mut(), res > 0) {
                            s.deliver(bufs.get(bid, res as usize));
                            mark = READ;
                        }
                        bufs.recycle(bid);
                    } else if res == -libc::ENOBUFS {
                        // Every buffer was taken: the receive is armed again
                        // at the next wait, the buffers back by then.
                    } else if let Some(s) = sock.as_mut() {
                        s.end(if res == 0 {
                            RingEnd::Eof
                        } else {
                            RingEnd::Failed
                        });
                        mark = READ | CLOSED;
                    }
                }
                SEND => {
                    slot.send_busy = false;
                    if slot.send_generation != slot.generation || res < 0 {
                        slot.out.clear();
                        slot.sent = 0;
                        if let (Some(s), true) = (sock.as_mut(), res < 0) {
                            s.end(RingEnd::Failed);
                            mark = WRITE | READ | CLOSED;
                        }
                    } else {
                        slot.sent += res as usize;
                        mark = WRITE;
                    }
                }
                POLL if current => {
                    slot.poll_armed = false;
                    mark = WRITE;
                }
                _ => {}
            }
            if mark != 0 {
                if marks[i] == 0 {
                    hits.push(i);
                }
                marks[i] |= mark;
            }
        }
        bufs.publish();
        for i in hits.drain(..) {
            let m = std::mem::take(&mut marks[i]);
            out.push(Readiness {
                index: i,
                readable: m & READ != 0,
                writable: m & WRITE != 0,
                closed: m & CLOSED != 0,
            });
        }
    }
}

/// Queues `entry`, submitting first when the submission queue is full.
fn push(ring: &mut IoUring, entry: &squeue::Entry) -> io::Result<()> {
    loop {
        // SAFETY: every buffer an entry names (a send's bytes in its slot,
        // the provided buffers) outlives the operation.
        if unsafe { ring.submission().push(entry) }.is_ok() {
            return Ok(());
        }
        ring.submit()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_data_round_trips_index_generation_and_kind() {
        let data = user_data(70_000, 0x12_3456, SEND);
        assert_eq!(decode(data), (70_000, 0x12_3456, SEND));
        assert_eq!(decode(user_data(0, 0x1FF_FFFF, RECV)), (0, 0xFF_FFFF, RECV));
    }
}
