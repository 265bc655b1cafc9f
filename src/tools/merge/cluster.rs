//! `kvbench.runs[i].cluster` added over the machines: the per-node table of
//! a `--cluster-mode` run, exactly, as [`crate::report::build::evidence`]
//! writes it for one machine.
//!
//! Nodes are matched by address (in the first file's order, then any new
//! ones in the order they appear); their counts add, their latency
//! histograms add with `+=`, and the percentiles are read from the union,
//! so a node's merged p99 is the p99 of every request it answered for any
//! machine. The merge needs each node's `latency_histogram`: a file written
//! before it was kept (or a run without the cluster object) leaves the
//! merged run's `cluster` `null` rather than guessing percentiles.

use hdrhistogram::Histogram;

use crate::report::build::nodes::{NodeSums, node_row};
use crate::report::model::cluster::{NodeSummary, PerSecond, PhaseCluster, Redirects};
use crate::report::model::histogram::HistogramError;
use crate::tools::merge::combine::empty_histogram;

/// Why a file's cluster object cannot be added.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// A node's histogram does not decode.
    #[error("cluster node {address} latency_histogram: {source}")]
    Histogram {
        /// The node.
        address: String,
        /// What the decoder said.
        source: HistogramError,
    },
    /// A node's count is not its histogram's number of samples.
    #[error(
        "cluster node {address} count {count} but its latency_histogram holds {samples} samples"
    )]
    Count {
        /// The node.
        address: String,
        /// Its `count`.
        count: u64,
        /// Its histogram's samples.
        samples: u64,
    },
}

/// One node summed over the machines.
#[derive(Debug, Clone)]
pub struct NodeSum {
    /// `host:port`.
    pub address: String,
    /// The first file's role that is known.
    pub role: Option<String>,
    /// The first file's slots that are known.
    pub slots: Option<u64>,
    /// Replies.
    pub count: u64,
    /// Replies carrying a value.
    pub hits: u64,
    /// Nil replies.
    pub misses: u64,
    /// Error replies.
    pub errors: u64,
    /// `-MOVED` it sent that were followed.
    pub moved: u64,
    /// `-ASK` it sent that were followed.
    pub ask: u64,
    /// Reads it answered as a replica.
    pub replica_reads: u64,
    /// Sum of its latencies, µs: each machine's mean (to the µs, as its
    /// file prints it) times its count.
    pub latency_sum_us: f64,
    /// Its latency histogram over every machine, µs.
    pub histogram: Histogram<u64>,
}

/// A run's cluster object summed over the machines.
#[derive(Debug, Clone)]
pub struct ClusterSum {
    /// `--max-redirects` (the same on every machine: the config is checked).
    pub max_redirects: u32,
    /// `--read-from`.
    pub read_from: String,
    /// The nodes, in the first file's order, then any others'.
    pub nodes: Vec<NodeSum>,
    /// The redirect totals, field by field.
    pub redirects: Redirects,
    /// The per-second redirects, second by second.
    pub per_second: PerSecond,
}

impl NodeSum {
    /// One machine's node; `None` without its histogram.
    fn of(n: &NodeSummary) -> Result<Option<NodeSum>, ClusterError> {
        let Some(compressed) = &n.latency_histogram else {
            return Ok(None);
        };
        let decoded = compressed
            .decode()
            .map_err(|source| ClusterError::Histogram {
                address: n.address.clone(),
                source,
            })?;
        // A count the histogram does not hold was edited: merged, the
        // percentiles would describe other requests than the count.
        if decoded.len() != n.count {
            return Err(ClusterError::Count {
                address: n.address.clone(),
                count: n.count,
                samples: decoded.len(),
            });
        }
        let mut histogram = empty_histogram();
        // Both auto-resize: adding cannot fail for lack of range.
        let _ = histogram.add(&decoded);
        Ok(Some(NodeSum {
            address: n.address.clone(),
            role: n.role.clone(),
            slots: n.slots,
            count: n.count,
            hits: n.hits,
            misses: n.misses,
            errors: n.errors,
            moved: n.moved,
            ask: n.ask,
            replica_reads: n.replica_reads,
            latency_sum_us: n.latency.avg_ms * 1000.0 * n.count as f64,
            histogram,
        }))
    }

    fn add(&mut self, other: &NodeSum) {
        if self.role.is_none() {
            self.role.clone_from(&other.role);
        }
        if self.slots.is_none() {
            self.slots = other.slots;
        }
        self.count += other.count;
        self.hits += other.hits;
        self.misses += other.misses;
        self.errors += other.errors;
        self.moved += other.moved;
        self.ask += other.ask;
        self.replica_reads += other.replica_reads;
        self.latency_sum_us += other.latency_sum_us;
        let _ = self.histogram.add(&other.histogram);
    }

    /// The node's row; `total`: every node's replies, `duration_s`: the
    /// merged run's time.
    fn summary(&self, total: u64, duration_s: f64) -> NodeSummary {
        let row = NodeSummary {
            address: self.address.clone(),
            role: self.role.clone(),
            slots: self.slots,
            count: self.count,
            hits: self.hits,
            misses: self.misses,
            errors: self.errors,
            moved: self.moved,
            ask: self.ask,
            replica_reads: self.replica_reads,
            // The server's own counts are not additive: on a shared
            // cluster each machine's INFO before and after already counts
            // every other machine's calls, so a sum would count them once
            // per machine.
            server_calls: None,
            ..NodeSummary::default()
        };
        let sums = NodeSums {
            over_s: duration_s,
            share: if total == 0 {
                0.0
            } else {
                self.count as f64 / total as f64
            },
            latency_sum_us: self.latency_sum_us,
            histogram: &self.histogram,
        };
        node_row(row, &sums)
    }
}

/// Adds `b` into `a` second by second, the longer series keeping its tail.
fn add_seconds(a: &mut Vec<u64>, b: &[u64]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

impl ClusterSum {
    /// One machine's cluster object; `None` when a node lacks its
    /// histogram (a file written before it was kept).
    pub fn of(c: &PhaseCluster) -> Result<Option<ClusterSum>, ClusterError> {
        let mut nodes = Vec::with_capacity(c.nodes.len());
        for n in &c.nodes {
            match NodeSum::of(n)? {
                Some(sum) => nodes.push(sum),
                None => return Ok(None),
            }
        }
        Ok(Some(ClusterSum {
            max_redirects: c.max_redirects,
            read_from: c.read_from.clone(),
            nodes,
            redirects: c.redirects.clone(),
            per_second: c.per_second.clone(),
        }))
    }

    /// Adds another machine's same run.
    pub fn add(&mut self, other: &ClusterSum) {
        for node in &other.nodes {
            match self.nodes.iter_mut().find(|n| n.address == node.address) {
                Some(n) => n.add(node),
                None => self.nodes.push(node.clone()),
            }
        }
        let (a, b) = (&mut self.redirects, &other.redirects);
        a.moved += b.moved;
        a.ask += b.ask;
        a.retries += b.retries;
        a.node_down += b.node_down;
        a.refreshes += b.refreshes;
        a.asking_refused += b.asking_refused;
        let (a, b) = (&mut self.per_second, &other.per_second);
        add_seconds(&mut a.moved, &b.moved);
        add_seconds(&mut a.ask, &b.ask);
        add_seconds(&mut a.retries, &b.retries);
    }

    /// The merged run's `cluster` object; `duration_s`: its run time.
    pub fn phase_cluster(&self, duration_s: f64) -> PhaseCluster {
        let total: u64 = self.nodes.iter().map(|n| n.count).sum();
        PhaseCluster {
            max_redirects: self.max_redirects,
            read_from: self.read_from.clone(),
            nodes: self
                .nodes
                .iter()
                .map(|n| n.summary(total, duration_s))
                .collect(),
            redirects: self.redirects.clone(),
            per_second: self.per_second.clone(),
        }
    }
}
