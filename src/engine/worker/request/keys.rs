//! Which generator picks a connection's keys: kvbench's own (one
//! [`KeyGen`] per op, drawing from the connection's `SmallRng`), or, under
//! `--memtier-compat`, memtier's (one [`MemtierKeyGen`] per op, all drawing
//! from one [`MemtierRandom`] seeded as memtier seeds the client), so that the
//! same command line sends memtier's keys in memtier's order. An op may draw
//! from another op's generator ([`OpDef::keys_of`]): the short MGET that ends
//! a `--multi-key-get` cycle continues the full MGETs' walk.

use rand::rngs::SmallRng;

use crate::config::{Config, Seeding};
use crate::workload::keys::memtier::{MemtierKeyGen, MemtierRandom, parallel_range};
use crate::workload::keys::{KeyGen, KeyGenError, KeyPattern};
#[cfg(doc)]
use crate::workload::ops::OpDef;

/// The key generators of one connection, one per op of the table, and the
/// generator each op draws from.
#[derive(Debug, Clone)]
pub(super) struct ConnKeys {
    /// `draws[op]`: the generator op `op` draws its keys from.
    draws: Vec<usize>,
    gens: Gens,
}

/// The generators themselves, kvbench's or memtier's.
#[derive(Debug, Clone)]
enum Gens {
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
    /// One generator, `walk`, for one op, which draws from it.
    pub(super) fn single(walk: KeyGen) -> Self {
        ConnKeys {
            draws: vec![0],
            gens: Gens::Own(vec![walk]),
        }
    }

    /// The generators of connection `slot` of `slots`: op `i` has pattern
    /// `patterns[i]` and draws from the generator of op `draws[i]` (an index
    /// out of range is taken as its own). `start` gives the slot a kvbench
    /// pattern starts from.
    pub(super) fn new(
        config: &Config,
        patterns: &[KeyPattern],
        draws: &[usize],
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
        let draws = (0..patterns.len())
            .map(|op| {
                draws
                    .get(op)
                    .copied()
                    .filter(|&d| d < patterns.len())
                    .unwrap_or(op)
            })
            .collect();
        if !config.semantics.memtier_compat {
            return Ok(ConnKeys {
                draws,
                gens: Gens::Own(own),
            });
        }
        // memtier narrows the whole client's range when its first command
        // (the SET of the pair) is P, for every pattern of the client.
        let range = match patterns.first() {
            Some(KeyPattern::Parallel) => parallel_range(range, slot, slots),
            _ => range,
        };
        Ok(ConnKeys {
            draws,
            gens: Gens::Memtier {
                gens: patterns
                    .iter()
                    .map(|&p| MemtierKeyGen::new(p, range))
                    .collect(),
                random: Box::new(MemtierRandom::new(memtier_seed(config, slot))),
            },
        })
    }

    /// How many ops have a generator.
    pub(super) fn len(&self) -> usize {
        self.draws.len()
    }

    /// The next key of op `op`; callers check `op < len()` first.
    #[inline]
    pub(super) fn next(&mut self, op: usize, rng: &mut SmallRng) -> u64 {
        let from = self.draws.get(op).copied().unwrap_or(op);
        match &mut self.gens {
            Gens::Own(gens) => gens.get_mut(from).map_or(0, |g| g.next(rng)),
            Gens::Memtier { gens, random } => gens.get_mut(from).map_or(0, |g| g.next(random)),
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
