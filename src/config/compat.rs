//! kvbench's own semantics and memtier_benchmark's, where they differ on purpose.
//!
//! kvbench keeps memtier's flag names but changes a few defaults that make
//! numbers easier to trust: a random seed per connection (so connections do
//! not replay each other's keys), reconnects on, a connection timeout, and
//! `-n allkeys` / the `S` pattern splitting the range across connections.
//! `--memtier-compat` restores memtier's meaning of every one of them, so that
//! an old memtier baseline can be reproduced and then compared with kvbench's
//! defaults. docs/memtier-compat.md lists every difference.

use std::time::Duration;

use crate::cli::Args;
use crate::config::MAX_SEED;
use crate::error::UsageError;
use crate::workload::seed::derive_seed;

/// How each connection's RNG seed is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seeding {
    /// kvbench: every connection of every phase its own seed, derived from the
    /// master seed, its thread, its index and the phase.
    PerConnection,
    /// memtier's default (and `--randomize`): every connection the same seed in
    /// every run, so all connections draw the same key sequence.
    Shared,
    /// memtier's `--distinct-client-seed`: each connection its own seed, the
    /// same in every run.
    PerClient,
}

/// How `S` and `-n allkeys` share the key range among connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeSharing {
    /// kvbench: connection *i* starts at its own slice, and `-n allkeys` gives
    /// each connection its slice's length, so together they write every key once.
    Split,
    /// memtier: every connection starts at `--key-minimum`, and `-n allkeys`
    /// makes each one walk the whole range.
    Whole,
}

/// Which of the two semantics a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Semantics {
    /// `--memtier-compat` was given.
    pub memtier_compat: bool,
    /// Per-connection seeds.
    pub seeding: Seeding,
    /// Key range sharing.
    pub range_sharing: RangeSharing,
}

impl Semantics {
    /// The seed connection `slot` uses, given the seed kvbench derived for it and
    /// this phase (`derived`).
    pub fn connection_seed(&self, master: u64, slot: u64, derived: u64) -> u64 {
        match self.seeding {
            Seeding::PerConnection => derived,
            Seeding::Shared => derive_seed(master, &[]),
            Seeding::PerClient => derive_seed(master, &[slot]),
        }
    }

    /// The slot whose slice a sequential walk starts from: its own, or the
    /// range's start for every connection.
    pub fn walk_slot(&self, slot: u64) -> u64 {
        match self.range_sharing {
            RangeSharing::Split => slot,
            RangeSharing::Whole => 0,
        }
    }
}

/// What `--memtier-compat` (or its absence) makes of the seed flags.
pub(super) fn build_semantics(a: &Args) -> Semantics {
    let (seeding, range_sharing) = if a.memtier_compat {
        let seeding = if a.distinct_client_seed {
            Seeding::PerClient
        } else {
            Seeding::Shared
        };
        (seeding, RangeSharing::Whole)
    } else {
        (Seeding::PerConnection, RangeSharing::Split)
    };
    Semantics {
        memtier_compat: a.memtier_compat,
        seeding,
        range_sharing,
    }
}

/// memtier's seed without `--randomize`. memtier seeds every client with a
/// constant, so two runs of the same command draw the same keys.
pub const MEMTIER_CONSTANT_SEED: u64 = 0;

/// `--seed`, `--randomize` and the default: kvbench draws a random seed (and
/// reports it); memtier uses a constant one unless `--randomize`.
pub(super) fn build_seed(a: &Args) -> Result<u64, UsageError> {
    match a.seed {
        Some(_) if a.randomize => Err(UsageError::new(
            "--randomize",
            "asks for a random seed, but --seed fixes one; give one of them",
        )),
        Some(s) if s > MAX_SEED => Err(UsageError::new(
            "--seed",
            format!(
                "{s} is above {MAX_SEED}, the largest seed JSON readers keep exactly; choose a smaller one"
            ),
        )),
        Some(s) => Ok(s),
        None if a.memtier_compat && !a.randomize => Ok(MEMTIER_CONSTANT_SEED),
        None => Ok(rand::random::<u64>() & MAX_SEED),
    }
}

/// How long "no connection timeout" waits: memtier's `--connection-timeout 0`
/// means none, and a day is longer than any benchmark's patience.
pub const NO_CONNECT_TIMEOUT: Duration = Duration::from_secs(86_400);

/// The connection timeout: kvbench's default is 5 s and rejects 0; under
/// `--memtier-compat` the default is memtier's 0, and 0 means no timeout.
pub(super) fn connect_timeout_secs(a: &Args) -> Option<f64> {
    match (a.memtier_compat, a.connection_timeout) {
        (true, None | Some(0.0)) => None,
        (_, given) => Some(given.unwrap_or(5.0)),
    }
}

/// Reconnect settings under `--memtier-compat`: reconnect only with
/// `--reconnect-on-error`, attempts unlimited (0) unless given, and a backoff
/// factor of 0 (memtier's default) means a constant wait, which is kvbench's 1.
pub(super) fn memtier_reconnects(a: &Args) -> (bool, u32, Option<f64>) {
    let factor = match a.reconnect_backoff_factor {
        None => Some(1.0),
        Some(f) if f.is_finite() && (0.0..1.0).contains(&f) => Some(1.0),
        given => given,
    };
    (
        a.reconnect_on_error && !a.no_reconnect,
        a.max_reconnect_attempts.unwrap_or(0),
        factor,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use crate::config::Config;
    use clap::Parser;

    fn config(args: &[&str]) -> Result<Config, UsageError> {
        let mut full = vec!["kvbench"];
        full.extend_from_slice(args);
        Config::from_args(Cli::try_parse_from(full).unwrap().run)
    }

    #[test]
    fn memtier_compat_seeds_like_memtier() {
        let c = config(&["--memtier-compat"]).unwrap();
        assert_eq!(c.seed, MEMTIER_CONSTANT_SEED);
        assert_eq!(c.semantics.seeding, Seeding::Shared);
        assert_eq!(c.semantics.range_sharing, RangeSharing::Whole);
        let c = config(&["--memtier-compat", "--distinct-client-seed"]).unwrap();
        assert_eq!(c.semantics.seeding, Seeding::PerClient);
        let c = config(&["--memtier-compat", "--seed", "9"]).unwrap();
        assert_eq!(c.seed, 9);
        // --randomize draws a seed; two draws of 53 bits do not collide.
        let a = config(&["--memtier-compat", "--randomize"]).unwrap().seed;
        let b = config(&["--memtier-compat", "--randomize"]).unwrap().seed;
        assert_ne!(a, b);
        let e = config(&["--randomize", "--seed", "1"]).unwrap_err();
        assert_eq!(e.flag, "--randomize");
    }

    #[test]
    fn kvbench_keeps_its_own_seeding_without_memtier_compat() {
        let c = config(&["--distinct-client-seed"]).unwrap();
        assert_eq!(c.semantics.seeding, Seeding::PerConnection);
        assert_eq!(c.semantics.range_sharing, RangeSharing::Split);
        assert!(!c.semantics.memtier_compat);
    }

    #[test]
    fn shared_seeding_gives_every_slot_the_same_seed_and_per_client_its_own() {
        let shared = config(&["--memtier-compat"]).unwrap().semantics;
        assert_eq!(
            shared.connection_seed(7, 0, 100),
            shared.connection_seed(7, 5, 200)
        );
        let own = config(&["--memtier-compat", "--distinct-client-seed"])
            .unwrap()
            .semantics;
        assert_ne!(
            own.connection_seed(7, 0, 100),
            own.connection_seed(7, 1, 100)
        );
        // The same slot keeps its seed in every phase.
        assert_eq!(
            own.connection_seed(7, 1, 100),
            own.connection_seed(7, 1, 300)
        );
        let kvbench = config(&[]).unwrap().semantics;
        assert_eq!(kvbench.connection_seed(7, 1, 300), 300);
        assert_eq!(shared.walk_slot(3), 0);
        assert_eq!(kvbench.walk_slot(3), 3);
    }

    #[test]
    fn memtier_compat_restores_memtiers_reconnects_and_timeouts() {
        let c = config(&["--memtier-compat"]).unwrap();
        assert!(!c.faults.reconnect);
        assert_eq!(c.faults.max_reconnect_attempts, 0);
        assert_eq!(c.faults.backoff_factor, 1.0);
        assert_eq!(c.target.connect_timeout, NO_CONNECT_TIMEOUT);
        let c = config(&[
            "--memtier-compat",
            "--reconnect-on-error",
            "--reconnect-backoff-factor",
            "0",
            "--connection-timeout",
            "0",
            "--max-reconnect-attempts",
            "3",
        ])
        .unwrap();
        assert!(c.faults.reconnect);
        assert_eq!(c.faults.max_reconnect_attempts, 3);
        assert_eq!(c.faults.backoff_factor, 1.0);
        assert_eq!(c.target.connect_timeout, NO_CONNECT_TIMEOUT);
        let c = config(&["--memtier-compat", "--connection-timeout", "2"]).unwrap();
        assert_eq!(c.target.connect_timeout, Duration::from_secs(2));
        // kvbench's own defaults, and its refusals of 0.
        let c = config(&[]).unwrap();
        assert!(c.faults.reconnect);
        assert_eq!(c.faults.max_reconnect_attempts, 20);
        assert_eq!(c.target.connect_timeout, Duration::from_secs(5));
        for flag in ["--connection-timeout", "--reconnect-backoff-factor"] {
            assert_eq!(config(&[flag, "0"]).unwrap_err().flag, flag);
        }
    }
}
