//! A merged run written as `kvbench.runs[i]`: its rates over the common
//! window, its exact totals and the merged histograms, the set's server evidence, and the merged `open_loop` and
//! `cluster` objects.

use std::time::Duration;

use crate::engine::stats::precision::Batches;
use crate::report::build::precision;
use crate::report::build::rows::SectionShape;
use crate::report::json::compressed;
use crate::report::model::histogram::CompressedHistogram;
use crate::report::model::kvbench::PhaseSummary;
use crate::report::model::named::Named;
use crate::report::model::precision::Precision;
use crate::tools::merge::combine::empty_histogram;
use crate::tools::merge::run::RunSum;

impl RunSum {
    /// `kvbench.runs[i]`, with the merged histograms. `machines`: how many
    /// files were merged (the open loop is merged only when each had one).
    pub fn summary(&self, layout: &SectionShape, machines: usize) -> PhaseSummary {
        let open_loop = self
            .open_loop
            .as_ref()
            .filter(|o| o.machines == machines)
            .map(|o| o.open_loop(self.ops_per_sec(), &layout.percentiles));
        let d = self.rate_time_s(self.rows.len()).max(1e-9);
        let t = &self.totals.totals;
        let mut totals = Named::default();
        let mut histograms = Named::default();
        for ((_, command), sum) in layout.rows.iter().zip(&self.rows) {
            totals.0.push((command.clone(), sum.totals_json()));
            histograms.0.push((
                command.clone(),
                CompressedHistogram(compressed(&sum.histogram)),
            ));
        }
        PhaseSummary {
            phase: self.phase.clone(),
            start_time_ms: self.start_ms,
            duration: Duration::from_millis(self.duration_ms),
            drain: Duration::from_millis(self.drain_ms),
            connections_down_at_end: self.connections_down,
            incomplete: self.incomplete.clone(),
            ops_per_sec: self.ops_per_sec(),
            successes_per_sec: t.count.saturating_sub(t.errors) as f64 / d,
            errors_per_sec: t.errors as f64 / d,
            thread_cpu_s: self.thread_cpu_s.clone(),
            totals,
            errors: self.errors.clone().unwrap_or_default(),
            open_loop,
            server: self.evidence.server(),
            server_evidence_lost: None,
            client: None,
            server_use: self.evidence.server_use(),
            watched: self.watched.clone(),
            limit: None,
            load_gap: self.load_gap.clone(),
            // Each machine's server time is in its own file: a set's would
            // need every reading of every machine, which merge lacks.
            server_latency: None,
            steadiness: None,
            precision: self.precision(layout),
            cluster: self
                .cluster
                .as_ref()
                .map(|c| c.phase_cluster(self.duration_s())),
            all_stats: None,
            start_lag_ms: None,
            histograms: Some(histograms),
        }
    }

    /// The merged run's 95 % intervals, from the machines' seconds added
    /// second by second (as a single machine's run gets them); `None` when
    /// some machine's interval log was not found, or for the aggregate of
    /// several runs, whose seconds are not one series.
    fn precision(&self, layout: &SectionShape) -> Option<Precision> {
        if !self.phase.starts_with("RUN #") || !self.rows.iter().all(|r| r.seconds_complete) {
            return None;
        }
        let last = self
            .rows
            .iter()
            .filter_map(|r| r.seconds.keys().last())
            .max()?;
        let mut batches = Batches::new();
        let none = empty_histogram();
        for second in 0..=*last {
            // A row without a reply that second keeps its place.
            let rows = self.rows.iter().map(|r| match r.seconds.get(&second) {
                Some(s) => (s.count, &s.histogram),
                None => (0, &none),
            });
            batches.second_of_rows(second, rows);
        }
        // The whole seconds of the common window, the last partial one left
        // out as one machine leaves it out.
        let d = self.rate_time_s(self.rows.len());
        batches.finish(d as u64);
        let histograms: Vec<_> = self
            .rows
            .iter()
            .chain([&self.totals])
            .map(|r| &r.histogram)
            .collect();
        let t = &self.totals.totals;
        let judged = batches.judge_rows(
            &histograms,
            t.count as f64 / d.max(1e-9),
            &layout.percentiles,
        );
        let names = layout.rows.iter().map(|(key, _)| key.as_str());
        Some(precision::of_rows(names, &judged))
    }
}
