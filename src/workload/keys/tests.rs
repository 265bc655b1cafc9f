//! Tests for key ranges, key-pattern parsing and the per-pattern generators.

use super::*;
use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};
use std::collections::HashSet;

fn range(min: u64, max: u64) -> KeyRange {
    KeyRange { min, max }
}

fn draw(pattern: KeyPattern, r: KeyRange, n: usize, seed: u64) -> Vec<u64> {
    let mut keys = KeyGen::new(pattern, r, 0, 1).unwrap();
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..n).map(|_| keys.next(&mut rng)).collect()
}

fn all_patterns(r: KeyRange) -> [KeyPattern; 5] {
    let span = (r.max - r.min) as f64;
    [
        KeyPattern::Sequential,
        KeyPattern::Uniform,
        KeyPattern::Gaussian {
            median: r.min as f64 + span / 2.0,
            stddev: (span / 6.0).max(0.5),
        },
        KeyPattern::Parallel,
        KeyPattern::Zipfian { exponent: 0.99 },
    ]
}

#[test]
fn len_counts_inclusive_keys() {
    assert_eq!(range(1, 10).len(), 10);
    assert_eq!(range(7, 7).len(), 1);
    assert_eq!(range(8, 7).len(), 0);
    assert!(range(8, 7).is_empty());
    assert!(!range(7, 7).is_empty());
    assert_eq!(range(0, u64::MAX).len(), u64::MAX);
}

#[test]
fn slices_cover_the_range_exactly_disjoint_and_balanced() {
    for base in [0, 1000, u64::MAX - 40] {
        for len in 1..=41u64 {
            let r = range(base, base + (len - 1));
            for slots in 1..=len {
                let mut expected_min = r.min;
                for slot in 0..slots {
                    let s = r.slice(slot, slots);
                    assert_eq!(s.min, expected_min, "len {len} slots {slots} slot {slot}");
                    let size = len / slots + u64::from(slot < len % slots);
                    assert_eq!(s.len(), size, "len {len} slots {slots} slot {slot}");
                    expected_min = s.max.wrapping_add(1);
                }
                assert_eq!(expected_min, r.max.wrapping_add(1));
            }
        }
    }
}

#[test]
fn slice_of_full_u64_range_is_exact() {
    let full = range(0, u64::MAX);
    assert_eq!(full.slice(0, 2), range(0, u64::MAX / 2));
    assert_eq!(full.slice(1, 2), range(u64::MAX / 2 + 1, u64::MAX));
    assert_eq!(full.slice(0, 1), full);
}

#[test]
fn slice_folds_out_of_contract_arguments_into_the_range() {
    let r = range(10, 13);
    assert_eq!(r.slice(0, 0), r);
    assert_eq!(r.slice(5, 2), r.slice(1, 2));
    assert_eq!(r.slice(9, 100), r.slice(1, 4));
    assert_eq!(range(5, 4).slice(0, 3), range(5, 4));
}

#[test]
fn pattern_letters_round_trip() {
    for letter in ['S', 'R', 'G', 'P', 'Z'] {
        assert_eq!(PatternKind::from_letter(letter).unwrap().letter(), letter);
    }
    assert_eq!(PatternKind::from_letter('s'), None);
    let pattern = KeyPattern::Zipfian { exponent: 1.0 };
    assert_eq!(pattern.kind(), PatternKind::Zipfian);
}

#[test]
fn key_pattern_parses_set_and_get_letters() {
    assert_eq!(
        parse_key_pattern("S:R"),
        Ok((PatternKind::Sequential, PatternKind::Uniform))
    );
    assert_eq!(
        parse_key_pattern("G:Z"),
        Ok((PatternKind::Gaussian, PatternKind::Zipfian))
    );
    assert_eq!(
        parse_key_pattern("P:P"),
        Ok((PatternKind::Parallel, PatternKind::Parallel))
    );
}

#[test]
fn key_pattern_unknown_letter_is_named_with_the_valid_ones() {
    let err = parse_key_pattern("S:X").unwrap_err().to_string();
    assert!(err.contains("'X'"), "{err}");
    for valid in ["S ", "R ", "G ", "P ", "Z "] {
        assert!(err.contains(valid), "{err}");
    }
}

#[test]
fn key_pattern_malformed_input_is_rejected() {
    for bad in ["S", "SR", "S:R:G", "S:", ":R", " S:R", "SS:R", ""] {
        let err = parse_key_pattern(bad).unwrap_err().to_string();
        assert!(err.contains("expected SET:GET key pattern"), "{bad}: {err}");
    }
}

#[test]
fn new_rejects_empty_range_and_bad_slot() {
    assert!(KeyGen::new(KeyPattern::Uniform, range(5, 4), 0, 1).is_err());
    assert!(KeyGen::new(KeyPattern::Uniform, range(0, 9), 2, 2).is_err());
    assert!(KeyGen::new(KeyPattern::Uniform, range(0, 9), 0, 0).is_err());
}

#[test]
fn sequential_connections_each_taking_their_slice_cover_every_key_once() {
    let r = range(100, 1099);
    let slots = 7;
    let mut seen = Vec::new();
    let mut rng = SmallRng::seed_from_u64(1);
    for slot in 0..slots {
        let mut keys = KeyGen::new(KeyPattern::Sequential, r, slot, slots).unwrap();
        for _ in 0..r.slice(slot, slots).len() {
            seen.push(keys.next(&mut rng));
        }
    }
    seen.sort_unstable();
    assert_eq!(seen, (100..=1099).collect::<Vec<u64>>());
}

#[test]
fn sequential_walks_past_its_slice_and_wraps_at_the_end_of_the_range() {
    let mut keys = KeyGen::new(KeyPattern::Sequential, range(0, 9), 1, 2).unwrap();
    let mut rng = SmallRng::seed_from_u64(1);
    let walked: Vec<u64> = (0..8).map(|_| keys.next(&mut rng)).collect();
    assert_eq!(walked, [5, 6, 7, 8, 9, 0, 1, 2]);
}

#[test]
fn parallel_connections_stay_in_disjoint_slices() {
    let r = range(0, 99);
    let slots = 6;
    let mut owner = std::collections::HashMap::new();
    let mut rng = SmallRng::seed_from_u64(1);
    for slot in 0..slots {
        let own = r.slice(slot, slots);
        let mut keys = KeyGen::new(KeyPattern::Parallel, r, slot, slots).unwrap();
        for _ in 0..3 * own.len() {
            let key = keys.next(&mut rng);
            assert!(key >= own.min && key <= own.max);
            assert_eq!(*owner.entry(key).or_insert(slot), slot);
        }
    }
    assert_eq!(owner.len(), 100);
}

#[test]
fn parallel_needs_a_key_per_connection() {
    let err = KeyGen::new(KeyPattern::Parallel, range(0, 2), 0, 4)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("P needs at least one key per connection"),
        "{err}"
    );
    assert!(KeyGen::new(KeyPattern::Parallel, range(0, 3), 3, 4).is_ok());
}

#[test]
fn uniform_hits_every_key_of_a_small_range() {
    let seen: HashSet<u64> = draw(KeyPattern::Uniform, range(10, 19), 1000, 3)
        .into_iter()
        .collect();
    assert_eq!(seen, (10..=19).collect());
}

/// Mean and standard deviation of the keys.
fn moments(keys: &[u64]) -> (f64, f64) {
    let n = keys.len() as f64;
    let mean = keys.iter().map(|&k| k as f64).sum::<f64>() / n;
    let var = keys.iter().map(|&k| (k as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// With the range ±5σ wide, truncation is negligible, so the sample's mean and
/// deviation estimate the parameters to about 1 % at 20 000 draws: a stddev
/// halved or doubled, or a median moved by a fifth of σ, fails.
#[test]
fn gaussian_keys_have_the_given_median_and_stddev() {
    for (median, stddev) in [(5000.0, 1000.0), (5000.0, 200.0)] {
        let pattern = KeyPattern::Gaussian { median, stddev };
        let keys = draw(pattern, range(0, 9999), 20_000, 4);
        let (mean, sd) = moments(&keys);
        assert!(
            (mean - median).abs() < 0.05 * stddev,
            "mean {mean} for median {median}"
        );
        assert!(
            sd > 0.95 * stddev && sd < 1.05 * stddev,
            "sample stddev {sd} for stddev {stddev}"
        );
        let within = keys
            .iter()
            .filter(|&&k| (k as f64 - median).abs() <= stddev)
            .count() as f64
            / keys.len() as f64;
        // 68.3 % of a normal lies within one σ.
        assert!((0.66..0.71).contains(&within), "{within} within one stddev");
    }
}

#[test]
fn gaussian_rejects_bad_parameters() {
    let r = range(0, 99);
    for (median, stddev) in [
        (50.0, 0.0),
        (50.0, -1.0),
        (50.0, f64::NAN),
        (50.0, f64::INFINITY),
    ] {
        let err = KeyGen::new(KeyPattern::Gaussian { median, stddev }, r, 0, 1)
            .unwrap_err()
            .to_string();
        assert!(err.contains("stddev"), "{err}");
    }
    for median in [-1.0, 100.5, f64::NAN] {
        let pattern = KeyPattern::Gaussian {
            median,
            stddev: 1.0,
        };
        let err = KeyGen::new(pattern, r, 0, 1).unwrap_err().to_string();
        assert!(err.contains("median"), "{err}");
    }
}

/// `P(k) ∝ k^-s` summed over `lo..=hi`.
fn zipf_mass(lo: u64, hi: u64, s: f64) -> f64 {
    (lo..=hi).map(|k| (k as f64).powf(-s)).sum()
}

/// Over keys 1..=1000 the frequency of key 1 and the ratio of key 1 to key 2
/// (which is 2^s) pin the exponent: s scaled by 0.6 or doubled fails.
#[test]
fn zipfian_keys_follow_k_to_the_minus_s() {
    for s in [0.5, 1.0, 1.5] {
        let keys = draw(
            KeyPattern::Zipfian { exponent: s },
            range(1, 1000),
            200_000,
            5,
        );
        let count = |key: u64| keys.iter().filter(|&&k| k == key).count() as f64;
        let p1 = count(1) / keys.len() as f64;
        let expected = 1.0 / zipf_mass(1, 1000, s);
        assert!(
            (p1 - expected).abs() < 0.06 * expected,
            "s {s}: P(1) {p1}, expected {expected}"
        );
        let fitted = (count(1) / count(2)).log2();
        assert!((fitted - s).abs() < 0.1, "s {s}: fitted exponent {fitted}");
    }
}

/// memtier's semantics: the weight is the key number's, not its rank's. Over
/// 1000..=1999 at s = 1 the lower half holds ln(1499.5/999.5) / ln(1999.5/999.5)
/// ≈ 58.5 % of the draws; ranking from --key-minimum would give about 90 %.
#[test]
fn zipfian_weights_absolute_key_numbers_like_memtier() {
    let keys = draw(
        KeyPattern::Zipfian { exponent: 1.0 },
        range(1000, 1999),
        100_000,
        12,
    );
    let lower = keys.iter().filter(|&&k| k < 1500).count() as f64 / keys.len() as f64;
    let expected = zipf_mass(1000, 1499, 1.0) / zipf_mass(1000, 1999, 1.0);
    assert!((lower - expected).abs() < 0.01, "{lower} vs {expected}");
    let count = |key: u64| keys.iter().filter(|&&k| k == key).count() as f64;
    // The hottest key is about twice as frequent as the coldest, not 1000 times.
    let hottest = count(1000);
    assert!(hottest < 250.0, "key 1000 drawn {hottest} times of 100000");
    // Key 0 has no weight: a range from 0 draws from 1 like memtier.
    assert!(
        draw(
            KeyPattern::Zipfian { exponent: 1.0 },
            range(0, 50),
            5000,
            13
        )
        .iter()
        .all(|&k| k >= 1)
    );
}

#[test]
fn zipfian_rejects_bad_exponent() {
    for exponent in [0.0, -1.0, 5.0, 7.0, f64::NAN, f64::INFINITY] {
        let err = KeyGen::new(KeyPattern::Zipfian { exponent }, range(0, 9), 0, 1)
            .unwrap_err()
            .to_string();
        assert!(err.contains("exponent"), "{err}");
    }
}

/// Counts the 64-bit words drawn, to measure sampling cost without timing.
struct CountingRng {
    inner: SmallRng,
    words: u64,
}

impl RngCore for CountingRng {
    fn next_u32(&mut self) -> u32 {
        self.words += 1;
        self.inner.next_u32()
    }
    fn next_u64(&mut self) -> u64 {
        self.words += 1;
        self.inner.next_u64()
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.words += dst.len().div_ceil(8) as u64;
        self.inner.fill_bytes(dst);
    }
}

/// Each rejection round costs one draw; acceptance is above 80 % for every
/// exponent here, so a bound of two catches a sampler that degrades with n
/// without being flaky.
#[test]
fn zipfian_over_ten_million_keys_costs_a_few_draws_per_key() {
    let r = range(0, 9_999_999);
    for exponent in [0.1, 0.5, 0.99, 1.0, 1.5, 4.9] {
        let mut keys = KeyGen::new(KeyPattern::Zipfian { exponent }, r, 0, 1).unwrap();
        let mut rng = CountingRng {
            inner: SmallRng::seed_from_u64(6),
            words: 0,
        };
        let samples = 100_000;
        for _ in 0..samples {
            assert!(keys.next(&mut rng) <= r.max);
        }
        let per_key = rng.words as f64 / samples as f64;
        assert!(
            per_key < 2.0,
            "exponent {exponent}: {per_key} draws per key"
        );
    }
}

#[test]
fn every_pattern_stays_inside_random_ranges() {
    let mut rng = SmallRng::seed_from_u64(7);
    let mut ranges = vec![range(0, 0), range(u64::MAX, u64::MAX), range(0, u64::MAX)];
    ranges.push(range(u64::MAX - 3, u64::MAX));
    for _ in 0..200 {
        let a = rng.random::<u64>() >> rng.random_range(0..64);
        let b = a.saturating_add(rng.random::<u64>() >> rng.random_range(0..64));
        ranges.push(range(a, b));
        ranges.push(range(u64::MAX - (b - a), u64::MAX));
    }
    for r in ranges {
        let slots = rng.random_range(1..=r.len().min(8));
        let slot = rng.random_range(0..slots);
        for pattern in all_patterns(r) {
            let mut keys = KeyGen::new(pattern, r, slot, slots).unwrap();
            for _ in 0..200 {
                let key = keys.next(&mut rng);
                assert!(key >= r.min && key <= r.max, "{pattern:?} {r:?}: {key}");
            }
        }
    }
}

#[test]
fn gaussian_far_outside_mass_still_stays_in_range() {
    let pattern = KeyPattern::Gaussian {
        median: 0.0,
        stddev: 1e12,
    };
    assert!(draw(pattern, range(0, 3), 1000, 8).iter().all(|&k| k <= 3));
}

#[test]
fn same_seed_repeats_and_different_seeds_differ() {
    for pattern in all_patterns(range(0, 1_000_000)) {
        let r = range(0, 1_000_000);
        let first = draw(pattern, r, 64, 9);
        assert_eq!(first, draw(pattern, r, 64, 9), "{pattern:?}");
        let walks = matches!(pattern, KeyPattern::Sequential | KeyPattern::Parallel);
        if !walks {
            assert_ne!(first, draw(pattern, r, 64, 10), "{pattern:?}");
        }
    }
}
