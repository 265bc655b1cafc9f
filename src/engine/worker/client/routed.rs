//! How a client with several nodes sends: each request is drawn, its slot
//! read from its encoded key, and it goes to that node's connection — or,
//! when that window is full, waits in the node's queue while the other
//! connections keep filling (as memtier's cluster client keeps a key pool per
//! connection). A queue holds at most one pipeline window; a request drawn
//! for a full queue stops the drawing until replies make room. Redirected and
//! retried requests (`pending`) go first.

use std::collections::VecDeque;
use std::time::Instant;

use crate::engine::cluster::slot::{key_slot, resp_arg};
use crate::engine::worker::client::{Client, Fill, Pending, Router, advance, next_intended};
use crate::engine::worker::conn::{Conn, ConnState, InFlight};
use crate::engine::worker::request::Queued;
use crate::workload::ops::Encoding;

/// Encoded `ASKING`.
const ASKING: &[u8] = b"*1\r\n$6\r\nASKING\r\n";

/// The requests drawn for one node and not yet sent, with their bytes:
/// they are copied out when the window has room, never encoded twice.
#[derive(Debug, Default)]
pub(super) struct NodeQueue {
    /// Oldest first; each request's bytes are `queued.len` long.
    pub(super) requests: VecDeque<Pending>,
    bytes: Vec<u8>,
    /// Where the oldest request's bytes start.
    read: usize,
}

impl NodeQueue {
    pub(super) fn len(&self) -> usize {
        self.requests.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    /// Forgets everything, keeping the memory.
    pub(super) fn clear(&mut self) {
        self.requests.clear();
        self.bytes.clear();
        self.read = 0;
    }

    fn push(&mut self, pending: Pending, bytes: &[u8]) {
        self.requests.push_back(pending);
        self.bytes.extend_from_slice(bytes);
    }

    /// The oldest request and its bytes.
    fn pop(&mut self) -> Option<(Pending, &[u8])> {
        let pending = self.requests.pop_front()?;
        let start = self.read;
        let end = (start + pending.request.queued.len as usize).min(self.bytes.len());
        self.read = end;
        Some((pending, &self.bytes[start..end]))
    }

    /// Called once the bytes of the last pop are copied: frees them when
    /// nothing waits any more.
    fn settle(&mut self) {
        if self.requests.is_empty() {
            self.bytes.clear();
            self.read = 0;
        }
    }
}

impl Client {
    /// True when some node's queue is past its bound: nothing more is drawn.
    pub(super) fn overflowing(&self) -> bool {
        self.waiting.iter().any(|w| w.len() > self.waiting_bound)
    }

    /// Draws while some connection has room and no queue overflows; returns
    /// a node that needs a connection opened.
    pub(super) fn draw_routed(
        &mut self,
        conns: &mut [Conn],
        router: &Router,
        cx: &mut Fill<'_>,
        now: Instant,
    ) -> Option<usize> {
        self.waiting_bound = cx.window.max(1);
        if !cx.sending {
            return None;
        }
        // Drawing only fills windows: what waits could not go anywhere new
        // during the loop, so it is placed once, first.
        let mut missing = self.place_waiting(conns, cx, now);
        let mut with_room = self
            .conns()
            .filter(|&c| conns.get(c).is_some_and(Conn::has_room))
            .count();
        let mut overflow = self.overflowing();
        loop {
            // Only a connection just written to can have lost its room, and
            // only a queue just pushed to can overflow: both are kept up to
            // date below instead of looking at every connection per request.
            if with_room == 0 || overflow {
                return missing;
            }
            let Some(intended_at) = next_intended(&self.schedule, now) else {
                return missing;
            };
            let Some(source) = self.source.as_mut() else {
                return missing;
            };
            self.scratch.clear();
            let Some(queued) = source.encode_next(&mut self.scratch, cx.values, 0) else {
                return missing;
            };
            advance(&mut self.schedule, intended_at, now, cx.stats);
            let node = match source.rotation() {
                Some(rotation) => self.pinned_node(router, rotation, cx.prefix),
                None => self.route(router, queued, &self.scratch),
            };
            let request = InFlight {
                queued,
                intended_at,
                sent_at: None,
            };
            let link = self.link_of(node);
            match link.and_then(|c| conns.get_mut(c)) {
                // Its node is down while others are up: the request cannot be
                // sent, and is counted; the other nodes' requests go on.
                Some(conn) if conn.state() == ConnState::Closed => cx.stats.errors.node_down += 1,
                Some(conn) if conn.has_room() && self.waiting_for(node) == 0 => {
                    let bytes = &self.scratch;
                    let copy = |buf: &mut Vec<u8>, _| {
                        buf.extend_from_slice(bytes);
                        Some(queued)
                    };
                    conn.queue(copy, intended_at, None);
                    with_room -= usize::from(!conn.has_room());
                }
                other => {
                    if other.is_none() {
                        missing = missing.or(Some(node));
                    }
                    self.wait(node, request);
                    overflow = self.waiting_for(node) > self.waiting_bound;
                }
            }
        }
    }

    /// Requests waiting for `node`.
    fn waiting_for(&self, node: usize) -> usize {
        self.waiting.get(node).map_or(0, NodeQueue::len)
    }

    /// Queues `request`, whose bytes are in `scratch`, for `node`.
    fn wait(&mut self, node: usize, request: InFlight) {
        if self.waiting.len() <= node {
            self.waiting.resize_with(node + 1, NodeQueue::default);
        }
        let pending = Pending {
            request,
            node: Some(node),
            asking: false,
            due: None,
            retry: false,
        };
        self.waiting[node].push(pending, &self.scratch);
    }

    /// Sends waiting requests where their connection has room now; drops
    /// those of a node whose connection is down while another is up.
    fn place_waiting(
        &mut self,
        conns: &mut [Conn],
        cx: &mut Fill<'_>,
        now: Instant,
    ) -> Option<usize> {
        let mut missing = None;
        let up = self
            .conns()
            .filter(|&c| conns.get(c).is_some_and(|c| c.state() != ConnState::Closed))
            .count();
        for node in 0..self.waiting.len() {
            if self.waiting[node].is_empty() {
                continue;
            }
            let Some(conn) = self.link_of(node).and_then(|c| conns.get_mut(c)) else {
                missing = missing.or(Some(node));
                continue;
            };
            if conn.state() == ConnState::Closed && up > 0 {
                cx.stats.errors.node_down += self.waiting[node].len() as u64;
                self.waiting[node].clear();
                continue;
            }
            let open_loop = self.schedule.is_some();
            let queue = &mut self.waiting[node];
            while conn.has_room() {
                let Some((w, bytes)) = queue.pop() else {
                    break;
                };
                // A closed loop's request is timed from its send; an open
                // loop's keeps its intended time, its wait included.
                let intended_at = if open_loop {
                    w.request.intended_at
                } else {
                    now
                };
                let queued = w.request.queued;
                let copy = |buf: &mut Vec<u8>, _| {
                    buf.extend_from_slice(bytes);
                    Some(queued)
                };
                conn.queue(copy, intended_at, None);
            }
            queue.settle();
        }
        missing
    }

    /// The node for `queued`, encoded as `bytes`.
    fn route(&self, router: &Router, queued: Queued, bytes: &[u8]) -> usize {
        let op = self.ops.ops.get(usize::from(queued.op));
        let slot = match op.map(|op| op.encoding) {
            // memtier's pair: the key is the prefix and the number, hashed
            // from the prefix's CRC and the digits the encoder just wrote
            // (written afresh only when the encoder cannot say where).
            Some(Encoding::Set | Encoding::Get) => Some(
                match self
                    .source
                    .as_ref()
                    .and_then(|s| s.key_digits(queued, bytes))
                {
                    Some(digits) => router.numbered_slot_of_digits(digits),
                    None => router.numbered_slot(queued.key),
                },
            ),
            _ => op
                .and_then(|op| op.key_arg)
                .and_then(|arg| resp_arg(bytes, arg))
                .map(key_slot),
        };
        router.route(slot, op.is_some_and(|op| op.read), self.index)
    }

    /// Sends again the redirected and retried requests that are due, in order.
    pub(super) fn place_pending(
        &mut self,
        conns: &mut [Conn],
        router: &Router,
        cx: &mut Fill<'_>,
        now: Instant,
    ) -> Option<usize> {
        while let Some(&pending) = self.pending.front() {
            if pending.due.is_some_and(|d| d > now) {
                return None;
            }
            let source = self.source.as_mut()?;
            self.again.clear();
            let queued = source.encode_again(pending.request.queued, &mut self.again, cx.values);
            let node = pending
                .node
                .unwrap_or_else(|| self.route(router, queued, &self.again));
            let Some(index) = self.link_of(node) else {
                return Some(node);
            };
            let conn = conns.get_mut(index)?;
            if conn.state() == ConnState::Closed {
                self.pop_pending();
                cx.stats.errors.node_down += 1;
                continue;
            }
            if !conn.has_room() {
                return None;
            }
            self.pop_pending();
            let InFlight {
                intended_at,
                sent_at,
                ..
            } = pending.request;
            if pending.asking {
                let asking = |buf: &mut Vec<u8>, _| {
                    buf.extend_from_slice(ASKING);
                    Some(Queued::ASKING)
                };
                conn.queue(asking, intended_at, sent_at);
            }
            let bytes = &self.again;
            let copy = |buf: &mut Vec<u8>, _| {
                buf.extend_from_slice(bytes);
                Some(queued)
            };
            conn.queue(copy, intended_at, sent_at);
        }
        None
    }
}
