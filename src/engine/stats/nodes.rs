//! Per-node counters of a cluster run: what each shard served, merged across
//! threads by the node's address (threads learn nodes in their own order).

use std::ops::AddAssign;

use hdrhistogram::Histogram;
use hdrhistogram::errors::CreationError;

use crate::engine::stats::{latency_histogram, record_into};

/// What one cluster node answered.
#[derive(Debug, Clone)]
pub struct NodeStats {
    /// `host:port`, as the slot map names it.
    pub address: String,
    /// Replies received from it (errors included), redirects excluded.
    pub count: u64,
    /// Of those, GET-like replies with a value.
    pub hits: u64,
    /// GET-like replies that were nil.
    pub misses: u64,
    /// Error replies (redirects past `--max-redirects` included).
    pub errors: u64,
    /// `-MOVED` replies it sent that were followed.
    pub moved: u64,
    /// `-ASK` replies it sent that were followed.
    pub ask: u64,
    /// `ASKING` it answered with an error (after another node's `-ASK` sent
    /// a request here): the request that followed was not served as asked.
    pub asking_refused: u64,
    /// Requests answered by it that were reads sent to a replica.
    pub replica_reads: u64,
    /// Exact sum of the latencies, µs.
    pub latency_sum_us: u64,
    /// Latency of its replies, µs (the headline measure, as the op rows).
    pub latency_us: Histogram<u64>,
}

impl NodeStats {
    /// Empty counters for the node at `address`.
    pub fn new(address: String) -> Result<Self, CreationError> {
        Ok(NodeStats {
            address,
            count: 0,
            hits: 0,
            misses: 0,
            errors: 0,
            moved: 0,
            ask: 0,
            asking_refused: 0,
            replica_reads: 0,
            latency_sum_us: 0,
            latency_us: latency_histogram()?,
        })
    }

    /// Records one reply's latency.
    #[inline]
    pub fn record(&mut self, latency_us: u64) {
        self.count += 1;
        self.latency_sum_us += latency_us;
        record_into(&mut self.latency_us, latency_us);
    }

    /// Clears the counters, keeping the address and the histogram's memory.
    pub fn reset(&mut self) {
        self.count = 0;
        self.hits = 0;
        self.misses = 0;
        self.errors = 0;
        self.moved = 0;
        self.ask = 0;
        self.asking_refused = 0;
        self.replica_reads = 0;
        self.latency_sum_us = 0;
        self.latency_us.reset();
    }

    /// Exact mean latency in µs, 0 when nothing was recorded.
    pub fn mean_us(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.latency_sum_us as f64 / self.count as f64
        }
    }
}

impl AddAssign<&NodeStats> for NodeStats {
    fn add_assign(&mut self, other: &NodeStats) {
        self.count += other.count;
        self.hits += other.hits;
        self.misses += other.misses;
        self.errors += other.errors;
        self.moved += other.moved;
        self.ask += other.ask;
        self.asking_refused += other.asking_refused;
        self.replica_reads += other.replica_reads;
        self.latency_sum_us += other.latency_sum_us;
        let _ = self.latency_us.add(&other.latency_us);
    }
}

/// `mine += other`, matching nodes by address and adding the ones `mine` lacks.
pub fn merge_nodes(mine: &mut Vec<NodeStats>, other: &[NodeStats]) {
    for node in other {
        match mine.iter_mut().find(|n| n.address == node.address) {
            Some(n) => *n += node,
            None => mine.push(node.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{NodeStats, merge_nodes};

    #[test]
    fn nodes_merge_by_address_whatever_their_order() {
        let mut a = NodeStats::new("h:1".into()).unwrap();
        a.record(10);
        let mut b = NodeStats::new("h:2".into()).unwrap();
        b.record(20);
        b.moved = 3;
        let mut mine = vec![a.clone()];
        merge_nodes(&mut mine, &[b.clone(), a.clone()]);
        assert_eq!(mine.len(), 2);
        assert_eq!(mine[0].count, 2);
        assert_eq!(mine[1].moved, 3);
        assert_eq!(mine[0].latency_us.len(), 2);
    }
}
