//! The placeholders of a connection's requests: [`Draw`] fills a template
//! from the connection's generators, [`Again`] fills a request sent again
//! with its first key as before.

use rand::Rng;
use rand::rngs::SmallRng;

use crate::engine::worker::request::keys::ConnKeys;
use crate::protocol::template::Fill;
use crate::workload::keys::KeyRange;
use crate::workload::values::ValuePool;

/// The placeholders of one request, drawn from the connection's generators.
pub(super) struct Draw<'a, 'v> {
    pub(super) keys: &'a mut ConnKeys,
    /// The op whose generator draws the keys.
    pub(super) op: usize,
    pub(super) rng: &'a mut SmallRng,
    pub(super) values: &'v ValuePool,
    pub(super) rand_range: Option<KeyRange>,
    /// The sequential counter, when `__rand_int__` counts rather than draws.
    pub(super) rand_next: Option<&'a mut u64>,
    /// The first key drawn, kept in the in-flight entry.
    pub(super) first_key: Option<u64>,
    /// `--transaction`: the rotation's key, which every `__key__` takes.
    pub(super) fixed_key: Option<u64>,
    /// `--scan-incremental-iteration`: the cursor to follow (0 otherwise).
    pub(super) cursor: u64,
}

impl<'v> Fill<'v> for Draw<'_, 'v> {
    #[inline]
    fn key(&mut self) -> u64 {
        let key = match self.fixed_key {
            Some(key) => key,
            None => self.keys.next(self.op, self.rng),
        };
        self.first_key.get_or_insert(key);
        key
    }

    #[inline]
    fn data(&mut self) -> &'v [u8] {
        // A value sized by its key (`--data-size-pattern S`) follows the
        // first key of the request.
        self.values.next(self.first_key.unwrap_or(0), self.rng)
    }

    #[inline]
    fn rand_int(&mut self) -> Option<u64> {
        let range = self.rand_range?;
        if let Some(next) = self.rand_next.as_deref_mut() {
            let n = range.min + *next % range.len();
            *next = next.wrapping_add(1);
            return Some(n);
        }
        Some(self.rng.random_range(range.min..=range.max))
    }

    #[inline]
    fn cursor(&mut self) -> u64 {
        self.cursor
    }
}

/// The placeholders of a request sent again: its first key as before.
pub(super) struct Again<'a, 'v> {
    pub(super) first: Option<u64>,
    pub(super) draw: Draw<'a, 'v>,
}

impl<'v> Fill<'v> for Again<'_, 'v> {
    #[inline]
    fn key(&mut self) -> u64 {
        match self.first.take() {
            Some(key) => key,
            None => self.draw.key(),
        }
    }

    #[inline]
    fn data(&mut self) -> &'v [u8] {
        self.draw.data()
    }

    #[inline]
    fn rand_int(&mut self) -> Option<u64> {
        self.draw.rand_int()
    }

    #[inline]
    fn cursor(&mut self) -> u64 {
        self.draw.cursor()
    }
}
