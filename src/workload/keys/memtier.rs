//! memtier_benchmark's own key draws, for `--memtier-compat`: its random
//! generator, its arithmetic for every key pattern and its way of splitting the
//! range among clients, so that the same command line sends the same keys in
//! the same order on every connection.
//!
//! memtier gives every client one `random_generator` that all of the client's
//! key patterns share. On glibc (where memtier's configure finds `random_r`,
//! the build every Linux distribution ships) that generator is glibc's
//! `random_r` with a 512-byte state, which selects glibc's additive feedback
//! generator of degree 63; memtier seeds it with `initstate_r(seed + 1)` and
//! glues two 31-bit outputs into one 62-bit number. [`GlibcRandom`] is that
//! generator, [`MemtierRandom`] memtier's use of it (62-bit draws, the polar
//! Gaussian with its spare), [`MemtierKeyGen`] one pattern's key arithmetic.
//!
//! memtier falls back to `jrand48` only where libc has no `random_r` (macOS,
//! the BSDs); that build draws other keys, and kvbench follows the Linux one.

use crate::workload::keys::{KeyPattern, KeyRange};

/// glibc's `TYPE_4` generator: degree 63, separation 1, chosen by
/// `initstate_r` for a state of 256 bytes or more (memtier passes 512).
const DEGREE: usize = 63;
const SEPARATION: usize = 1;

/// glibc's additive feedback generator behind `random_r`, ported from its
/// published definition (glibc `stdlib/random_r.c`): `r[i] = r[i-63] + r[i-62]`
/// modulo 2^32, each output dropping the low bit; the state is filled from the
/// seed with the Park–Miller "minimal standard" LCG (`16807 · x mod (2^31 − 1)`,
/// Park & Miller, CACM 31(10), 1988) and then stirred by 630 discarded outputs.
#[derive(Debug, Clone)]
pub struct GlibcRandom {
    state: [u32; DEGREE],
    /// glibc's `fptr`: the element that receives the sum.
    front: usize,
    /// glibc's `rptr`: the element added to it.
    rear: usize,
}

impl GlibcRandom {
    /// The generator `initstate_r(seed, state, 512, …)` leaves behind.
    pub fn new(seed: u32) -> Self {
        // glibc stores the seed in an int32 and refuses 0, which would make
        // the Park–Miller sequence all zeros.
        let mut word = if seed == 0 { 1 } else { seed } as i32;
        let mut state = [0u32; DEGREE];
        state[0] = word as u32;
        for slot in state.iter_mut().skip(1) {
            // Schrage's method: 16807 · word mod (2^31 − 1) without overflow.
            // Division and remainder truncate toward zero in C and in Rust
            // alike, which matters for seeds of 2^31 and above (negative words).
            let (hi, lo) = (i64::from(word) / 127_773, i64::from(word) % 127_773);
            word = (16_807 * lo - 2_836 * hi) as i32;
            if word < 0 {
                word += 2_147_483_647;
            }
            *slot = word as u32;
        }
        let mut g = GlibcRandom {
            state,
            front: SEPARATION,
            rear: 0,
        };
        for _ in 0..DEGREE * 10 {
            g.next_u31();
        }
        g
    }

    /// One `random_r` output, in `0..2^31`.
    #[inline]
    pub fn next_u31(&mut self) -> u32 {
        let sum = self.state[self.front].wrapping_add(self.state[self.rear]);
        self.state[self.front] = sum;
        // The two indices stay one apart around the ring, so only one of them
        // can wrap in a step.
        self.front += 1;
        self.rear += 1;
        if self.front == DEGREE {
            self.front = 0;
        } else if self.rear == DEGREE {
            self.rear = 0;
        }
        sum >> 1
    }
}

/// The largest number [`MemtierRandom::next_u62`] returns (memtier's
/// `get_random_max` on glibc).
pub const RANDOM_MAX: u64 = (1 << 62) - 1;

/// One memtier client's `random_generator` and its Gaussian spare.
#[derive(Debug, Clone)]
pub struct MemtierRandom {
    glibc: GlibcRandom,
    /// The second normal deviate of the last polar pair, not yet used.
    spare: Option<f64>,
}

impl MemtierRandom {
    /// memtier's `set_seed(seed)`: the generator starts from `seed + 1`,
    /// because glibc treats seeds 0 and 1 alike.
    pub fn new(seed: i32) -> Self {
        MemtierRandom {
            glibc: GlibcRandom::new(seed.wrapping_add(1) as u32),
            spare: None,
        }
    }

    /// memtier's `get_random`: two 31-bit outputs, the first one high.
    #[inline]
    pub fn next_u62(&mut self) -> u64 {
        let high = u64::from(self.glibc.next_u31());
        (high << 31) | u64::from(self.glibc.next_u31())
    }

    /// memtier's `random_range`: a draw modulo the range's length. The modulo
    /// bias is memtier's too, and negligible against 62 bits.
    #[inline]
    pub fn range(&mut self, min: u64, max: u64) -> u64 {
        let len = (max - min).wrapping_add(1);
        let draw = self.next_u62();
        if len == 0 { draw } else { draw % len + min }
    }

    /// A draw in `[0, 1]`, as memtier divides it.
    #[inline]
    fn unit(&mut self) -> f64 {
        self.next_u62() as f64 / RANDOM_MAX as f64
    }

    /// memtier's `gaussian_distribution`: Marsaglia's polar method (Marsaglia
    /// & Bray, SIAM Review 6(3), 1964), which yields deviates in pairs; the
    /// second is kept unscaled for the next call.
    fn normal(&mut self, stddev: f64) -> f64 {
        if let Some(spare) = self.spare.take() {
            return stddev * spare;
        }
        loop {
            let u = self.unit() * 2.0 - 1.0;
            let v = self.unit() * 2.0 - 1.0;
            let s = u * u + v * v;
            if s < 1.0 && s != 0.0 {
                let scale = (-2.0 * s.ln() / s).sqrt();
                self.spare = Some(v * scale);
                return stddev * u * scale;
            }
        }
    }

    /// memtier's `gaussian_distribution_range`: redraw until the value lands in
    /// `[min, max + 1]`, then truncate it (memtier converts the double to an
    /// integer, so the top key's share comes from `[max, max + 1)`).
    fn gaussian(&mut self, median: f64, stddev: f64, min: u64, max: u64) -> u64 {
        if min == max {
            return min;
        }
        let (lo, hi) = (min as f64, max as f64 + 1.0);
        loop {
            let x = self.normal(stddev) + median;
            if x >= lo && x <= hi {
                return x as u64;
            }
        }
    }
}

/// memtier's Gaussian defaults over `range`, used where `--key-median` or
/// `--key-stddev` is not given: the median half a key above the middle and a
/// sixth of the range as deviation (memtier computes both from `max - min`).
pub fn gaussian_defaults(range: KeyRange) -> (f64, f64) {
    let len = (range.max - range.min) as f64;
    (len / 2.0 + range.min as f64 + 0.5, len / 6.0)
}

/// memtier's share of the range for client `index` of `clients` under the `P`
/// pattern: `(max - min) / clients + 1` keys each from the bottom, the last
/// client taking whatever is left (so the last share may be shorter, or
/// longer, than kvbench's even [`KeyRange::slice`]).
pub fn parallel_range(range: KeyRange, index: u64, clients: u64) -> KeyRange {
    let clients = clients.max(1);
    let index = index % clients;
    let share = (range.max - range.min) / clients + 1;
    let min = range
        .min
        .saturating_add(share.saturating_mul(index))
        .min(range.max);
    let max = if index + 1 == clients {
        range.max
    } else {
        min.saturating_add(share - 1).min(range.max)
    };
    KeyRange { min, max }
}

/// Requests per client of memtier's `-n allkeys`: `max - min` (one short of
/// the range: memtier's own count, so the top key is never reached), divided
/// among the clients plus one when both patterns are `P`.
pub fn allkeys_requests(range: KeyRange, parallel: bool, clients: u64) -> u64 {
    let keys = range.max - range.min;
    if parallel {
        keys / clients.max(1) + 1
    } else {
        keys
    }
}

/// One pattern's keys as memtier computes them, over the client's range.
#[derive(Debug, Clone)]
pub struct MemtierKeyGen {
    state: State,
}

#[derive(Debug, Clone)]
enum State {
    /// S and P: memtier's per-iterator counter, from the range's bottom.
    Walk {
        next: u64,
        min: u64,
        max: u64,
    },
    Uniform {
        min: u64,
        max: u64,
    },
    Gaussian {
        median: f64,
        stddev: f64,
        min: u64,
        max: u64,
    },
    Zipfian(Zipf),
}

impl MemtierKeyGen {
    /// The generator of `pattern` over `range` (already the client's share
    /// when memtier narrows it for `P`).
    pub fn new(pattern: KeyPattern, range: KeyRange) -> Self {
        let (min, max) = (range.min, range.max);
        let state = match pattern {
            KeyPattern::Sequential | KeyPattern::Parallel => State::Walk {
                next: min,
                min,
                max,
            },
            KeyPattern::Uniform => State::Uniform { min, max },
            KeyPattern::Gaussian { median, stddev } => State::Gaussian {
                median,
                stddev,
                min,
                max,
            },
            KeyPattern::Zipfian { exponent } => State::Zipfian(Zipf::new(range, exponent)),
        };
        MemtierKeyGen { state }
    }

    /// The next key number, drawing from the client's shared generator.
    #[inline]
    pub fn next(&mut self, random: &mut MemtierRandom) -> u64 {
        match &mut self.state {
            State::Walk { next, min, max } => {
                let key = *next;
                *next = if key >= *max { *min } else { key + 1 };
                key
            }
            State::Uniform { min, max } => random.range(*min, *max),
            State::Gaussian {
                median,
                stddev,
                min,
                max,
            } => random.gaussian(*median, *stddev, *min, *max),
            State::Zipfian(zipf) => zipf.sample(random),
        }
    }
}

/// memtier's rejection-inversion Zipf sampler (Hörmann & Derflinger, "Rejection-
/// inversion to generate variates from monotone discrete distributions", ACM
/// TOMACS 6(3), 1996), with memtier's constants, so that each draw consumes the
/// same generator outputs as memtier's.
#[derive(Debug, Clone)]
struct Zipf {
    exponent: f64,
    /// `1 / (1 - exponent)`, multiplied as memtier does (not divided by
    /// `1 - exponent`), so that the last bit of every step agrees.
    inverse: f64,
    min: f64,
    max: f64,
    h_min: f64,
    h_max: f64,
    s: f64,
}

/// memtier treats exponents this close to 1 as exactly 1 (the logarithmic
/// form), and exponents below it as 0 (uniform draws).
const NEAR_ONE: f64 = 1e-4;

impl Zipf {
    fn new(range: KeyRange, exponent: f64) -> Self {
        let min = range.min.max(1) as f64;
        let max = (range.max as f64).max(min);
        let (h_min, h_max, s) = if (exponent - 1.0).abs() < NEAR_ONE {
            let t = (min + 1.5).ln() - 1.0 / (min + 1.0);
            (
                (min + 0.5).ln() - 1.0 / min,
                (max + 0.5).ln(),
                min + 1.0 - t.exp(),
            )
        } else {
            let e = 1.0 - exponent;
            let t = (min + 1.5).powf(e) - e * (min + 1.0).powf(-exponent);
            (
                (min + 0.5).powf(e) - e * min.powf(-exponent),
                (max + 0.5).powf(e),
                min + 1.0 - t.powf(1.0 / e),
            )
        };
        Zipf {
            exponent,
            inverse: 1.0 / (1.0 - exponent),
            min,
            max,
            h_min,
            h_max,
            s,
        }
    }

    fn sample(&self, random: &mut MemtierRandom) -> u64 {
        if self.exponent < NEAR_ONE {
            return random.range(self.min as u64, self.max as u64);
        }
        let one = (self.exponent - 1.0).abs() < NEAR_ONE;
        let e = 1.0 - self.exponent;
        loop {
            let u = random.unit() * (self.h_max - self.h_min) + self.h_min;
            let mut x = if one { u.exp() } else { u.powf(self.inverse) };
            if x < self.min - 0.5 {
                x = self.min + 0.5;
            }
            if x >= self.max + 0.5 {
                x = self.max;
            }
            let k = (x + 0.5).floor();
            if k - x <= self.s {
                return k as u64;
            }
            let accept = if one {
                u > (k + 0.5).ln() - 1.0 / k
            } else {
                self.inverse * (u - (k + 0.5).powf(e)) > -k.powf(-self.exponent)
            };
            if accept {
                return k as u64;
            }
        }
    }
}

#[cfg(test)]
mod tests;
