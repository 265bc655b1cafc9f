//! One row of the op table's counters and histograms ([`OpStats`]): replies,
//! hits and misses, errors by kind, redirects, and the latency histograms
//! (response time, and service time in an open loop), merged with `+=`.

use std::ops::AddAssign;

use hdrhistogram::Histogram;
use hdrhistogram::errors::CreationError;

use super::{latency_histogram, merge_optional, record_into};
use crate::protocol::resp::ServerErrorKind;

/// Counts and latencies of one op type.
#[derive(Debug, Clone)]
pub struct OpStats {
    /// Replies received (errors included).
    pub count: u64,
    /// GET replies that carried a value.
    pub hits: u64,
    /// GET replies that were nil.
    pub misses: u64,
    /// Replies that were server errors (`-ERR ...`).
    pub errors: u64,
    /// The same error replies by kind, indexed like [`ServerErrorKind::ALL`].
    pub errors_by_kind: [u64; ServerErrorKind::ALL.len()],
    /// Request bytes of the replies received: counted at the reply, as
    /// memtier does, so a request lost in flight adds nothing.
    pub bytes_tx: u64,
    /// Reply bytes read.
    pub bytes_rx: u64,
    /// Exact sum of all latencies in µs, for an exact mean (the histogram's own
    /// mean is only as precise as its buckets).
    pub latency_sum_us: u64,
    /// Latency of every reply in µs: the headline measure. In a closed loop it is
    /// the service time; with `--rate` it is the response time, measured from the
    /// request's intended send time.
    pub latency_us: Histogram<u64>,
    /// With `--rate` only: service time (reply − actual send) in µs.
    pub service_us: Option<Histogram<u64>>,
    /// Exact sum of the service times in µs.
    pub service_sum_us: u64,
    /// Paced runs: requests due before the deadline that were never sent. They
    /// are not replies, so `count`, `latency_us` and its sum leave them out
    /// (memtier's identities, such as mean = sum / count, hold for what those
    /// fields hold); their wait is kept apart, in `never_sent_us`.
    pub never_sent: u64,
    /// Paced runs only: each request never sent, with deadline − intended send
    /// time in µs, the least it would have waited (wrk2's rule carried to the
    /// end of the run), so that a run that fell behind cannot look fast.
    pub never_sent_us: Option<Histogram<u64>>,
    /// Exact sum of those waits in µs.
    pub never_sent_sum_us: u64,
    /// With memtier's `--rate-limiting` only, whose headline is service time:
    /// response time (reply − intended send) in µs, kept beside it.
    pub response_us: Option<Histogram<u64>>,
    /// Exact sum of the response times in µs.
    pub response_sum_us: u64,
    /// `--cluster-mode`: `-MOVED` replies followed (memtier's MOVED/sec);
    /// not in `count`, since the request was answered elsewhere.
    pub moved: u64,
    /// `--cluster-mode`: `-ASK` replies followed (memtier's ASK/sec).
    pub ask: u64,
    /// `--retry-on-error`: error replies answered by sending the request
    /// again; not in `count`, since only the reply that settles a request
    /// counts.
    pub retries: u64,
}

impl OpStats {
    /// Empty counters and histogram (closed loop: one latency measure).
    pub fn new() -> Result<Self, CreationError> {
        Ok(OpStats {
            count: 0,
            hits: 0,
            misses: 0,
            errors: 0,
            errors_by_kind: [0; ServerErrorKind::ALL.len()],
            bytes_tx: 0,
            bytes_rx: 0,
            latency_sum_us: 0,
            latency_us: latency_histogram()?,
            service_us: None,
            service_sum_us: 0,
            never_sent: 0,
            never_sent_us: None,
            never_sent_sum_us: 0,
            response_us: None,
            response_sum_us: 0,
            moved: 0,
            ask: 0,
            retries: 0,
        })
    }

    /// Empty counters with a second histogram for service time (open loop).
    pub fn new_open_loop() -> Result<Self, CreationError> {
        let mut s = OpStats::new()?;
        s.service_us = Some(latency_histogram()?);
        s.never_sent_us = Some(latency_histogram()?);
        Ok(s)
    }

    /// Empty counters for a paced run whose headline is service time
    /// (`--rate-limiting`): response time is kept beside it.
    pub fn new_service_headline() -> Result<Self, CreationError> {
        let mut s = OpStats::new_open_loop()?;
        s.response_us = Some(latency_histogram()?);
        Ok(s)
    }

    /// Clears the counters, keeping the histogram's memory.
    pub fn reset(&mut self) {
        self.count = 0;
        self.hits = 0;
        self.misses = 0;
        self.errors = 0;
        self.errors_by_kind = [0; ServerErrorKind::ALL.len()];
        self.bytes_tx = 0;
        self.bytes_rx = 0;
        self.latency_sum_us = 0;
        self.latency_us.reset();
        self.service_sum_us = 0;
        self.never_sent = 0;
        self.never_sent_sum_us = 0;
        for h in [&mut self.service_us, &mut self.never_sent_us] {
            if let Some(h) = h.as_mut() {
                h.reset();
            }
        }
        self.response_sum_us = 0;
        self.moved = 0;
        self.ask = 0;
        self.retries = 0;
        if let Some(h) = self.response_us.as_mut() {
            h.reset();
        }
    }

    /// Records one reply's latency. The histogram auto-resizes, so recording cannot
    /// fail for any `u64`; the `Err` arm exists only because the API returns one.
    #[inline]
    pub fn record(&mut self, latency_us: u64) {
        self.count += 1;
        self.latency_sum_us += latency_us;
        record_into(&mut self.latency_us, latency_us);
    }

    /// Records one reply of a paced run: its response time (from the intended
    /// send time) and its service time (from the actual send). The headline is
    /// response time with `--rate`, service time with `--rate-limiting` (where
    /// memtier's fields keep memtier's meaning); the other is kept beside it.
    #[inline]
    pub fn record_open_loop(&mut self, response_us: u64, service_us: u64) {
        match self.response_us.as_mut() {
            Some(h) => {
                record_into(h, response_us);
                self.response_sum_us += response_us;
                self.record(service_us);
            }
            None => self.record(response_us),
        }
        self.service_sum_us += service_us;
        if let Some(h) = self.service_us.as_mut() {
            record_into(h, service_us);
        }
    }

    /// Records a request that was due before the deadline but never sent: its
    /// response time is at least `waited_us` (deadline − intended send time), as
    /// wrk2 counts it; it has no service time, and no reply to count.
    #[inline]
    pub fn record_never_sent(&mut self, waited_us: u64) {
        self.never_sent += 1;
        self.never_sent_sum_us += waited_us;
        if let Some(h) = self.never_sent_us.as_mut() {
            record_into(h, waited_us);
        }
    }

    /// Counts one error reply, in total and by kind.
    #[inline]
    pub fn count_error(&mut self, kind: ServerErrorKind) {
        self.errors += 1;
        if let Some(i) = ServerErrorKind::ALL.iter().position(|k| *k == kind) {
            self.errors_by_kind[i] += 1;
        }
    }

    /// Exact mean service time in µs (open loop), 0 when nothing was recorded.
    pub fn mean_service_us(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.service_sum_us as f64 / self.count as f64
        }
    }

    /// Exact mean latency of the replies in µs (`latency_sum_us` / `count`, as
    /// memtier's Average Latency is its Accumulated Latency over its Count), 0
    /// when nothing was recorded.
    pub fn mean_us(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.latency_sum_us as f64 / self.count as f64
        }
    }

    /// Exact mean wait of the requests never sent in µs, 0 when there were none.
    pub fn mean_never_sent_us(&self) -> f64 {
        if self.never_sent == 0 {
            0.0
        } else {
            self.never_sent_sum_us as f64 / self.never_sent as f64
        }
    }
}

impl AddAssign<&OpStats> for OpStats {
    fn add_assign(&mut self, other: &OpStats) {
        self.count += other.count;
        self.hits += other.hits;
        self.misses += other.misses;
        self.errors += other.errors;
        for (a, b) in self.errors_by_kind.iter_mut().zip(other.errors_by_kind) {
            *a += b;
        }
        self.bytes_tx += other.bytes_tx;
        self.bytes_rx += other.bytes_rx;
        self.latency_sum_us += other.latency_sum_us;
        self.service_sum_us += other.service_sum_us;
        self.never_sent += other.never_sent;
        self.never_sent_sum_us += other.never_sent_sum_us;
        self.response_sum_us += other.response_sum_us;
        self.moved += other.moved;
        self.ask += other.ask;
        self.retries += other.retries;
        // The histograms auto-resize, so adding cannot fail for lack of range.
        let _ = self.latency_us.add(&other.latency_us);
        merge_optional(&mut self.service_us, &other.service_us);
        merge_optional(&mut self.response_us, &other.response_us);
        merge_optional(&mut self.never_sent_us, &other.never_sent_us);
    }
}
