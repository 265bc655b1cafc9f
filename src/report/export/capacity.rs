//! `kvbench capacity`'s saves: once the search has ended (the last step's
//! benchmark beside the steps), and at the end with the confirmation run.

use super::{CapacityView, ExportManager, Save, Subject, Written};
use crate::config::Config;
use crate::engine::master::results::Results;
use crate::report::ReportInput;
use crate::report::model::capacity::Capacity;
use crate::report::warnings::Shown;

impl ExportManager {
    /// The search ended: its files so far, before the confirmation run.
    pub fn capacity_progress(&mut self, config: &Config, results: &Results, capacity: &Capacity) {
        let input = ReportInput::new(config, results, false);
        let view = CapacityView {
            input: &input,
            capacity,
        };
        self.save_progress(&Subject::Capacity(&view));
    }

    /// Every output, from the benchmark the report's runs hold and the search.
    pub fn finish_capacity(
        self,
        config: &Config,
        results: &Results,
        complete: bool,
        capacity: &Capacity,
    ) -> Written {
        let input = ReportInput::new(config, results, complete);
        let view = CapacityView {
            input: &input,
            capacity,
        };
        let failures = self.save(&Subject::Capacity(&view), Save::Final);
        Written {
            failures,
            save_failed: self.save_failed,
            shown: Shown::of_run(&input.warnings, &config.silenced_warnings),
            verdict: input.verdict,
        }
    }
}
