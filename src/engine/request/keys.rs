//! Which generator picks a connection's keys: kvbench's own (one
//! [`KeyGen`] per op, drawing from the connection's `SmallRng`), or, under
//! `--memtier-compat`, memtier's (one [`MemtierKeyGen`] per op, all drawing
//! from one [`MemtierRandom`] seeded as memtier seeds the client), so that the
//! same command line sends memtier's keys in memtier's order.

use rand::rngs::SmallRng;

use crate::config::{Config, Seeding};
use crate::workload::keys::memtier::{MemtierKeyGen, MemtierRandom, parallel_range};
use crate::workload::keys::{KeyGen, KeyGenError, KeyPattern};

/// The key generators of one connection, one per op of the table.
#[derive(Debug, Clone)]
pub(super) enum ConnKeys {
    /// kvbench's generators; they draw from the connection's RNG.
    Own(Vec<KeyGen>),
    /// memtier's generators and the client's one generator they share. It is
    /// apart from the RNG that values and `__rand_int__` use, as memtier
    /// draws nothing else from it for fixed-size values without expiry. The
    /// generator's 63-word state is boxed, once per connection and phase, to
    /// keep the enum as small as kvbench's variant.
    Memtier {
        gens: Vec<MemtierKeyGen>,
        random: Box<MemtierRandom>,
    },
}

impl ConnKeys {
    /// The generators of connection `slot` of `slots`. `start` gives the slot
    /// a kvbench pattern starts from.
    pub(super) fn new(
        config: &Config,
        patterns: &[KeyPattern],
        slot: u64,
        slots: u64,
        start: impl Fn(KeyPattern) -> u64,
    ) -> Result<Self, KeyGenError> {
        let range = config.keys.range;
        // kvbench's generators are built in either case: they check the
        // patterns against the range and the connection count.
        let own = patterns
            .iter()
            .map(|&p| KeyGen::new(p, range, start(p), slots))
            .collect::<Result<Vec<_>, _>>()?;
        if !config.semantics.memtier_compat {
            return Ok(ConnKeys::Own(own));
        }
        // memtier narrows the whole client's range when its first command
        // (the SET of the pair) is P, for every pattern of the client.
        let range = match patterns.first() {
            Some(KeyPattern::Parallel) => parallel_range(range, slot, slots),
            _ => range,
        };
        Ok(ConnKeys::Memtier {
            gens: patterns
                .iter()
                .map(|&p| MemtierKeyGen::new(p, range))
                .collect(),
            random: Box::new(MemtierRandom::new(memtier_seed(config, slot))),
        })
    }

    /// How many ops have a generator.
    pub(super) fn len(&self) -> usize {
        match self {
            ConnKeys::Own(gens) => gens.len(),
            ConnKeys::Memtier { gens, .. } => gens.len(),
        }
    }

    /// The next key of op `op`; callers check `op < len()` first.
    #[inline]
    pub(super) fn next(&mut self, op: usize, rng: &mut SmallRng) -> u64 {
        match self {
            ConnKeys::Own(gens) => gens.get_mut(op).map_or(0, |g| g.next(rng)),
            ConnKeys::Memtier { gens, random } => gens.get_mut(op).map_or(0, |g| g.next(random)),
        }
    }
}

/// The seed memtier's client `slot` passes to `set_seed`: the constant (or
/// `--randomize`'s) seed, plus the client's index with
/// `--distinct-client-seed`. memtier keeps it in a C `int`, so kvbench's
/// 64-bit seed is cut to its low 32 bits as the C conversion does.
fn memtier_seed(config: &Config, slot: u64) -> i32 {
    let master = config.stream_seed();
    let seed = match config.semantics.seeding {
        Seeding::PerClient => master.wrapping_add(slot),
        Seeding::Shared | Seeding::PerConnection => master,
    };
    seed as u32 as i32
}
