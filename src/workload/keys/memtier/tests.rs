//! memtier's generator against values glibc and memtier printed.

use crate::workload::keys::memtier::{
    GlibcRandom, MemtierKeyGen, MemtierRandom, allkeys_requests, gaussian_defaults, parallel_range,
};
use crate::workload::keys::{KeyPattern, KeyRange};

fn outputs(seed: u32) -> Vec<u32> {
    let mut g = GlibcRandom::new(seed);
    (0..6).map(|_| g.next_u31()).collect()
}

/// Printed once by a C program calling glibc 2.x's `initstate_r(seed, state,
/// 512, &data)` and then `random_r(&data, &r)` six times.
#[test]
fn glibc_random_r_matches_glibcs_own_outputs() {
    let one = [
        510_644_794,
        625_058_908,
        1_816_371_419,
        326_864_818,
        1_257_431_873,
        415_485_223,
    ];
    assert_eq!(outputs(1), one);
    // glibc replaces the seed 0 by 1.
    assert_eq!(outputs(0), one);
    assert_eq!(
        outputs(2),
        [
            1_310_390_767,
            1_420_222_756,
            1_873_455_693,
            120_790_236,
            732_232_760,
            1_648_581_564
        ]
    );
    assert_eq!(
        outputs(3),
        [
            178_170_992,
            1_063_827_427,
            1_181_341_998,
            194_262_472,
            2_069_136_702,
            361_693_684
        ]
    );
    // Seeds that are negative as glibc's int32 state word.
    assert_eq!(
        outputs(2_147_483_648),
        [
            1_486_258_285,
            697_494_163,
            1_614_005_767,
            587_142_167,
            954_958_182,
            1_116_272_038
        ]
    );
    assert_eq!(
        outputs(u32::MAX),
        [
            197_757_835,
            1_249_402_140,
            314_213_851,
            969_381_218,
            879_125_223,
            269_097_173
        ]
    );
}

#[test]
fn the_ring_keeps_agreeing_past_its_length() {
    // A thousand outputs wrap both indices of the 63-element ring many times.
    // With separation 1 the unshifted values obey r[n] = r[n-63] + r[n-1]
    // (mod 2^32); glibc drops the low bit, so the outputs obey it up to a
    // carry of one: o[n] ∈ {o[n-63] + o[n-1], … + 1} modulo 2^31.
    let mut g = GlibcRandom::new(7);
    let o: Vec<u32> = (0..1_000).map(|_| g.next_u31()).collect();
    for n in 63..o.len() {
        let sum = o[n - 63].wrapping_add(o[n - 1]) & 0x7fff_ffff;
        let diff = o[n].wrapping_sub(sum) & 0x7fff_ffff;
        assert!(diff <= 1, "output {n}: {} vs {}", o[n], sum);
    }
}

#[test]
fn memtier_seeds_glibc_with_seed_plus_one() {
    let mut r = MemtierRandom::new(0);
    assert_eq!(r.next_u62(), (510_644_794 << 31) | 625_058_908);
    let mut r = MemtierRandom::new(1);
    assert_eq!(r.next_u62(), (1_310_390_767 << 31) | 1_420_222_756);
}

#[test]
fn uniform_keys_are_memtiers_first_keys() {
    // memtier -n 100 --key-pattern R:R --key-maximum 1000 sent memtier-870,
    // then memtier-543 (tests/data/memtier-monitor/rr.keys).
    let mut r = MemtierRandom::new(0);
    let mut keys = MemtierKeyGen::new(KeyPattern::Uniform, KeyRange { min: 0, max: 1000 });
    assert_eq!([keys.next(&mut r), keys.next(&mut r)], [870, 543]);
}

#[test]
fn gaussian_keys_are_memtiers_first_keys() {
    let range = KeyRange { min: 0, max: 1000 };
    let (median, stddev) = gaussian_defaults(range);
    assert_eq!((median, stddev), (500.5, 1000.0 / 6.0));
    let mut r = MemtierRandom::new(0);
    let mut set = MemtierKeyGen::new(KeyPattern::Gaussian { median, stddev }, range);
    let mut get = set.clone();
    // SET, GET, SET, GET share one generator and its spare deviate.
    let seen = [
        set.next(&mut r),
        get.next(&mut r),
        set.next(&mut r),
        get.next(&mut r),
    ];
    assert_eq!(seen, [424, 600, 559, 713]);
}

#[test]
fn walks_start_at_the_bottom_and_wrap() {
    let mut r = MemtierRandom::new(0);
    let mut keys = MemtierKeyGen::new(KeyPattern::Sequential, KeyRange { min: 5, max: 7 });
    let seen: Vec<u64> = (0..5).map(|_| keys.next(&mut r)).collect();
    assert_eq!(seen, [5, 6, 7, 5, 6]);
}

#[test]
fn parallel_shares_are_memtiers() {
    let range = KeyRange { min: 1, max: 100 };
    let shares: Vec<(u64, u64)> = (0..3)
        .map(|i| parallel_range(range, i, 3))
        .map(|r| (r.min, r.max))
        .collect();
    // (100 - 1) / 3 + 1 = 34 keys each, the last one the rest.
    assert_eq!(shares, [(1, 34), (35, 68), (69, 100)]);
    let r = parallel_range(KeyRange { min: 0, max: 1000 }, 3, 4);
    assert_eq!((r.min, r.max), (753, 1000));
}

#[test]
fn allkeys_counts_are_memtiers() {
    let range = KeyRange { min: 1, max: 1000 };
    assert_eq!(allkeys_requests(range, false, 2), 999);
    assert_eq!(allkeys_requests(KeyRange { min: 0, max: 100 }, true, 3), 34);
}

#[test]
fn zipf_keys_stay_in_range_and_favour_low_numbers() {
    for exponent in [1.0, 0.5, 2.0] {
        let range = KeyRange { min: 1, max: 100 };
        let mut r = MemtierRandom::new(0);
        let mut keys = MemtierKeyGen::new(KeyPattern::Zipfian { exponent }, range);
        let draws: Vec<u64> = (0..2_000).map(|_| keys.next(&mut r)).collect();
        assert!(draws.iter().all(|k| (1..=100).contains(k)), "{exponent}");
        let low = draws.iter().filter(|&&k| k <= 10).count();
        let high = draws.iter().filter(|&&k| k > 90).count();
        assert!(low > 2 * high, "{exponent}: {low} low, {high} high");
    }
}
