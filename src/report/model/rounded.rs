//! Figures the model holds unrounded and writes as memtier prints them: the
//! JSON rounds a rate or a KB/sec to two places and a mean or a distribution's
//! percent to three, while the text, which prints the same figures with its own
//! precision (a mean to five places, as memtier's tables), rounds them itself.
//! The same for a sweep's summary rows (its rates, mean, hit rate, ratio and
//! spread), a phase's CPU seconds (four places; the server's, six), a
//! cluster node's rate, share and mean, the run-to-run spread and a shard's
//! timing (three places). A file read back
//! holds the rounded values, which round to themselves.

use serde::Serializer;

use crate::report::json::round;
use crate::report::model::aggregate::Aggregate;
use crate::report::model::cluster::PhaseCluster;
use crate::report::model::kvbench::{LatencyBlock, OpenLoop, Variance};
use crate::report::model::section::{OpRow, Section};
use crate::report::model::shard::ShardInfo;
use crate::report::model::{Document, Report, SweepRow};

/// One place (a percentage of a CPU).
pub fn places1<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(round(*v, 1))
}

/// Two places.
pub fn places2<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(round(*v, 2))
}

/// `P` places, when there is a value (`skip_serializing_if` leaves `None`
/// out, else it is `null`).
pub fn opt_places<const P: i32, S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => s.serialize_some(&round(*v, P)),
        None => s.serialize_none(),
    }
}

/// Three places.
pub fn places3<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(round(*v, 3))
}

/// Four places (a ratio).
pub fn places4<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(round(*v, 4))
}

/// Six places (a coefficient of variation).
pub fn places6<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(round(*v, 6))
}

/// Two places each (rates).
pub fn each_places2<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|x| round(*x, 2)))
}

/// Four places each (CPU seconds).
pub fn each_places4<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|x| round(*x, 4)))
}

/// A duration the model holds exactly and the JSON writes in whole
/// milliseconds (`duration_ms`, `drain_ms`), the fraction dropped; read
/// back, a file's milliseconds.
pub mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    /// `d` as the JSON writes it: whole milliseconds, the fraction dropped.
    pub fn whole(d: Duration) -> u64 {
        u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
    }

    /// Whole milliseconds.
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(whole(*d))
    }

    /// From whole milliseconds.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_millis)
    }
}

/// The model's figures as its JSON writes them, for a renderer that shows
/// the file's figures (the HTML page): a page drawn at save time then reads
/// the same as one drawn from the file.
pub trait AsWritten {
    /// Rounds every figure the JSON rounds, as it rounds it.
    fn round_as_written(&mut self);
}

impl AsWritten for OpRow {
    fn round_as_written(&mut self) {
        for v in [
            &mut self.ops_per_sec,
            &mut self.hits_per_sec,
            &mut self.misses_per_sec,
            &mut self.connection_errors_per_sec,
            &mut self.kb_per_sec,
            &mut self.kb_per_sec_rx_tx,
            &mut self.kb_per_sec_rx,
            &mut self.kb_per_sec_tx,
        ] {
            *v = round(*v, 2);
        }
        for v in [&mut self.moved_per_sec, &mut self.ask_per_sec]
            .into_iter()
            .flatten()
        {
            *v = round(*v, 2);
        }
        self.latency_ms = round(self.latency_ms, 3);
        self.average_latency_ms = round(self.average_latency_ms, 3);
    }
}

impl AsWritten for SweepRow {
    fn round_as_written(&mut self) {
        self.ops_per_sec = round(self.ops_per_sec, 2);
        for v in [
            &mut self.set_ops_per_sec,
            &mut self.get_ops_per_sec,
            &mut self.hit_rate_percent,
        ]
        .into_iter()
        .flatten()
        {
            *v = round(*v, 2);
        }
        self.avg_latency_ms = round(self.avg_latency_ms, 3);
        self.ratio_to_first = round(self.ratio_to_first, 4);
        if let Some(s) = self.ops_per_sec_spread.as_mut() {
            s.min = round(s.min, 2);
            s.max = round(s.max, 2);
            s.max_over_min = round(s.max_over_min, 4);
        }
    }
}

impl AsWritten for Variance {
    fn round_as_written(&mut self) {
        let places2 = [
            &mut self.mean,
            &mut self.median,
            &mut self.min,
            &mut self.max,
            &mut self.ci95_low,
            &mut self.ci95_high,
        ];
        let ends = [&mut self.median_ci95_low, &mut self.median_ci95_high];
        let rates = self.ops_per_sec.iter_mut();
        for v in places2
            .into_iter()
            .chain(ends.into_iter().flatten())
            .chain(rates)
        {
            *v = round(*v, 2);
        }
        self.max_over_min = round(self.max_over_min, 4);
        self.cv = round(self.cv, 6);
    }
}

impl AsWritten for ShardInfo {
    fn round_as_written(&mut self) {
        let clock = self.clock.as_mut();
        let ends = clock.map(|c| [&mut c.offset_start_ms, &mut c.offset_end_ms, &mut c.rtt_ms]);
        let optional = ends.into_iter().flatten().chain([&mut self.start_lag_ms]);
        let late = self.late.as_mut().map(|l| &mut l.lag_ms);
        let waited = self.barrier.as_mut().map(|b| &mut b.waited_ms);
        for v in optional.flatten().chain(late).chain(waited) {
            *v = round(*v, 3);
        }
    }
}

impl AsWritten for OpenLoop {
    fn round_as_written(&mut self) {
        self.achieved_ops_per_sec = round(self.achieved_ops_per_sec, 2);
        self.busiest_thread_cpu_percent = round(self.busiest_thread_cpu_percent, 1);
        let service = self
            .service_time
            .0
            .iter_mut()
            .filter_map(|(_, b)| b.as_mut());
        let response = self.response_time.0.iter_mut().map(|(_, b)| b);
        let waits = self
            .never_sent_wait
            .0
            .iter_mut()
            .filter_map(|(_, b)| b.as_mut());
        let blocks = service
            .chain(response)
            .chain(waits)
            .chain(self.schedule_lag.as_mut());
        blocks.for_each(LatencyBlock::round_as_written);
    }
}

impl AsWritten for LatencyBlock {
    fn round_as_written(&mut self) {
        self.average_latency_ms = round(self.average_latency_ms, 3);
    }
}

impl AsWritten for PhaseCluster {
    fn round_as_written(&mut self) {
        for n in &mut self.nodes {
            n.ops_per_sec = round(n.ops_per_sec, 2);
            n.share = round(n.share, 6);
            n.latency.avg_ms = round(n.latency.avg_ms, 3);
        }
    }
}

impl AsWritten for Aggregate {
    fn round_as_written(&mut self) {
        let service = self.service_time.iter_mut().flat_map(|n| n.0.iter_mut());
        service
            .filter_map(|(_, b)| b.as_mut())
            .for_each(LatencyBlock::round_as_written);
        let response = self.response_time.iter_mut().flat_map(|n| n.0.iter_mut());
        response.for_each(|(_, b)| b.round_as_written());
        self.cluster
            .iter_mut()
            .for_each(PhaseCluster::round_as_written);
    }
}

impl AsWritten for Section {
    fn round_as_written(&mut self) {
        for (_, row) in self.rows.0.iter_mut() {
            row.round_as_written();
        }
        for (_, points) in self.distributions.0.iter_mut() {
            for p in points {
                p.percent = round(p.percent, 3);
            }
        }
    }
}

impl AsWritten for Report {
    fn round_as_written(&mut self) {
        for (_, s) in &mut self.sections {
            s.round_as_written();
        }
        let Some(k) = self.kvbench.as_mut() else {
            return;
        };
        if let Some(v) = k.variance.as_mut() {
            v.round_as_written();
        }
        if let Some(s) = k.shard.as_mut() {
            s.round_as_written();
        }
        k.aggregate.iter_mut().for_each(Aggregate::round_as_written);
        let phases = k.runs.iter_mut().chain(k.warmup.as_mut());
        for p in phases.chain(k.prefill.as_mut()) {
            if let Some(lag) = p.start_lag_ms.as_mut() {
                *lag = round(*lag, 3);
            }
            for rate in [
                &mut p.ops_per_sec,
                &mut p.successes_per_sec,
                &mut p.errors_per_sec,
            ] {
                *rate = round(*rate, 2);
            }
            if let Some(o) = p.open_loop.as_mut() {
                o.round_as_written();
            }
            p.cluster
                .iter_mut()
                .for_each(PhaseCluster::round_as_written);
            p.thread_cpu_s.iter_mut().for_each(|s| *s = round(*s, 4));
            if let Some(e) = p.server.as_mut() {
                e.delta.cpu_s = round(e.delta.cpu_s, 6);
                let per = e.cpu_s_per_1000_requests.as_mut();
                per.into_iter().for_each(|v| *v = round(*v, 6));
            }
            p.all_stats.iter_mut().for_each(Section::round_as_written);
        }
    }
}

impl AsWritten for Document {
    fn round_as_written(&mut self) {
        match self {
            Document::Report(r) => r.round_as_written(),
            Document::Sweep(s) => {
                s.sweep.cells.iter_mut().for_each(Report::round_as_written);
                s.sweep
                    .summary
                    .iter_mut()
                    .for_each(SweepRow::round_as_written);
            }
            Document::Suite(s) => {
                for t in &mut s.suite.tests {
                    t.report.round_as_written();
                }
            }
        }
    }
}
