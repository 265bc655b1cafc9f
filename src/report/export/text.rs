//! The text report (`--out-file`, or stdout): memtier's tables for a
//! benchmark ([`crate::report::text`]), every cell and the comparison for a
//! sweep ([`crate::report::sweep::text`]), the suite's table of tests.

use super::{Exporter, Rendering, Subject, Unrendered};
use crate::config::suite::{DEFAULT_PRECISION, OutputMode};
use crate::error::terminal;
use crate::report::model::Document;
use crate::report::suite::output;
use crate::report::text::Layout;

/// The text report; with a `width` (it goes to a terminal) its prose is
/// wrapped and kvbench's own tables fit it, memtier's table unchanged.
pub struct Text {
    /// The terminal's width, `None` for a file or a pipe.
    pub width: Option<usize>,
}

impl Text {
    /// memtier's layout, or the terminal's when the text goes to one and
    /// memtier's was not asked for.
    fn layout(&self, config: &crate::config::Config) -> Layout {
        match self.width {
            Some(width) if !config.output.memtier_layout => Layout::Terminal(width),
            _ => Layout::Memtier,
        }
    }
}

impl Exporter for Text {
    fn render(&self, rendering: &Rendering<'_>) -> Result<Vec<u8>, Unrendered> {
        let document = rendering.document();
        let bytes = match (rendering.subject, document) {
            (Subject::Run(input), Document::Report(report)) => {
                crate::report::text::render(input, report, self.layout(input.config))
            }
            (Subject::Sweep(v), Document::Sweep(doc)) => {
                let total = v.config.sweep.cell_count();
                let verdict = crate::report::sweep::verdict(v.cells, v.inputs, total, v.stop);
                let width = self.width.filter(|_| !v.config.output.wide);
                crate::report::sweep::text(v.config, doc, v.inputs, &verdict, width)
            }
            (Subject::Capacity(v), Document::Report(report)) => {
                let layout = self.layout(v.input.config);
                let mut out = crate::report::text::render(v.input, report, layout);
                out.extend_from_slice(crate::report::capacity::text(v.capacity).as_bytes());
                out
            }
            (Subject::Suite(v), Document::Suite(doc)) => {
                // A file: the wide table, one line per test.
                let mut out = output::header(OutputMode::Table, None);
                let tests = v.done.iter().zip(v.inputs).zip(&doc.suite.tests);
                for ((r, input), test) in tests {
                    let figures = crate::report::suite::figures(&r.step, &test.report);
                    out.push_str(&output::row(
                        OutputMode::Table,
                        &r.step,
                        &figures,
                        &input.verdict,
                        None,
                        DEFAULT_PRECISION,
                    ));
                }
                out.into_bytes()
            }
            // export::json::document builds each subject's own kind.
            _ => unreachable!("a subject's document is of the subject's kind"),
        };
        if self.width.is_none() {
            return Ok(bytes);
        }
        let text = String::from_utf8_lossy(&bytes);
        Ok(terminal::fit_prose(&text, self.width).into_bytes())
    }
}
