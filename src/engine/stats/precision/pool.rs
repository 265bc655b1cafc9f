//! A phase's seconds pooled beyond one phase, for `kvbench capacity`: the
//! row of every op together alone, a later run's seconds after these (a
//! step's repeats), several machines' same seconds added (a fleet's
//! shards), and the text a shard posts to the others.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::{Batches, Unit};

impl Batches {
    /// The row of every op together alone (a step is judged on it), each
    /// unit as stored. The span being filled and a held second go: call it
    /// once the phase has finished.
    pub fn totals(&self) -> Batches {
        let units = self.units.iter().map(|u| Unit {
            count: u.count,
            rows: u.rows.last().cloned().into_iter().collect(),
        });
        Batches {
            units: units.collect(),
            width_s: self.width_s,
            filling: None,
            held: None,
            frozen: false,
        }
    }

    /// `later`'s seconds after these: the finer of the two merged to the
    /// coarser's unit, then to fewer than [`super::MAX_UNITS`] units.
    pub fn append(&mut self, later: &Batches) {
        let mut later = later.clone();
        self.match_width(&mut later);
        self.units.append(&mut later.units);
        while self.units.len() >= super::MAX_UNITS {
            self.coarsen();
        }
    }

    /// `other`'s same seconds added to these, unit by unit (another machine
    /// that ran the same window): only the units both have are kept.
    pub fn add(&mut self, other: &Batches) {
        let mut other = other.clone();
        self.match_width(&mut other);
        self.units.truncate(other.units.len());
        for (a, b) in self.units.iter_mut().zip(&other.units) {
            let mut sum = a.open();
            sum.add(&b.open());
            *a = sum.close();
        }
    }

    /// Both series at the coarser unit of the two.
    fn match_width(&mut self, other: &mut Batches) {
        if self.units.is_empty() {
            self.width_s = other.width_s;
        }
        if other.units.is_empty() {
            other.width_s = self.width_s;
        }
        while self.width_s < other.width_s {
            self.coarsen();
        }
        while other.width_s < self.width_s {
            other.coarsen();
        }
    }

    /// As a shard posts it, one word: `WIDTH`, then for each unit
    /// `;COUNT,ROWS` with its rows' encoded histograms in base64 joined by
    /// `,` (`8;1200,SElTRg…;1187,SElTRg…`).
    pub fn encode(&self) -> String {
        let mut out = self.width_s.to_string();
        for u in &self.units {
            out.push(';');
            out.push_str(&u.count.to_string());
            for row in &u.rows {
                out.push(',');
                out.push_str(&STANDARD.encode(row));
            }
        }
        out
    }

    /// What [`Batches::encode`] wrote; `None` for anything else.
    pub fn decode(text: &str) -> Option<Batches> {
        let mut parts = text.split(';');
        let width_s: u64 = parts.next()?.parse().ok().filter(|&w| w > 0)?;
        let units = parts.map(|unit| {
            let mut words = unit.split(',');
            let count = words.next()?.parse().ok()?;
            let rows = words.map(|w| STANDARD.decode(w).ok().map(Vec::into_boxed_slice));
            let rows: Option<Vec<_>> = rows.collect();
            let unit = Unit {
                count,
                rows: rows?.into_boxed_slice(),
            };
            // Every row decodes to a histogram.
            (0..unit.rows.len())
                .all(|r| unit.decoded(r).is_some())
                .then_some(unit)
        });
        Some(Batches {
            units: units.collect::<Option<_>>()?,
            width_s,
            filling: None,
            held: None,
            frozen: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::stats::Stats;
    use crate::engine::stats::precision::Batches;

    /// `n` whole seconds of `count` replies at `us` on one row.
    fn seconds(n: u64, count: u64, us: u64) -> Batches {
        let mut s = Stats::new(1).unwrap();
        for _ in 0..count {
            s.ops[0].record(us);
        }
        let mut b = Batches::new();
        for i in 0..n {
            b.second(i, &s);
        }
        b.finish(n);
        b
    }

    #[test]
    fn totals_keep_the_last_row_and_repeats_append_at_the_coarser_unit() {
        let first = seconds(12, 100, 1000).totals();
        assert_eq!(first.units[0].rows.len(), 1);
        assert_eq!(first.units[0].row(0).len(), 100);
        // 200 s: its units are of 2 s; the first run's 12 seconds are
        // merged to 6 units of 2 s before the later ones follow.
        let mut pooled = first.clone();
        pooled.append(&seconds(200, 100, 2000).totals());
        assert_eq!((pooled.width_s, pooled.units.len()), (2, 106));
        assert_eq!(pooled.units[0].count, 200);
        // Past the cap the pool halves again.
        pooled.append(&seconds(60, 100, 2000).totals());
        assert_eq!((pooled.width_s, pooled.units.len()), (4, 68));
        assert_eq!(pooled.seconds(), 272);
    }

    #[test]
    fn machines_add_second_by_second_and_the_post_reads_back() {
        let mut a = seconds(12, 100, 1000).totals();
        a.add(&seconds(11, 50, 3000).totals());
        assert_eq!(a.units.len(), 11, "only the seconds both ran");
        assert_eq!(a.units[3].count, 150);
        let h = a.units[3].row(0);
        assert_eq!((h.len(), h.value_at_quantile(0.9) / 100), (150, 30));
        let text = a.encode();
        let back = Batches::decode(&text).expect("reads back");
        assert_eq!((back.width_s, back.units.len()), (1, 11));
        assert_eq!(back.units[10].row(0), a.units[10].row(0));
        assert_eq!(back.rate(150.0), a.rate(150.0));
        for bad in [
            "",
            "0",
            "x;1,AAAA",
            "1;5,not-base64!",
            "1;x,SElTRg",
            "1;3,AAAA",
        ] {
            assert!(Batches::decode(bad).is_none(), "{bad}");
        }
        // No unit at all is a valid, empty series.
        assert_eq!(Batches::decode("1").map(|b| b.units.len()), Some(0));
    }
}
