//! The suite's JSON report: `suite.tests`, one entry per step, each holding
//! the complete report of that test (the layout of docs/output.md, so the
//! typed model reads it), and a `kvbench` object saying whether the suite
//! finished. The document is the model's ([`crate::report::model::suite`]);
//! `compare` reads it back through [`read`].

use std::path::Path;

use crate::error::ModelError;
use crate::report::json::SCHEMA_VERSION;
use crate::report::model;
use crate::report::model::suite::{SuiteBody, SuiteDocument, SuiteEntry, SuiteProgress};
use crate::report::suite::StepResult;
use crate::report::verdict::Verdict;
use crate::report::{ReportInput, build};

/// The whole document.
/// `inputs` are the tests' report inputs, in order, each judged once.
pub fn suite_document(
    done: &[StepResult],
    inputs: &[ReportInput<'_>],
    planned: usize,
    complete: bool,
) -> SuiteDocument {
    let tests = done.iter().zip(inputs).map(|(r, input)| SuiteEntry {
        test: r.step.name(),
        title: r.step.test.title.into(),
        command: Some(r.step.command.into()),
        inline: Some(r.step.test.inline),
        preparation: r.step.preparation,
        report: build::report(input),
    });
    let verdicts = done.iter().zip(inputs);
    let verdict = Verdict::of_parts(verdicts.map(|(r, input)| (r.step.name(), &input.verdict)));
    SuiteDocument {
        suite: SuiteBody {
            tests: tests.collect(),
        },
        kvbench: Some(SuiteProgress {
            schema_version: Some(SCHEMA_VERSION),
            tool_version: Some(env!("CARGO_PKG_VERSION").into()),
            complete,
            tests_planned: planned,
            tests_completed: done.len(),
            verdict: Some(build::kvbench::verdict(&verdict)),
        }),
    }
}

/// The suite document in `path`, or `None` when the file is no suite file
/// (or not JSON: the caller's own reader then says what is wrong).
pub fn read(path: &Path) -> Result<Option<SuiteDocument>, ModelError> {
    let Ok((file, text)) = model::read_text(path) else {
        return Ok(None);
    };
    model::parse_suite(&file, &text)
}
