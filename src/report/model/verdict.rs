//! `kvbench.verdict`: whether the result measures the workload asked for,
//! the whole result's and each section's (docs/verdict.md).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::report::model::named::Named;

/// `kvbench.verdict`: whether the result measures the workload asked for
/// (docs/verdict.md), the whole result's and each section's; the exit code
/// follows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "verdict")]
pub struct Verdict {
    /// No reason makes the result invalid.
    pub valid: bool,
    /// Why the result is not valid; empty when it is.
    pub reasons: Vec<VerdictReason>,
    /// Each result section's own, by title (`ALL STATS`, `RUN #1 RESULTS`);
    /// absent in a sweep's or suite's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Named<SectionVerdict>")]
    pub sections: Option<Named<SectionVerdict>>,
}

impl Verdict {
    /// Each reason as a line, `RUN #1: message`, as the text report and
    /// stderr show them.
    pub fn lines(&self) -> Vec<String> {
        self.reasons
            .iter()
            .map(|r| match &r.phase {
                Some(phase) => format!("{phase}: {}", r.message),
                None => r.message.clone(),
            })
            .collect()
    }
}

/// One section's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SectionVerdict {
    /// No reason makes the section invalid.
    pub valid: bool,
    /// Why the section is not valid; empty when it is.
    pub reasons: Vec<VerdictReason>,
}

/// One reason a result is not valid. `kind` stays a string, as a warning's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct VerdictReason {
    /// Stable name of the reason (`error_replies`, docs/verdict.md); a
    /// string, so that a kind added later still reads.
    #[schemars(regex(pattern = r"^[a-z_]+$"))]
    pub kind: String,
    /// The cause, with its numbers, and what to change.
    pub message: String,
    /// Where it was found: a phase (`RUN #2`, `PREFILL`), prefixed by the
    /// sweep cell or suite test; absent for the whole result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub phase: Option<String>,
}
