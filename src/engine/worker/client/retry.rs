//! What a client does with an error reply its connection handed back
//! (`--retry-on-error`, `--failed-keys-file`): a cluster redirect goes to
//! `client/bounce.rs`; an error `--retry-on` names, with retries left and
//! room in the client's retry queue (`--max-retry-queue`), is sent again on
//! the same node: at once, first in line, or with `--retry-backoff-ms` once
//! its wait is over (new requests go on meanwhile); anything else is the
//! request's final reply: counted as the error it is, and its key appended
//! to the failed-keys file.
//!
//! A retried request keeps its first send time (and, with `--rate`, its
//! intended time): its one latency runs from the first send to the reply
//! that settles it, retries included, so that retrying never hides the time
//! an error cost (no coordinated omission).

use std::time::{Instant, SystemTime};

use crate::config::retry::RetryPolicy;
use crate::engine::stats::Stats;
use crate::engine::worker::client::{Client, Pending, Router};
use crate::engine::worker::conn::InFlight;
use crate::engine::worker::recorder::{Bounce, record};
use crate::engine::worker::retry::{FailedKey, FailedKeysLog};
use crate::protocol::resp::ServerErrorKind;
use crate::protocol::wire::Outcome;

/// What settling a handed-back reply needs besides the client.
pub struct Settle<'a> {
    /// The thread's counters.
    pub stats: &'a mut Stats,
    /// `--retry-on-error`.
    pub policy: Option<RetryPolicy>,
    /// `--failed-keys-file`: this thread's writer.
    pub log: Option<&'a mut FailedKeysLog>,
    /// `--key-prefix`, to write keys as sent.
    pub prefix: &'a [u8],
}

impl Client {
    /// Takes back a request whose reply was an error, from the connection of
    /// node `from` (`None` for one server).
    pub fn settle(
        &mut self,
        bounce: Bounce,
        from: Option<usize>,
        router: &mut Router,
        cx: &mut Settle<'_>,
        now: Instant,
    ) {
        if from.is_some() && bounce.kind.routes() {
            return self.bounced(bounce, from, router, cx, now);
        }
        let mut request = bounce.request;
        let retries = request.queued.retries;
        let retry = cx
            .policy
            .filter(|p| p.retries(bounce.kind, retries) && self.retrying < p.pacing.max_queue);
        let Some(policy) = retry else {
            return self.fail(&request, bounce.kind, bounce.bytes, from, cx, now);
        };
        let op = cx.stats.op_mut(usize::from(request.queued.row));
        op.bytes_rx += bounce.bytes as u64;
        op.retries += 1;
        request.queued.retries = retries.saturating_add(1);
        let delay = policy.pacing.delay(retries);
        let due = (!delay.is_zero()).then(|| now + delay);
        let pending = Pending {
            request,
            node: from,
            asking: false,
            due,
            retry: true,
        };
        self.retrying += 1;
        match due {
            // Ahead of newer work: it was sent before them once already.
            None => self.pending.push_front(pending),
            // Among the paced ones by its time, so that a short wait never
            // queues behind a long one.
            Some(due) => {
                let at = self
                    .pending
                    .partition_point(|p| p.due.is_none_or(|d| d <= due));
                self.pending.insert(at, pending);
            }
        }
    }

    /// Takes the first pending request off the queue, once it is sent or
    /// given up.
    pub(super) fn pop_pending(&mut self) {
        if self.pending.pop_front().is_some_and(|p| p.retry) {
            self.retrying -= 1;
        }
    }

    /// Counts `request`'s final reply, an error of `kind` (`bytes` long) from
    /// node `node`, timed from its first send, and logs its key.
    pub(super) fn fail(
        &mut self,
        request: &InFlight,
        kind: ServerErrorKind,
        bytes: usize,
        node: Option<usize>,
        cx: &mut Settle<'_>,
        now: Instant,
    ) {
        let latency = record(cx.stats, request, (Outcome::Error(kind), 0, 0), bytes, now);
        if let Some(n) = node.and_then(|n| cx.stats.nodes.get_mut(n)) {
            n.record(latency);
            n.errors += 1;
        }
        let Some(log) = cx.log.as_deref_mut() else {
            return;
        };
        let queued = request.queued;
        let (Some(op), Some(row)) = (
            self.ops.ops.get(usize::from(queued.op)),
            self.ops.rows.get(usize::from(queued.row)),
        ) else {
            return;
        };
        // `again` holds a request only while `place_pending` copies it.
        self.again.clear();
        op.spec
            .write_arg(op.key_arg, cx.prefix, queued.key, &mut self.again);
        let line = FailedKey {
            command: &row.name,
            key: &self.again,
            status: kind,
            retries: queued.retries,
        };
        log.record(SystemTime::now(), &line);
    }
}
