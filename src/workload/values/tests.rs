//! Tests for value-size parsing, size sampling and the value byte pool.

use super::*;
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn sizes(spec: &SizeSpec, n: usize, seed: u64) -> Vec<usize> {
    let sampler = SizeSampler::new(spec);
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..n).map(|_| sampler.sample(0, &mut rng)).collect()
}

#[test]
fn fixed_size_is_exact() {
    assert!(sizes(&SizeSpec::Fixed(32), 100, 1).iter().all(|&s| s == 32));
}

#[test]
fn range_sizes_stay_in_bounds_and_reach_both_ends() {
    let drawn = sizes(&SizeSpec::Range { min: 10, max: 20 }, 2000, 2);
    assert!(drawn.iter().all(|s| (10..=20).contains(s)));
    assert!(drawn.contains(&10) && drawn.contains(&20));
}

#[test]
fn list_sizes_follow_the_weights() {
    let spec = SizeSpec::parse_list("16:1,512:3").unwrap();
    let drawn = sizes(&spec, 40_000, 3);
    assert!(drawn.iter().all(|&s| s == 16 || s == 512));
    let large = drawn.iter().filter(|&&s| s == 512).count() as f64 / 40_000.0;
    assert!((large - 0.75).abs() < 0.02, "512-byte share {large}");
}

#[test]
fn list_with_one_entry_always_yields_it() {
    let spec = SizeSpec::parse_list("100:7").unwrap();
    assert!(sizes(&spec, 100, 4).iter().all(|&s| s == 100));
}

#[test]
fn range_parses_min_and_max() {
    assert_eq!(
        SizeSpec::parse_range("10-100"),
        Ok(SizeSpec::Range { min: 10, max: 100 })
    );
    assert_eq!(
        SizeSpec::parse_range("7-7"),
        Ok(SizeSpec::Range { min: 7, max: 7 })
    );
}

#[test]
fn range_rejects_malformed_zero_and_inverted_input() {
    for bad in ["", "10", "10-", "-10", "a-b", "10-20-30", " 10-20", "+1-2"] {
        let err = SizeSpec::parse_range(bad).unwrap_err().to_string();
        assert!(err.contains("expected MIN-MAX"), "{bad}: {err}");
    }
    assert!(
        SizeSpec::parse_range("0-10")
            .unwrap_err()
            .to_string()
            .contains("at least 1")
    );
    let err = SizeSpec::parse_range("20-10").unwrap_err().to_string();
    assert!(err.contains("above maximum"), "{err}");
}

#[test]
fn list_parses_size_weight_pairs() {
    assert_eq!(
        SizeSpec::parse_list("16:1,512:3"),
        Ok(SizeSpec::List(vec![(16, 1), (512, 3)]))
    );
}

#[test]
fn list_errors_name_the_bad_entry() {
    for (input, entry) in [
        ("16:1,512", "'512'"),
        ("16:1,x:3", "'x:3'"),
        ("16:1,", "''"),
        ("16:1,0:3", "'0:3'"),
        ("16:0", "'16:0'"),
        ("16:1:2", "'16:1:2'"),
    ] {
        let err = SizeSpec::parse_list(input).unwrap_err().to_string();
        assert!(err.contains(entry), "{input}: {err}");
    }
    assert!(
        SizeSpec::parse_list("")
            .unwrap_err()
            .to_string()
            .contains("at least one")
    );
}

#[test]
fn display_matches_the_command_line_forms() {
    assert_eq!(SizeSpec::Fixed(32).to_string(), "32");
    assert_eq!(SizeSpec::Range { min: 10, max: 100 }.to_string(), "10-100");
    assert_eq!(
        SizeSpec::List(vec![(16, 1), (512, 3)]).to_string(),
        "16:1,512:3"
    );
}

#[test]
fn max_and_mean_sizes() {
    assert_eq!(SizeSpec::Fixed(32).max_size(), 32);
    assert_eq!(SizeSpec::Fixed(32).mean_size(), 32.0);
    let range = SizeSpec::Range { min: 10, max: 100 };
    assert_eq!((range.max_size(), range.mean_size()), (100, 55.0));
    let list = SizeSpec::List(vec![(16, 1), (512, 3)]);
    assert_eq!((list.max_size(), list.mean_size()), (512, 388.0));
}

#[test]
fn hand_built_degenerate_specs_do_not_panic() {
    let inverted = SizeSpec::Range { min: 20, max: 10 };
    assert!(
        sizes(&inverted, 100, 5)
            .iter()
            .all(|s| (10..=20).contains(s))
    );
    let zero_weights = SizeSpec::List(vec![(8, 0), (9, 0)]);
    assert!(sizes(&zero_weights, 10, 5).iter().all(|&s| s == 8));
    assert_eq!(zero_weights.mean_size(), 8.0);
    let empty = SizeSpec::List(Vec::new());
    assert_eq!((empty.max_size(), empty.mean_size()), (0, 0.0));
    let mut rng = SmallRng::seed_from_u64(5);
    for spec in [empty, SizeSpec::Fixed(0), zero_weights, inverted] {
        for random in [false, true] {
            let pool = ValuePool::new(&spec, random, &mut rng);
            assert!(pool.next(0, &mut rng).len() <= spec.max_size());
        }
    }
}

#[test]
fn zero_weight_entries_are_never_chosen() {
    let spec = SizeSpec::List(vec![(8, 0), (9, 1), (10, 0)]);
    assert!(sizes(&spec, 200, 6).iter().all(|&s| s == 9));
}

#[test]
fn constant_pool_yields_x_bytes_of_the_sampled_size() {
    let mut rng = SmallRng::seed_from_u64(7);
    let pool = ValuePool::new(&SizeSpec::Range { min: 1, max: 64 }, false, &mut rng);
    for _ in 0..200 {
        let value = pool.next(0, &mut rng);
        assert!((1..=64).contains(&value.len()));
        assert!(value.iter().all(|&b| b == b'x'));
    }
}

#[test]
fn random_pool_yields_alphanumeric_values_that_differ() {
    let mut rng = SmallRng::seed_from_u64(8);
    let pool = ValuePool::new(&SizeSpec::Fixed(32), true, &mut rng);
    let first = pool.next(0, &mut rng).to_vec();
    assert_eq!(first.len(), 32);
    assert!(first.iter().all(u8::is_ascii_alphanumeric));
    let distinct = (0..20).filter(|_| pool.next(0, &mut rng) != first).count();
    assert!(distinct >= 18, "only {distinct} of 20 values differed");
}

#[test]
fn same_seed_gives_the_same_values() {
    let spec = SizeSpec::parse_list("4:1,40:1").unwrap();
    let run = |seed| {
        let mut rng = SmallRng::seed_from_u64(seed);
        let pool = ValuePool::new(&spec, true, &mut rng);
        (0..50)
            .map(|_| pool.next(0, &mut rng).to_vec())
            .collect::<Vec<_>>()
    };
    assert_eq!(run(9), run(9));
    assert_ne!(run(9), run(10));
}
