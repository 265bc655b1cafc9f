//! How a client with several nodes sends: each request is drawn, its slot
//! read from its encoded key, and it goes to that node's connection — or,
//! when that window is full, waits in the node's queue while the other
//! connections keep filling (as memtier's cluster client keeps a key pool per
//! connection). A queue holds at most one pipeline window; a request drawn
//! for a full queue stops the drawing until replies make room. Redirected and
//! retried requests (`pending`) go first.

use std::collections::VecDeque;
use std::time::Instant;

use crate::client::{Client, Fill, Pending, Router, advance, next_intended};
use crate::cluster::slot::{key_slot, numbered_key_slot, resp_arg};
use crate::conn::{Conn, ConnState, InFlight};
use crate::request::Queued;
use crate::workload::ops::Encoding;

/// Encoded `ASKING`.
const ASKING: &[u8] = b"*1\r\n$6\r\nASKING\r\n";

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
        loop {
            if self.overflowing() {
                return missing;
            }
            let any_room = self
                .conns()
                .any(|c| conns.get(c).is_some_and(Conn::has_room));
            if !any_room {
                return missing;
            }
            let Some(intended_at) = next_intended(&self.schedule, now) else {
                return missing;
            };
            let Some(source) = self.source.as_mut() else {
                return missing;
            };
            self.scratch.clear();
            let Some(queued) = source.encode_next(&mut self.scratch, cx.prefix, cx.values, 0)
            else {
                return missing;
            };
            advance(&mut self.schedule, intended_at, now, cx.stats);
            let node = self.route(router, queued, &self.scratch, cx.prefix);
            let request = InFlight {
                queued,
                intended_at,
                sent_at: now,
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
                    conn.queue(copy, intended_at, now);
                }
                other => {
                    if other.is_none() {
                        missing = missing.or(Some(node));
                    }
                    self.wait(node, request);
                }
            }
        }
    }

    /// Requests waiting for `node`.
    fn waiting_for(&self, node: usize) -> usize {
        self.waiting.get(node).map_or(0, VecDeque::len)
    }

    fn wait(&mut self, node: usize, request: InFlight) {
        if self.waiting.len() <= node {
            self.waiting.resize_with(node + 1, VecDeque::new);
        }
        self.waiting[node].push_back(Pending {
            request,
            node: Some(node),
            asking: false,
            due: None,
        });
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
            while conn.has_room() {
                let Some(w) = self.waiting[node].pop_front() else {
                    break;
                };
                let Some(source) = self.source.as_mut() else {
                    break;
                };
                self.again.clear();
                let queued =
                    source.encode_again(w.request.queued, &mut self.again, cx.prefix, cx.values);
                // A closed loop's request is timed from its send; an open
                // loop's keeps its intended time, its wait included.
                let intended_at = if self.schedule.is_some() {
                    w.request.intended_at
                } else {
                    now
                };
                let bytes = &self.again;
                let copy = |buf: &mut Vec<u8>, _| {
                    buf.extend_from_slice(bytes);
                    Some(queued)
                };
                conn.queue(copy, intended_at, now);
            }
        }
        missing
    }

    /// The node for `queued`, encoded as `bytes` with key prefix `prefix`.
    fn route(&self, router: &Router, queued: Queued, bytes: &[u8], prefix: &[u8]) -> usize {
        let op = self.ops.ops.get(usize::from(queued.op));
        let slot = match op.map(|op| op.encoding) {
            // memtier's pair: the key is the prefix and the number, hashed
            // without reading it back from the bytes.
            Some(Encoding::Set | Encoding::Get) => Some(numbered_key_slot(prefix, queued.key)),
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
            let queued = source.encode_again(
                pending.request.queued,
                &mut self.again,
                cx.prefix,
                cx.values,
            );
            let node = pending
                .node
                .unwrap_or_else(|| self.route(router, queued, &self.again, cx.prefix));
            let Some(index) = self.link_of(node) else {
                return Some(node);
            };
            let conn = conns.get_mut(index)?;
            if conn.state() == ConnState::Closed {
                self.pending.pop_front();
                cx.stats.errors.node_down += 1;
                continue;
            }
            if !conn.has_room() {
                return None;
            }
            self.pending.pop_front();
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
