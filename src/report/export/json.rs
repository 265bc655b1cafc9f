//! The JSON file, and the model's document every save builds once
//! ([`document`]): memtier's document for a benchmark
//! ([`crate::report::build`], with a capacity search's result in
//! `kvbench.capacity`), the sweep's document of every cell
//! ([`crate::report::sweep::document`]), the suite's of every test
//! ([`crate::report::suite::json`]). The file is its serialization.

use super::{Exporter, Rendering, Subject, Unrendered};
use crate::report::model::Document;
use crate::report::{build, suite, sweep};

/// `--json-out-file`.
pub struct Json;

impl Exporter for Json {
    fn render(&self, rendering: &Rendering<'_>) -> Result<Vec<u8>, Unrendered> {
        let document = rendering.document();
        let mut bytes = serde_json::to_vec_pretty(document).map_err(Unrendered::Encode)?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}

/// The model's document of `subject`.
pub(super) fn document(subject: &Subject<'_>) -> Document {
    match subject {
        Subject::Run(input) => Document::Report(Box::new(build::report(input))),
        Subject::Sweep(v) => Document::Sweep(Box::new(sweep::document(
            v.config,
            v.cells,
            v.inputs,
            v.config.sweep.cell_count(),
            v.stop,
        ))),
        Subject::Capacity(v) => {
            Document::Report(Box::new(build::capacity_report(v.input, v.capacity)))
        }
        Subject::Suite(v) => Document::Suite(Box::new(suite::json::suite_document(
            v.done, v.inputs, v.planned, v.complete,
        ))),
    }
}
