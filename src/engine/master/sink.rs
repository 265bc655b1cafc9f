//! The live half of the output pipeline: the master's per-second feed to
//! everything that watches a run while it goes (the progress line, the
//! `--metrics-listen` endpoint, StatsD).
//!
//! The master calls a [`Sink`] at three moments of every phase: it starts,
//! a second of it is complete (every worker has reported it), it ends. The
//! HDR interval logs are a sink too, which the caller of a run adds
//! (`report::hdr_files`). The file reports (text, JSON, HTML) are fed once per
//! phase and at the end instead (`report::export`). The engine emits these
//! events and knows none of the outputs that observe them. A sink runs on the master's thread, never
//! on a worker's, so it may take its time without touching the hot path; it
//! must not block for long (a slow scrape is answered on another thread).

use std::time::Duration;

use crate::config::Stop;
use crate::engine::master::results::{Phase, PhaseResult};
use crate::engine::stats::Stats;
use crate::engine::stats::series::Second;

/// Watches a run live.
pub trait Sink {
    /// A sweep's cell begins (`index` from 0); a plain run has one cell and
    /// no call.
    fn start_cell(&mut self, index: usize, label: &str) {
        let _ = (index, label);
    }
    /// A phase begins.
    fn start_phase(&mut self, phase: Phase, stop: Stop);
    /// A second of the phase is complete: `s` is that second, `total` the
    /// phase so far, `elapsed` the time since the phase started and `open`
    /// the connections open now. The final, partial second comes only in
    /// [`Sink::end_phase`]'s result.
    fn second(&mut self, s: &Second, total: &Stats, elapsed: Duration, open: usize);
    /// Every second of the phase as merged histograms, the final partial
    /// one included, as each completes (for the interval logs).
    fn interval(&mut self, second: u64, merged: &Stats) {
        let _ = (second, merged);
    }
    /// A phase ended; `r` holds everything it measured.
    fn end_phase(&mut self, r: &PhaseResult);
}

/// Several sinks fed as one, in order.
#[derive(Default)]
pub struct Sinks<'a> {
    sinks: Vec<&'a mut dyn Sink>,
}

impl<'a> Sinks<'a> {
    /// No sink yet.
    pub fn new() -> Self {
        Sinks { sinks: Vec::new() }
    }

    /// Adds one sink.
    pub fn with(mut self, sink: &'a mut dyn Sink) -> Self {
        self.sinks.push(sink);
        self
    }
}

impl Sink for Sinks<'_> {
    fn start_cell(&mut self, index: usize, label: &str) {
        for s in &mut self.sinks {
            s.start_cell(index, label);
        }
    }

    fn start_phase(&mut self, phase: Phase, stop: Stop) {
        for s in &mut self.sinks {
            s.start_phase(phase, stop);
        }
    }

    fn second(&mut self, second: &Second, total: &Stats, elapsed: Duration, open: usize) {
        for s in &mut self.sinks {
            s.second(second, total, elapsed, open);
        }
    }

    fn interval(&mut self, second: u64, merged: &Stats) {
        for s in &mut self.sinks {
            s.interval(second, merged);
        }
    }

    fn end_phase(&mut self, r: &PhaseResult) {
        for s in &mut self.sinks {
            s.end_phase(r);
        }
    }
}

/// Watches nothing: a run whose progress nobody sees (the suite's steps).
pub struct Quiet;

impl Sink for Quiet {
    fn start_phase(&mut self, _: Phase, _: Stop) {}
    fn second(&mut self, _: &Second, _: &Stats, _: Duration, _: usize) {}
    fn end_phase(&mut self, _: &PhaseResult) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts its calls.
    #[derive(Default)]
    struct Count {
        cells: usize,
        phases: usize,
    }

    impl Sink for Count {
        fn start_cell(&mut self, _: usize, _: &str) {
            self.cells += 1;
        }
        fn start_phase(&mut self, _: Phase, _: Stop) {
            self.phases += 1;
        }
        fn second(&mut self, _: &Second, _: &Stats, _: Duration, _: usize) {}
        fn end_phase(&mut self, _: &PhaseResult) {}
    }

    #[test]
    fn sinks_feed_every_sink_in_turn() {
        let (mut a, mut b) = (Count::default(), Count::default());
        {
            let mut both = Sinks::new().with(&mut a).with(&mut b);
            both.start_cell(0, "pipeline=1");
            both.start_phase(Phase::Warmup, Stop::Requests(1));
            both.start_phase(Phase::Run(1), Stop::Requests(1));
        }
        assert_eq!((a.cells, a.phases), (1, 2));
        assert_eq!((b.cells, b.phases), (1, 2));
    }
}
