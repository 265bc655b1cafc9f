//! What [`super::Batches`] stores of a phase's seconds: [`Open`], a span
//! being filled (its replies and one compact histogram per row, the last
//! for every row together), and [`Unit`], a closed span with each
//! histogram in HdrHistogram's V2 encoding.

use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};

use crate::engine::stats::{LATENCY_MAX_US, Stats};

/// A compact latency histogram: two significant digits, the latency
/// histograms' range.
pub(super) fn compact() -> Histogram<u32> {
    let mut h = Histogram::new_with_bounds(1, LATENCY_MAX_US, 2).expect("valid bounds");
    h.auto(true);
    h
}

/// A span of seconds being built: its replies and one histogram per row,
/// the last for every row together.
#[derive(Debug, Clone, Default)]
pub(super) struct Open {
    count: u64,
    rows: Vec<Histogram<u32>>,
}

impl Open {
    pub(super) fn of(stats: &Stats) -> Self {
        Open::of_rows(stats.ops.iter().map(|o| (o.count, &o.latency_us)))
    }

    /// Each op row's replies and histogram.
    pub(super) fn of_rows<'a>(rows: impl Iterator<Item = (u64, &'a Histogram<u64>)>) -> Self {
        let mut all = compact();
        let mut count = 0;
        let rows = rows.map(|(n, latency_us)| {
            count += n;
            let mut h = compact();
            for v in latency_us.iter_recorded() {
                let n = u32::try_from(v.count_at_value()).unwrap_or(u32::MAX);
                h.saturating_record_n(v.value_iterated_to(), n);
                all.saturating_record_n(v.value_iterated_to(), n);
            }
            h
        });
        let mut rows: Vec<_> = rows.collect();
        rows.push(all);
        Open { count, rows }
    }

    pub(super) fn add(&mut self, other: &Open) {
        self.count += other.count;
        for (a, b) in self.rows.iter_mut().zip(&other.rows) {
            // Same bounds and precision: adding cannot fail.
            let _ = a.add(b);
        }
    }

    pub(super) fn close(&self) -> Unit {
        let mut serializer = V2DeflateSerializer::new();
        let rows = self.rows.iter().map(|h| {
            let mut bytes = Vec::new();
            // Writing to a Vec cannot fail, and every count fits.
            let _ = serializer.serialize(h, &mut bytes);
            bytes.into_boxed_slice()
        });
        Unit {
            count: self.count,
            rows: rows.collect(),
        }
    }
}

/// One stored span of seconds: its replies and, per row then for every row
/// together, its histogram in HdrHistogram's V2 encoding. The encoding
/// writes only the occupied buckets (a second's few hundred take a few
/// hundred bytes, where the histogram itself takes 13 KiB), so a long run
/// keeps [`MAX_UNITS`] units in well under a MiB.
#[derive(Debug, Clone)]
pub(super) struct Unit {
    pub(super) count: u64,
    pub(super) rows: Box<[Box<[u8]>]>,
}

impl Unit {
    /// Row `row`'s histogram; an empty one where it is missing.
    pub(super) fn row(&self, row: usize) -> Histogram<u32> {
        // What `Open::close` wrote decodes, and a posted unit is checked.
        self.decoded(row).unwrap_or_else(compact)
    }

    /// Row `row`'s histogram, if it is there and decodes.
    pub(super) fn decoded(&self, row: usize) -> Option<Histogram<u32>> {
        let bytes = self.rows.get(row)?;
        Deserializer::new().deserialize(&mut &bytes[..]).ok()
    }

    pub(super) fn open(&self) -> Open {
        Open {
            count: self.count,
            rows: (0..self.rows.len()).map(|r| self.row(r)).collect(),
        }
    }
}
