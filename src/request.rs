//! What one connection sends next: its op cycle, key generators, RNG and budget.
//!
//! Each connection owns a [`RequestSource`] seeded from the master seed, its thread
//! and its own index, so the key sequence of every connection is reproducible and
//! independent of how the event loop happens to interleave connections.

use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::config::{Config, RangeSharing, Stop};
use crate::protocol::resp;
use crate::workload::Op;
use crate::workload::keys::{KeyGen, KeyPattern};
use crate::workload::mix::{OpCycle, Ratio};
use crate::workload::values::ValuePool;

/// Derives independent seeds from one master seed (SplitMix64's finalizer, from
/// Steele, Lea & Flood, "Fast splittable pseudorandom number generators", 2014):
/// nearby inputs give unrelated outputs, so seeds 1 and 2 do not give similar streams.
pub fn derive_seed(master: u64, parts: &[u64]) -> u64 {
    let mut z = master;
    for &p in parts {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15).wrapping_add(p);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
    }
    z
}

/// The request stream of one connection during one phase.
pub struct RequestSource {
    cycle: OpCycle,
    set_keys: KeyGen,
    get_keys: KeyGen,
    rng: SmallRng,
    /// Requests left in this phase; `None` when the phase is time-bound.
    remaining: Option<u64>,
}

impl RequestSource {
    /// The source of connection `slot` (of `slots` in the whole run) for one phase.
    /// `stop` decides its budget; `seed` must already be derived for this
    /// connection and phase.
    pub fn new(
        config: &Config,
        stop: Stop,
        slot: u64,
        slots: u64,
        seed: u64,
    ) -> Result<Self, String> {
        let keys = &config.keys;
        let semantics = &config.semantics;
        let remaining = match stop {
            Stop::Requests(n) => Some(n),
            // memtier: every connection walks the whole range.
            Stop::AllKeys if semantics.range_sharing == RangeSharing::Whole => {
                Some(keys.range.len())
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
        Ok(RequestSource {
            cycle: OpCycle::new(config.ratio),
            set_keys: KeyGen::new(keys.set_pattern, keys.range, start(keys.set_pattern), slots)?,
            get_keys: KeyGen::new(keys.get_pattern, keys.range, start(keys.get_pattern), slots)?,
            rng: SmallRng::seed_from_u64(semantics.connection_seed(config.seed, slot, seed)),
            remaining,
        })
    }

    /// The prefill stream of connection `slot` of `slots`: SETs of its own slice of
    /// the key range, each key once, in order.
    pub fn prefill(config: &Config, slot: u64, slots: u64, seed: u64) -> Result<Self, String> {
        let range = config.keys.range;
        let len = range.len();
        Ok(RequestSource {
            cycle: OpCycle::new(Ratio { set: 1, get: 0 }),
            // Sequential from the start of this connection's slice, for exactly the
            // slice's length: the slices tile the range, so every key is written
            // once, even with more connections than keys.
            set_keys: KeyGen::new(KeyPattern::Sequential, range, slot, slots)?,
            get_keys: KeyGen::new(KeyPattern::Uniform, range, slot, slots)?,
            rng: SmallRng::seed_from_u64(seed),
            remaining: Some(len / slots + u64::from(slot < len % slots)),
        })
    }

    /// True when the budget is spent.
    #[inline]
    pub fn exhausted(&self) -> bool {
        self.remaining == Some(0)
    }

    /// Takes the next request's op without encoding it: the request was due but
    /// will never be sent (the phase ended first), and is counted under its op.
    /// `None` when the budget is spent.
    #[inline]
    pub fn skip_next(&mut self) -> Option<Op> {
        if let Some(left) = self.remaining.as_mut() {
            if *left == 0 {
                return None;
            }
            *left -= 1;
        }
        Some(self.cycle.next())
    }

    /// Appends the next request to `out`; returns its op and encoded length, or
    /// `None` when the budget is spent. Allocation-free apart from `out` growing.
    #[inline]
    pub fn encode_next(
        &mut self,
        out: &mut Vec<u8>,
        prefix: &[u8],
        values: &ValuePool,
    ) -> Option<(Op, usize)> {
        if let Some(left) = self.remaining.as_mut() {
            if *left == 0 {
                return None;
            }
            *left -= 1;
        }
        let op = self.cycle.next();
        let len = match op {
            Op::Set => {
                let key = self.set_keys.next(&mut self.rng);
                resp::encode_set(out, prefix, key, values.next(&mut self.rng))
            }
            Op::Get => {
                let key = self.get_keys.next(&mut self.rng);
                resp::encode_get(out, prefix, key)
            }
        };
        Some((op, len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config_with(args: &[&str]) -> Config {
        use clap::Parser;
        let mut full = vec!["kvbench"];
        full.extend_from_slice(args);
        Config::from_args(crate::cli::Args::try_parse_from(full).unwrap()).unwrap()
    }

    #[test]
    fn allkeys_budgets_sum_to_the_range_even_with_more_connections_than_keys() {
        for (max, slots) in [(9u64, 4u64), (9, 25), (999, 6)] {
            let c = config_with(&[
                "--key-minimum",
                "0",
                "--key-maximum",
                &max.to_string(),
                "-n",
                "allkeys",
            ]);
            let total: u64 = (0..slots)
                .map(|slot| {
                    let mut s = RequestSource::new(&c, Stop::AllKeys, slot, slots, 1).unwrap();
                    let mut out = Vec::new();
                    let values = ValuePool::new(&c.values, false, &mut SmallRng::seed_from_u64(1));
                    std::iter::from_fn(|| s.encode_next(&mut out, b"k", &values)).count() as u64
                })
                .sum();
            assert_eq!(total, max + 1, "range 0..={max} over {slots} connections");
        }
    }

    #[test]
    fn derived_seeds_differ_for_neighbouring_inputs() {
        let a = derive_seed(1, &[0, 0]);
        let b = derive_seed(1, &[0, 1]);
        let c = derive_seed(2, &[0, 0]);
        assert!(a != b && a != c && b != c);
        assert_eq!(a, derive_seed(1, &[0, 0]));
    }
}
