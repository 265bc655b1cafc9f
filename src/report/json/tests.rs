//! memtier's percentile keys, character for character.

use super::percentile_key;

#[test]
fn percentile_keys_are_memtiers_snprintf_of_two_decimals_in_seven_bytes() {
    // memtier writes snprintf(buf, 7, "p%.2f", p): two decimals, and at most
    // six characters, so p100.00 comes out as p100.0.
    for (p, key) in [
        (50.0, "p50.00"),
        (99.0, "p99.00"),
        (99.9, "p99.90"),
        (99.99, "p99.99"),
        (100.0, "p100.0"),
        (5.0, "p5.00"),
        (0.5, "p0.50"),
        (99.95, "p99.95"),
    ] {
        assert_eq!(percentile_key(p), key, "{p}");
    }
}

#[test]
fn a_percentile_memtiers_key_would_misname_keeps_its_own_digits() {
    // memtier's key for 99.999 is p100.0 (rounded, then cut), which a reader
    // takes for the maximum and which p100 also writes; kvbench keeps p99.999.
    for (p, key) in [
        (99.999, "p99.999"),
        (99.9999, "p99.9999"),
        (0.001, "p0.001"),
    ] {
        assert_eq!(percentile_key(p), key, "{p}");
    }
    // Every key names its percentile: no two percentiles share one.
    let many = [50.0, 90.0, 99.0, 99.9, 99.99, 99.995, 99.999, 100.0];
    let keys: std::collections::BTreeSet<String> =
        many.iter().map(|&p| percentile_key(p)).collect();
    assert_eq!(keys.len(), many.len(), "{keys:?}");
}
