//! One master seed (`--seed`) made into independent seeds per thread,
//! client and op, so that a run is reproducible.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_seeds_differ_for_neighbouring_inputs() {
        let a = derive_seed(1, &[0, 0]);
        let b = derive_seed(1, &[0, 1]);
        let c = derive_seed(2, &[0, 0]);
        assert!(a != b && a != c && b != c);
        assert_eq!(a, derive_seed(1, &[0, 0]));
    }
}
