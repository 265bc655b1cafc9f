//! The suite's JSON report: `suite.tests`, one entry per step, each holding
//! the complete report of that test (the layout of docs/output.md, so the
//! typed model reads it), and a `kvbench` object saying whether the suite
//! finished. `compare` reads it back through [`read`].

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ModelError;
use crate::report::json::SCHEMA_VERSION;
use crate::report::model::Report;
use crate::report::model::kvbench;
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

/// One test.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SuiteEntry {
    /// `SET`, `LRANGE_100`, or the preparation's title.
    pub test: String,
    /// redis-benchmark's title.
    pub title: String,
    /// The command sent, with its placeholders (absent from files written
    /// before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Sent as an inline command (`PING\r\n`) rather than a RESP array
    /// (absent from files written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline: Option<bool>,
    /// True for LRANGE's preparation.
    #[serde(default)]
    pub preparation: bool,
    /// The test's report.
    pub report: Report,
}

/// `suite`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SuiteBody {
    /// The tests, in the order run.
    pub tests: Vec<SuiteEntry>,
}

/// `kvbench` of a suite file: whether the suite finished, and whether its
/// tests measure what was asked for.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SuiteProgress {
    /// Layout version (absent from files written before it was read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::report::model::schema::schema_version")]
    pub schema_version: Option<u32>,
    /// kvbench's version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_version: Option<String>,
    /// Every planned test ran and nothing cut the suite short.
    pub complete: bool,
    /// Tests planned (the LRANGE preparation counts as one).
    pub tests_planned: usize,
    /// Tests that ran.
    pub tests_completed: usize,
    /// Every test's verdict findings, each `phase` prefixed by its test
    /// (`SET RUN #1`); `None` in a file written before the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<kvbench::Verdict>,
}

/// A suite file (`kvbench suite --json-out-file`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "suiteDocument")]
pub struct SuiteDocument {
    /// The tests.
    pub suite: SuiteBody,
    /// Whether it finished; `None` in a file without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvbench: Option<SuiteProgress>,
}

/// Only the key that tells a suite file from the others.
#[derive(Deserialize)]
struct Probe {
    suite: Option<serde::de::IgnoredAny>,
}

/// The suite document in `path`, or `None` when the file is no suite file
/// (or not JSON: the caller's own reader then says what is wrong).
pub fn read(path: &Path) -> Result<Option<SuiteDocument>, ModelError> {
    let file = path.display().to_string();
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(None);
    };
    match serde_json::from_str::<Probe>(&text) {
        Ok(Probe { suite: Some(_) }) => {}
        _ => return Ok(None),
    }
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| ModelError {
            file,
            path: ".suite".into(),
            message: e.to_string(),
        })
}
