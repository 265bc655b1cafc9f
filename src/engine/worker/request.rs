//! What one connection sends next: its op cycle over the op table, a key
//! generator per op, its RNG and budget (the placeholders they fill are in
//! `request/fill.rs`; the SET/GET pair's encoder, shared by a worker's
//! connections, in `request/pair.rs`; a request sent again after a redirect
//! in `request/again.rs`; `--transaction`'s and
//! `--scan-incremental-iteration`'s state in `request/rotation.rs` and
//! `request/scan.rs`).
//!
//! Each connection owns a [`RequestSource`] seeded from the master seed, its thread
//! and its own index, so the key sequence of every connection is reproducible and
//! independent of how the event loop happens to interleave connections.

use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::config::{Config, RangeSharing, Stop};
use crate::protocol::wire::PairEncoder;
use crate::workload::keys::memtier::allkeys_requests;
use crate::workload::keys::{KeyGen, KeyGenError, KeyPattern, KeyRange};
use crate::workload::mix::OpCycle;
use crate::workload::ops::{Encoding, Lookup, OpTable, Pick, RandInt};
use crate::workload::pair::WaitGate;

use crate::workload::values::ValuePool;

mod again;
mod fill;
mod import;
mod keys;
mod pair;
mod rotation;
mod scan;

use fill::Draw;
use keys::ConnKeys;
pub use pair::pair_encoder;
use pair::{encode_expiring, encode_wait};
pub use rotation::Rotation;
use rotation::ops_transaction;
pub use scan::{ScanReply, ScanState};

/// What the connection keeps of a request it queued: enough to count its
/// reply in the right row and, later, to send it again elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queued {
    /// The op's index in the table.
    pub op: u16,
    /// The stats row it is counted in.
    pub row: u16,
    /// How its reply counts hits and misses.
    pub hits: Hits,
    /// True when its reply is a status and never a value or nil: the
    /// default pair's SET (`+OK`, `STORED`).
    pub answers_status: bool,
    /// Its first key number (0 for a command without `__key__`).
    pub key: u64,
    /// Its encoded length in bytes.
    pub len: u32,
    /// `--cluster-mode`: redirects and retries it has followed so far.
    pub redirects: u8,
    /// `--retry-on-error`: times it was sent again after an error reply.
    pub retries: u16,
    /// An `ASKING` sent ahead of a redirected request: its reply answers
    /// no request of the workload and is not counted.
    pub asking: bool,
    /// `--transaction`: the `EXEC` (or `DISCARD`) of a rotation, whose reply
    /// holds the replies of the commands queued before it.
    pub ends_transaction: bool,
}

/// How a request's reply counts hits and misses (two bytes: a request in
/// flight stays 56 B, docs/design.md "Memory").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hits {
    /// Neither (SET, most commands).
    None,
    /// A nil is a miss and a value a hit (GET-like commands).
    Single,
    /// The reply's shape says, key by key (`MGET`, `SMEMBERS`, `EXISTS`…).
    Shape(Lookup),
}

impl Queued {
    /// True when its reply is one value (a hit) or nil (a miss).
    pub fn counts_hits(&self) -> bool {
        self.hits == Hits::Single
    }

    /// The `ASKING` that precedes a request sent after `-ASK`.
    pub const ASKING: Queued = Queued {
        op: 0,
        row: 0,
        hits: Hits::None,
        answers_status: false,
        key: 0,
        len: 0,
        redirects: 0,
        retries: 0,
        asking: true,
        ends_transaction: false,
    };
}

/// The request stream of one connection during one phase.
pub struct RequestSource {
    cycle: OpCycle,
    ops: Arc<OpTable>,
    /// One key generator per op, each walking its op's own pattern.
    keys: ConnKeys,
    /// What `__rand_int__` draws from; `None` sends the placeholder's text.
    rand_range: Option<KeyRange>,
    /// `--sequential`: the next `__rand_int__`, counted up (and wrapped into
    /// `rand_range`) instead of drawn.
    rand_next: Option<u64>,
    rng: SmallRng,
    /// Requests left in this phase; `None` when the phase is time-bound.
    remaining: Option<u64>,
    /// `--data-import` under `--memtier-compat`: the SETs sent so far, whose
    /// count names the next item in file order.
    import_sets: u64,
    /// The pair's SET and GET, encoded for the run's wire and key prefix;
    /// one per worker, shared by its connections (its heads stay in cache).
    pair: Arc<PairEncoder>,
    /// `--wait-ratio`: this connection's SETs and WAITs so far.
    gate: WaitGate,
    /// `--transaction`: the rotation in progress and its one key.
    rotation: Option<Rotation>,
    /// `--scan-incremental-iteration`: the cursor to follow.
    scan: Option<ScanState>,
}

impl RequestSource {
    /// The source of connection `slot` (of `slots` in the whole run) for one phase.
    /// `stop` decides its budget; `seed` must already be derived for this
    /// connection and phase; `pair` is the worker's [`pair_encoder`].
    pub fn new(
        config: &Config,
        pair: &Arc<PairEncoder>,
        stop: Stop,
        slot: u64,
        slots: u64,
        seed: u64,
    ) -> Result<Self, KeyGenError> {
        let keys = &config.keys;
        let semantics = &config.semantics;
        let remaining = match stop {
            Stop::Requests(n) => Some(n),
            // memtier: every connection walks the whole range, with
            // memtier's own count of it.
            Stop::AllKeys if semantics.range_sharing == RangeSharing::Whole => {
                Some(allkeys_requests(keys.range, keys.both_parallel(), slots))
            }
            // The first `len % slots` connections take one extra key, exactly as
            // the slices of `KeyRange::slice`; when there are more connections
            // than keys, the surplus connections send nothing.
            Stop::AllKeys => {
                let len = keys.range.len();
                Some(len / slots + u64::from(slot < len % slots))
            }
            Stop::Time(_) => None,
        };
        // Only a sequential walk's start depends on the slot; P keeps its own
        // slice under either semantics.
        let start = |pattern: KeyPattern| match pattern {
            KeyPattern::Sequential => semantics.walk_slot(slot),
            _ => slot,
        };
        let ops = Arc::clone(&config.ops);
        let patterns: Vec<KeyPattern> = ops.ops.iter().map(|op| op.pattern).collect();
        let draws: Vec<usize> = ops.ops.iter().map(|op| op.keys_of).collect();
        let gens = ConnKeys::new(config, &patterns, &draws, slot, slots, start)?;
        let rand_range = match ops.rand_int {
            RandInt::KeyRange => Some(keys.range),
            RandInt::Below(n) => Some(KeyRange {
                min: 0,
                max: n.saturating_sub(1),
            }),
            RandInt::Sequential(n) => Some(KeyRange {
                min: 0,
                max: n.saturating_sub(1),
            }),
            RandInt::Literal => None,
        };
        // Sequential numbers: each connection starts at its own share of the
        // range, so connections that each send less than their share never
        // repeat one another's numbers.
        let rand_next = match ops.rand_int {
            RandInt::Sequential(n) => Some(slot * (n / slots.max(1))),
            _ => None,
        };
        Ok(RequestSource {
            cycle: OpCycle::new(&ops.weights(config.ratio)),
            ops,
            keys: gens,
            rand_range,
            rand_next,
            rng: SmallRng::seed_from_u64(semantics.connection_seed(
                config.stream_seed(),
                slot,
                seed,
            )),
            remaining,
            import_sets: 0,
            pair: Arc::clone(pair),
            gate: WaitGate::default(),
            rotation: ops_transaction(&config.ops),
            scan: config.ops.scan.map(ScanState::new),
        })
    }

    /// The prefill stream of connection `slot` of `slots`: SETs of its own slice of
    /// the key range, each key once, in order.
    pub fn prefill(
        config: &Config,
        pair: &Arc<PairEncoder>,
        slot: u64,
        slots: u64,
        seed: u64,
    ) -> Result<Self, KeyGenError> {
        let range = config.keys.range;
        let len = range.len();
        Ok(RequestSource {
            cycle: OpCycle::new(&[1]),
            ops: Arc::new(OpTable::prefill()),
            // Sequential from the start of this connection's slice, for exactly the
            // slice's length: the slices tile the range, so every key is written
            // once, even with more connections than keys.
            keys: ConnKeys::single(KeyGen::new(KeyPattern::Sequential, range, slot, slots)?),
            rand_range: Some(range),
            rand_next: None,
            rng: SmallRng::seed_from_u64(seed),
            remaining: Some(len / slots + u64::from(slot < len % slots)),
            import_sets: 0,
            pair: Arc::clone(pair),
            gate: WaitGate::default(),
            rotation: None,
            scan: None,
        })
    }

    /// The key's digits in `request`, which holds `queued` as this source
    /// encoded it: for the pair's plain GET and SET in RESP, where a cluster
    /// client reads its slot from them; `None` otherwise.
    #[inline]
    pub fn key_digits<'r>(&self, queued: Queued, request: &'r [u8]) -> Option<&'r [u8]> {
        let set = match self.ops.ops.get(usize::from(queued.op))?.encoding {
            Encoding::Get => false,
            Encoding::Set => true,
            _ => return None,
        };
        self.pair.key_digits(request, queued.key, set)
    }

    /// `--transaction`: the rotation the last request drawn belongs to.
    pub fn rotation(&self) -> Option<Rotation> {
        self.rotation
    }

    /// `--scan-incremental-iteration`: follows the cursor of the reply to
    /// the request sent last (nothing for a stream that follows none).
    #[inline]
    pub fn follow_scan(&mut self, reply: ScanReply) {
        if let Some(scan) = self.scan.as_mut() {
            scan.follow(reply);
        }
    }

    /// True when the budget is spent.
    #[inline]
    pub fn exhausted(&self) -> bool {
        self.remaining == Some(0)
    }

    /// Takes one request from the budget; false when it is spent.
    #[inline]
    fn take(&mut self) -> bool {
        match self.remaining.as_mut() {
            Some(0) => false,
            Some(left) => {
                *left -= 1;
                true
            }
            None => true,
        }
    }

    /// Takes the next request's op without encoding it: the request was due but
    /// will never be sent (the phase ended first), and is counted under its
    /// op's row, which is returned. `None` when the budget is spent.
    #[inline]
    pub fn skip_next(&mut self) -> Option<usize> {
        if !self.take() {
            return None;
        }
        let op = self.next_op();
        self.ops.ops.get(op).map(|op| usize::from(op.row))
    }

    /// The op of the next request: the cursor's with
    /// `--scan-incremental-iteration`, a WAIT when `--wait-ratio` says one
    /// is due (its op is the table's last), else the cycle's next.
    #[inline]
    fn next_op(&mut self) -> usize {
        if let Some(scan) = &self.scan {
            return scan.next_op();
        }
        // `--monitor-pattern R`: any op, as likely as any other.
        if self.ops.pick == Pick::Uniform {
            return self.rng.random_range(0..self.ops.ops.len().max(1));
        }
        let Some(plan) = self.ops.pair.wait else {
            return self.cycle.next();
        };
        if self.gate.due(&plan) {
            self.gate.count_wait();
            return self.ops.ops.len() - 1;
        }
        let op = self.cycle.next();
        // The pair's SET is its first op.
        if op == 0 {
            self.gate.count_set();
        }
        op
    }

    /// Appends the next request to `out`; returns what the in-flight entry keeps
    /// of it, or `None` when the budget is spent. Allocation-free apart from
    /// `out` growing. `opaque` is echoed by memcached's binary protocol, which
    /// lets the connection check that responses come back in order.
    #[inline]
    pub fn encode_next(
        &mut self,
        out: &mut Vec<u8>,
        values: &ValuePool,
        opaque: u32,
    ) -> Option<Queued> {
        if !self.take() {
            return None;
        }
        if let Some(rotation) = self.rotation.as_mut()
            && self.cycle.at_start()
        {
            rotation.number += 1;
            rotation.key = rotation
                .keyed_op
                .map(|op| self.keys.next(op, &mut self.rng));
        }
        let index = self.next_op();
        let op = self.ops.ops.get(index)?;
        if index >= self.keys.len() {
            return None;
        }
        let prefix = self.pair.prefix();
        let keys = &mut self.keys;
        let fixed = self.rotation.and_then(|r| r.key);
        let rng = &mut self.rng;
        let mut next_key = || fixed.unwrap_or_else(|| keys.next(index, rng));
        // The pair's dedicated encoders draw the key, then the value, as the
        // template does, so a seed gives the same requests either way.
        let (len, first_key) = match op.encoding {
            Encoding::Set => {
                let key = next_key();
                let value = values.next(key, &mut self.rng);
                let len = self.pair.set(out, key, value, opaque);
                (len, Some(key))
            }
            Encoding::SetExpiring => {
                let key = next_key();
                let value = values.next(key, &mut self.rng);
                let len = encode_expiring(
                    &self.pair,
                    &self.ops,
                    &mut self.rng,
                    out,
                    key,
                    value,
                    opaque,
                );
                (len, Some(key))
            }
            Encoding::Wait => (encode_wait(&self.ops, &mut self.rng, out), None),
            Encoding::Get => {
                let key = next_key();
                (self.pair.get(out, key, opaque), Some(key))
            }
            Encoding::ImportSet | Encoding::ImportGet | Encoding::ImportGeneratedSet => {
                let mut key = keys.next(index, &mut self.rng);
                // memtier's SET drops its draw and sends the next item.
                if op.encoding == Encoding::ImportSet
                    && self
                        .ops
                        .import
                        .as_ref()
                        .is_some_and(|i| i.sets_in_file_order())
                {
                    self.import_sets += 1;
                    key = self.import_sets;
                }
                let len = import::encode(
                    op.encoding,
                    &self.ops,
                    self.pair.protocol(),
                    out,
                    prefix,
                    key,
                    opaque,
                );
                (len, Some(key))
            }
            Encoding::Template => {
                let mut draw = Draw {
                    keys,
                    op: index,
                    rng: &mut self.rng,
                    values,
                    rand_range: self.rand_range,
                    rand_next: self.rand_next.as_mut(),
                    first_key: None,
                    fixed_key: fixed,
                    cursor: self.scan.map_or(0, |s| s.cursor()),
                };
                (op.template.encode(out, prefix, &mut draw), draw.first_key)
            }
        };
        let row = op.row;
        let counted = self.ops.rows.get(usize::from(row));
        Some(Queued {
            op: index as u16,
            row,
            hits: match counted {
                Some(r) if r.counts_hits => Hits::Single,
                Some(r) => r.lookup.map_or(Hits::None, Hits::Shape),
                None => Hits::None,
            },
            answers_status: op.encoding.answers_status(),
            key: first_key.unwrap_or(0),
            len: u32::try_from(len).unwrap_or(u32::MAX),
            redirects: 0,
            retries: 0,
            asking: false,
            ends_transaction: self.ops.transaction && op.ends_transaction,
        })
    }
}

#[cfg(test)]
mod tests;
