//! What identifies a measurement: the SHA-256 of a file's measured data, so
//! that the same measurement given twice is refused however it was renamed.
//!
//! The digest covers each run's timing (start, run time, every thread's CPU
//! time), its exact counts, its histograms (whole and per second, in
//! `kvbench.runs` and in the section's rows), the rows' `Time-Serie` counts
//! and bytes, and `open_loop`'s latency blocks — as the file carries them.
//! It leaves out what is edited without changing the measurement: the shard
//! label and host, paths, warnings, the verdict, the server's context. A
//! copy relabelled as another shard therefore has its original's digest.
//!
//! A file written by `kvbench merge` is not one measurement but the sum of
//! those it lists in `kvbench.merged.sha256`: its measurements are those
//! ([`measurements`]), so a machine's file given beside a merge that already
//! holds it is refused too.

use std::fmt;

use ring::digest::{Context, SHA256};

use crate::report::model::kvbench::{LatencyBlock, OpenLoop, PhaseSummary};
use crate::report::model::named::Named;
use crate::report::model::section::Section;
use crate::tools::merge::check::ShardFile;
use crate::tools::merge::run::section_of;

/// The SHA-256 of a file's measured data, as 64 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Digest(pub String);

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The byte stream hashed. Every string is length-prefixed and every list
/// is preceded by its length, so that no two different contents feed the
/// same bytes (`"ab","c"` and `"a","bc"` differ).
struct Feed(Context);

impl Feed {
    fn u64(&mut self, v: u64) {
        self.0.update(&v.to_le_bytes());
    }

    fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.0.update(s.as_bytes());
    }

    fn opt(&mut self, v: Option<u64>) {
        match v {
            Some(v) => {
                self.u64(1);
                self.u64(v);
            }
            None => self.u64(0),
        }
    }

    /// A map's keys and values, in the file's order.
    fn named<T>(&mut self, map: &Named<T>, mut each: impl FnMut(&mut Feed, &T)) {
        self.u64(map.0.len() as u64);
        for (k, v) in map.iter() {
            self.str(k);
            each(self, v);
        }
    }

    fn block(&mut self, b: &LatencyBlock) {
        self.u64(b.count);
        self.str(&b.compressed.0);
    }

    fn open_loop(&mut self, o: &OpenLoop) {
        self.u64(o.never_sent);
        // A block the run did not record (`null`) feeds nothing.
        if let Some(lag) = &o.schedule_lag {
            self.block(lag);
        }
        let recorded = |f: &mut Feed, b: &Option<LatencyBlock>| {
            if let Some(b) = b {
                f.block(b);
            }
        };
        self.named(&o.service_time, recorded);
        self.named(&o.response_time, Feed::block);
        self.named(&o.never_sent_wait, recorded);
    }

    fn run(&mut self, r: &PhaseSummary) {
        self.str(&r.phase);
        self.u64(r.start_time_ms);
        self.u64(crate::tools::merge::run::whole_ms(r.duration));
        self.u64(r.thread_cpu_s.len() as u64);
        for cpu in &r.thread_cpu_s {
            self.u64(cpu.to_bits());
        }
        self.named(&r.totals, |f, t| {
            for v in [t.count, t.hits, t.misses, t.errors, t.bytes_tx, t.bytes_rx] {
                f.u64(v);
            }
            f.opt(t.latency_sum_us);
        });
        match &r.histograms {
            Some(h) => self.named(h, |f, h| f.str(&h.0)),
            None => self.u64(0),
        }
        match &r.open_loop {
            Some(o) => {
                self.u64(1);
                self.open_loop(o);
            }
            None => self.u64(0),
        }
    }

    fn section(&mut self, s: &Section) {
        self.named(&s.rows, |f, row| {
            f.u64(row.count);
            f.str(
                row.percentiles
                    .histogram
                    .as_ref()
                    .map_or("", |h| h.compressed.0.as_str()),
            );
            f.named(&row.time_serie, |f, second| {
                f.u64(second.count);
                f.opt(second.bytes_rx);
                f.opt(second.bytes_tx);
            });
        });
    }
}

/// The digest of `f`'s own measured data.
pub fn of(f: &ShardFile) -> Digest {
    let mut feed = Feed(Context::new(&SHA256));
    feed.u64(f.kvbench.runs.len() as u64);
    for (i, run) in f.kvbench.runs.iter().enumerate() {
        feed.run(run);
        match section_of(f, i) {
            Some(s) => {
                feed.u64(1);
                feed.section(s);
            }
            None => feed.u64(0),
        }
    }
    let sum = feed.0.finish();
    Digest(sum.as_ref().iter().map(|b| format!("{b:02x}")).collect())
}

/// The measurements `f` holds: those a merged file lists, else its own.
pub fn measurements(f: &ShardFile) -> Vec<Digest> {
    match f.kvbench.merged.as_ref().filter(|m| !m.sha256.is_empty()) {
        Some(m) => m.sha256.iter().cloned().map(Digest).collect(),
        None => vec![of(f)],
    }
}
