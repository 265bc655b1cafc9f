//! Workload shape: which ops a run sends ([`ops`]) and in which order
//! ([`mix`]), which key each touches ([`keys`]) and which value bytes a
//! `__data__` carries ([`values`]); memtier's import file ([`import`]) and
//! MONITOR capture ([`monitor`]).
//!
//! Everything here is pure and deterministic given a seeded RNG, so a run can
//! be replayed exactly. Constructors do all the allocation and validation; the
//! per-request `next` methods allocate nothing because they sit on the hot
//! path of every connection.

pub mod import;
pub mod keys;
pub mod mix;
pub mod monitor;
pub mod ops;
pub mod pair;
pub mod seed;
pub mod values;

use std::str::FromStr;

/// Parses a plain decimal number made only of ASCII digits.
///
/// Rust's integer parsers accept a leading `+`, which memtier's options never
/// do; rejecting it here keeps every count and size in this module to the
/// same strict, unsurprising grammar.
pub(crate) fn parse_decimal<T: FromStr>(s: &str) -> Option<T> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_parser_accepts_only_plain_digits() {
        assert_eq!(parse_decimal::<u32>("42"), Some(42));
        assert_eq!(parse_decimal::<u32>("007"), Some(7));
        assert_eq!(parse_decimal::<u32>("+1"), None);
        assert_eq!(parse_decimal::<u32>("-1"), None);
        assert_eq!(parse_decimal::<u32>(" 1"), None);
        assert_eq!(parse_decimal::<u32>(""), None);
        assert_eq!(parse_decimal::<u32>("4294967296"), None);
    }
}
