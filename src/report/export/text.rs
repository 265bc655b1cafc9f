//! The text report (`--out-file`, or stdout): memtier's tables for a
//! benchmark ([`crate::report::text`]), every cell and the comparison for a
//! sweep ([`crate::report::sweep::text`]), the suite's table of tests.

use super::{Exporter, Subject, Unrendered};
use crate::config::suite::OutputMode;
use crate::report::suite::output;

/// The text report.
pub struct Text;

impl Exporter for Text {
    fn render(&self, subject: &Subject<'_>) -> Result<Vec<u8>, Unrendered> {
        Ok(match subject {
            Subject::Run(input) => crate::report::text::render(input),
            Subject::Sweep(v) => crate::report::sweep::text(
                v.config,
                v.cells,
                v.inputs,
                v.config.sweep.cell_count(),
                v.stop,
            ),
            Subject::Capacity(v) => {
                let mut out = crate::report::text::render(v.input);
                out.extend_from_slice(crate::report::capacity::text(v.capacity).as_bytes());
                out
            }
            Subject::Suite(v) => {
                let mut out = output::header(OutputMode::Table);
                for (r, input) in v.done.iter().zip(v.inputs) {
                    let figures = crate::report::suite::figures(r);
                    out.push_str(&output::row(
                        OutputMode::Table,
                        &r.step,
                        &figures,
                        &input.verdict,
                    ));
                }
                out.into_bytes()
            }
        })
    }
}
