//! Key numbers: inclusive key ranges, memtier's `--key-pattern` letters and
//! the per-connection generators that pick the key of every request.
//!
//! Keys are plain integers; the caller prepends the key prefix. A connection
//! is slot `slot` of `slots` connections in the whole run (threads × clients),
//! and [`KeyRange::slice`] gives it its own contiguous share of the range.
//! The patterns behave as follows:
//!
//! - **Sequential (`S`)** starts at the first key of its own slice and walks
//!   upward by one through the *whole* range, wrapping from `max` to `min`.
//!   When every connection sends as many requests as its slice holds (about
//!   `len / slots`, memtier's `-n allkeys`), the connections cover adjacent
//!   stretches and every key is written exactly once.
//! - **Parallel (`P`)** walks only its own slice, wrapping within it, so no
//!   two connections ever touch the same key however long they run. It needs
//!   at least one key per connection.
//! - **Uniform (`R`)** draws every key of the range with equal probability.
//! - **Gaussian (`G`)** draws from a normal distribution with the given
//!   median and standard deviation and rounds to the nearest key. A draw that
//!   falls outside the range is redrawn, which yields a truncated normal; after
//!   [`GAUSSIAN_TRIES`] misses the last draw is clamped instead, so a median
//!   near an edge with a huge deviation cannot stall the hot path.
//! - **Zipfian (`Z`)** draws key `k` with probability proportional to
//!   `k^-exponent` over the absolute key numbers `[max(1, min), max]`, as
//!   memtier_benchmark does: the weight belongs to the key number, not to its
//!   rank in the range, so a range far from 1 is only mildly skewed (over keys
//!   1000–1999 at exponent 1 the hottest key is twice as likely as the
//!   coldest). Sampling is rejection-inversion ([`zipf`]): constant memory and
//!   about one draw per key whatever the range size.
//!
//! Every generator returns only keys inside its range, including ranges of a
//! single key and ranges that end at `u64::MAX`.

use rand::Rng;
use rand_distr::{Distribution, Normal, NormalError};

pub mod memtier;
pub mod zipf;

use zipf::AbsoluteZipf;

/// Exponents of the Z pattern lie in `(0, MAX_ZIPF_EXPONENT)`, memtier's bound.
pub const MAX_ZIPF_EXPONENT: f64 = 5.0;

/// How many Gaussian draws may fall outside the range before the last one is
/// clamped. Sixteen misses in a row happen with probability below 1e-4 even
/// when the range holds only half of the distribution's mass, so clamping is
/// rare enough not to pile visible weight onto the edge keys.
pub const GAUSSIAN_TRIES: u32 = 16;

/// Inclusive range of key numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyRange {
    /// First key number.
    pub min: u64,
    /// Last key number, inclusive.
    pub max: u64,
}

impl KeyRange {
    /// Number of keys, `max - min + 1`; zero when `min > max`.
    ///
    /// The full `0..=u64::MAX` range holds 2^64 keys, one more than a `u64`
    /// can count, so its length saturates at `u64::MAX`.
    pub fn len(&self) -> u64 {
        if self.is_empty() {
            0
        } else {
            (self.max - self.min).saturating_add(1)
        }
    }

    /// True when the range holds no key at all (`min > max`).
    pub fn is_empty(&self) -> bool {
        self.min > self.max
    }

    /// The `slot`-th of `slots` disjoint contiguous slices that together cover
    /// the range exactly.
    ///
    /// Slice sizes differ by at most one key: the first `len % slots` slices
    /// hold the extra key. Callers guarantee `1 <= slots <= len` and
    /// `slot < slots`. Other arguments are folded into that contract rather
    /// than panicking: `slots` is clamped into `1..=len` and `slot` is taken
    /// modulo `slots`, so the result is always a non-empty part of the range.
    /// An empty range is returned unchanged.
    pub fn slice(&self, slot: u64, slots: u64) -> KeyRange {
        if self.is_empty() {
            return *self;
        }
        // u128 holds the exact length of every range, including the full u64
        // range whose 2^64 keys would overflow `len()`.
        let len = u128::from(self.max - self.min) + 1;
        let slots = u128::from(slots).clamp(1, len);
        let slot = u128::from(slot) % slots;
        let (base, extra) = (len / slots, len % slots);
        let start = slot * base + slot.min(extra);
        let size = base + u128::from(slot < extra);
        // Both offsets are below `len`, hence at most `max - min`, so they fit
        // in a u64 and adding them to `min` cannot overflow.
        KeyRange {
            min: self.min + start as u64,
            max: self.min + (start + size - 1) as u64,
        }
    }
}

/// One letter of memtier's `--key-pattern` SET:GET form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternKind {
    /// `S`: sequential through the whole range.
    Sequential,
    /// `R`: uniform random.
    Uniform,
    /// `G`: Gaussian around a median.
    Gaussian,
    /// `P`: sequential within the connection's own slice.
    Parallel,
    /// `Z`: Zipfian over absolute key numbers, low key numbers most frequent.
    Zipfian,
}

/// The valid letters, as error messages list them.
const VALID_LETTERS: &str =
    "S (sequential), R (uniform random), G (gaussian), P (parallel), Z (zipfian)";

impl PatternKind {
    /// The pattern named by an upper-case memtier letter.
    pub fn from_letter(c: char) -> Option<Self> {
        match c {
            'S' => Some(PatternKind::Sequential),
            'R' => Some(PatternKind::Uniform),
            'G' => Some(PatternKind::Gaussian),
            'P' => Some(PatternKind::Parallel),
            'Z' => Some(PatternKind::Zipfian),
            _ => None,
        }
    }

    /// The memtier letter naming this pattern.
    pub fn letter(self) -> char {
        match self {
            PatternKind::Sequential => 'S',
            PatternKind::Uniform => 'R',
            PatternKind::Gaussian => 'G',
            PatternKind::Parallel => 'P',
            PatternKind::Zipfian => 'Z',
        }
    }
}

/// Why a `--key-pattern` could not be read; `config` adds the flag.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyPatternError {
    /// Not two letters around a colon.
    #[error("expected SET:GET key pattern such as R:R, got '{given}'")]
    Shape {
        /// What was given.
        given: String,
    },
    /// A letter that names no pattern.
    #[error("unknown key pattern '{letter}' in '{given}'; valid patterns are {VALID_LETTERS}")]
    UnknownLetter {
        /// The letter.
        letter: char,
        /// The whole pattern it was in.
        given: String,
    },
}

/// Parses `"S:R"` into (SET pattern, GET pattern).
///
/// Letters are upper case as in memtier. An unknown letter is named in the
/// error together with the valid ones.
pub fn parse_key_pattern(s: &str) -> Result<(PatternKind, PatternKind), KeyPatternError> {
    let shape_error = || KeyPatternError::Shape {
        given: s.to_string(),
    };
    let (set, get) = s.split_once(':').ok_or_else(shape_error)?;
    let letter = |part: &str| -> Result<PatternKind, KeyPatternError> {
        let mut chars = part.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => {
                PatternKind::from_letter(c).ok_or_else(|| KeyPatternError::UnknownLetter {
                    letter: c,
                    given: s.to_string(),
                })
            }
            _ => Err(shape_error()),
        }
    };
    Ok((letter(set)?, letter(get)?))
}

/// Fully specified pattern with its parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KeyPattern {
    /// See [`PatternKind::Sequential`].
    Sequential,
    /// See [`PatternKind::Uniform`].
    Uniform,
    /// Normal distribution; `stddev` must be positive and finite and `median`
    /// must lie inside the key range.
    Gaussian {
        /// Centre of the distribution, as a key number.
        median: f64,
        /// Standard deviation, in keys.
        stddev: f64,
    },
    /// See [`PatternKind::Parallel`].
    Parallel,
    /// memtier's Zipf distribution over key numbers; `exponent` must lie in
    /// `(0, MAX_ZIPF_EXPONENT)`.
    Zipfian {
        /// The `s` in `P(k) ∝ k^-s`; larger means more skew.
        exponent: f64,
    },
}

impl KeyPattern {
    /// The letter-level kind of this pattern.
    pub fn kind(&self) -> PatternKind {
        match self {
            KeyPattern::Sequential => PatternKind::Sequential,
            KeyPattern::Uniform => PatternKind::Uniform,
            KeyPattern::Gaussian { .. } => PatternKind::Gaussian,
            KeyPattern::Parallel => PatternKind::Parallel,
            KeyPattern::Zipfian { .. } => PatternKind::Zipfian,
        }
    }
}

/// Why a connection's key generator could not be built. `config` checks the
/// same conditions with the flag's name first, so these reach no user from a
/// validated configuration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KeyGenError {
    /// `min > max`.
    #[error("empty key range: minimum {min} is above maximum {max}")]
    EmptyRange {
        /// The range's first key.
        min: u64,
        /// The range's last key.
        max: u64,
    },
    /// `slot >= slots`.
    #[error("connection slot {slot} is outside 0..{slots}")]
    SlotOutside {
        /// The connection's index.
        slot: u64,
        /// How many connections there are.
        slots: u64,
    },
    /// Parallel with fewer keys than connections.
    #[error(
        "P needs at least one key per connection: {connections} connections but only {keys} keys"
    )]
    TooFewKeys {
        /// How many connections there are.
        connections: u64,
        /// How many keys the range holds.
        keys: u64,
    },
    /// A Gaussian standard deviation that is not positive and finite.
    #[error("gaussian stddev must be positive and finite, got {0}")]
    GaussianStddev(f64),
    /// A Gaussian median outside the key range.
    #[error("gaussian median {median} lies outside the key range {min}-{max}")]
    GaussianMedian {
        /// The median asked for.
        median: f64,
        /// The range's first key.
        min: u64,
        /// The range's last key.
        max: u64,
    },
    /// The normal distribution refused its parameters.
    #[error("gaussian key pattern: {0}")]
    Gaussian(NormalError),
    /// A Zipf exponent outside `(0, MAX_ZIPF_EXPONENT)`.
    #[error("zipfian exponent must lie in (0, {MAX_ZIPF_EXPONENT}), got {0}")]
    ZipfExponent(f64),
}

/// Per-connection key generator.
#[derive(Debug, Clone)]
pub struct KeyGen {
    state: State,
}

/// Precomputed per-pattern state, so that `next` only does arithmetic.
#[derive(Debug, Clone)]
enum State {
    /// Sequential and Parallel: walk `first..=last` by one, wrapping.
    Walk {
        next: u64,
        first: u64,
        last: u64,
    },
    Uniform {
        min: u64,
        max: u64,
    },
    Gaussian {
        normal: Normal<f64>,
        min: u64,
        max: u64,
    },
    Zipfian(AbsoluteZipf),
}

impl KeyGen {
    /// Builds the generator for one connection.
    ///
    /// `slot`/`slots`: this connection's global index among all connections
    /// of the run (threads × clients). Errors on an empty range, on
    /// `slot >= slots`, on Parallel with fewer keys than connections and on
    /// invalid Gaussian or Zipfian parameters.
    pub fn new(
        pattern: KeyPattern,
        range: KeyRange,
        slot: u64,
        slots: u64,
    ) -> Result<Self, KeyGenError> {
        if range.is_empty() {
            return Err(KeyGenError::EmptyRange {
                min: range.min,
                max: range.max,
            });
        }
        if slot >= slots {
            return Err(KeyGenError::SlotOutside { slot, slots });
        }
        let (min, max) = (range.min, range.max);
        let state = match pattern {
            KeyPattern::Sequential => State::Walk {
                next: range.slice(slot, slots).min,
                first: min,
                last: max,
            },
            KeyPattern::Parallel => parallel_state(range, slot, slots)?,
            KeyPattern::Uniform => State::Uniform { min, max },
            KeyPattern::Gaussian { median, stddev } => gaussian_state(range, median, stddev)?,
            KeyPattern::Zipfian { exponent } => zipfian_state(range, exponent)?,
        };
        Ok(KeyGen { state })
    }

    /// The key number for the next request; allocation-free.
    pub fn next<R: Rng + ?Sized>(&mut self, rng: &mut R) -> u64 {
        match &mut self.state {
            State::Walk { next, first, last } => {
                let key = *next;
                *next = if key == *last { *first } else { key + 1 };
                key
            }
            State::Uniform { min, max } => rng.random_range(*min..=*max),
            State::Gaussian { normal, min, max } => sample_gaussian(normal, *min, *max, rng),
            State::Zipfian(zipf) => zipf.sample(rng),
        }
    }
}

fn parallel_state(range: KeyRange, slot: u64, slots: u64) -> Result<State, KeyGenError> {
    if slots > range.len() {
        return Err(KeyGenError::TooFewKeys {
            connections: slots,
            keys: range.len(),
        });
    }
    let own = range.slice(slot, slots);
    Ok(State::Walk {
        next: own.min,
        first: own.min,
        last: own.max,
    })
}

fn gaussian_state(range: KeyRange, median: f64, stddev: f64) -> Result<State, KeyGenError> {
    if !(stddev.is_finite() && stddev > 0.0) {
        return Err(KeyGenError::GaussianStddev(stddev));
    }
    if !(median >= range.min as f64 && median <= range.max as f64) {
        return Err(KeyGenError::GaussianMedian {
            median,
            min: range.min,
            max: range.max,
        });
    }
    let normal = Normal::new(median, stddev).map_err(KeyGenError::Gaussian)?;
    Ok(State::Gaussian {
        normal,
        min: range.min,
        max: range.max,
    })
}

fn zipfian_state(range: KeyRange, exponent: f64) -> Result<State, KeyGenError> {
    if !(exponent.is_finite() && exponent > 0.0 && exponent < MAX_ZIPF_EXPONENT) {
        return Err(KeyGenError::ZipfExponent(exponent));
    }
    Ok(State::Zipfian(AbsoluteZipf::new(
        range.min, range.max, exponent,
    )))
}

/// One truncated-normal key: redraw misses, then clamp (see module docs).
fn sample_gaussian<R: Rng + ?Sized>(normal: &Normal<f64>, min: u64, max: u64, rng: &mut R) -> u64 {
    let (lo, hi) = (min as f64, max as f64);
    let mut x = normal.sample(rng).round();
    for _ in 1..GAUSSIAN_TRIES {
        if x >= lo && x <= hi {
            break;
        }
        x = normal.sample(rng).round();
    }
    // The float-to-integer `as` saturates at the u64 bounds; the clamp then
    // covers both the final miss and bounds that f64 cannot represent exactly.
    (x as u64).clamp(min, max)
}

#[cfg(test)]
mod tests;
