//! The suite file's document (`kvbench suite --json-out-file`): `suite.tests`,
//! one entry per step, each holding the complete report of that test, and a
//! `kvbench` object saying whether the suite finished.
//! [`crate::report::suite::json`] builds it; [`crate::report::model::parse`]
//! reads it back as [`crate::report::model::Document::Suite`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::report::model::Report;
use crate::report::model::kvbench;

/// One test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SuiteBody {
    /// The tests, in the order run.
    pub tests: Vec<SuiteEntry>,
}

/// `kvbench` of a suite file: whether the suite finished, and whether its
/// tests measure what was asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "suiteDocument")]
pub struct SuiteDocument {
    /// The tests.
    pub suite: SuiteBody,
    /// Whether it finished; `None` in a file without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvbench: Option<SuiteProgress>,
}
