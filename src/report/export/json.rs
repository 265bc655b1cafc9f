//! The JSON file: memtier's document for a benchmark
//! ([`crate::report::json`]), the sweep's document of every cell
//! ([`crate::report::sweep::json`]), the suite's of every test
//! ([`crate::report::suite::json`]).

use super::{Exporter, Subject, Unrendered};

/// `--json-out-file`.
pub struct Json;

impl Exporter for Json {
    fn render(&self, subject: &Subject<'_>) -> Result<Vec<u8>, Unrendered> {
        Ok(match subject {
            Subject::Run(input) => crate::report::json::render(input),
            Subject::Sweep(v) => crate::report::sweep::json(
                v.config,
                v.cells,
                v.inputs,
                v.config.sweep.cell_count(),
                v.stop,
            ),
            Subject::Capacity(v) => {
                let mut report = crate::report::build::report(v.input);
                if let Some(k) = report.kvbench.as_mut() {
                    k.capacity = Some(v.capacity.clone());
                }
                crate::report::json::pretty(&report)
            }
            Subject::Suite(v) => {
                let doc = crate::report::suite::json::suite_document(
                    v.done, v.inputs, v.planned, v.complete,
                );
                let mut bytes = serde_json::to_vec_pretty(&doc).map_err(Unrendered::Encode)?;
                bytes.push(b'\n');
                bytes
            }
        })
    }
}
