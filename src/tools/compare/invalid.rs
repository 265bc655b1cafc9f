//! Results that are not valid in a comparison (`kvbench.verdict`,
//! docs/verdict.md): the notice that names each one and its reasons before
//! the tables, the lines for stderr, and the mark every judgement that
//! involves one carries. A table of refusals beside a real run would read
//! as a regression; the judgement stays, and says which side measured
//! something else.
//!
//! A file without a verdict (memtier's, or written before the verdict) is
//! not known to be invalid and is compared as it always was.

use std::fmt::Write;

use crate::tools::compare::verdict::Verdict;
use crate::tools::compare::{Entry, Format};

/// The entries whose verdict says not valid, with their reasons as lines
/// (`RUN #1: message`).
fn invalid(entries: &[Entry]) -> Vec<(&str, Vec<String>)> {
    entries
        .iter()
        .filter_map(|e| {
            let verdict = e.verdict.as_ref().filter(|v| !v.valid)?;
            Some((e.label.as_str(), verdict.lines()))
        })
        .collect()
}

/// The notice before the tables (text or Markdown), ending in a blank
/// line; empty when every entry is valid or not known.
pub fn notice(entries: &[Entry], format: Format) -> String {
    let mut out = String::new();
    for (label, reasons) in invalid(entries) {
        match format {
            Format::Markdown => {
                let _ = writeln!(
                    out,
                    "> **INVALID RESULT: `{label}`**: these numbers do not measure the workload asked for"
                );
                for reason in reasons {
                    let _ = writeln!(out, "> - {reason}");
                }
            }
            Format::Text | Format::Csv => {
                let _ = writeln!(
                    out,
                    "INVALID RESULT: {label}: these numbers do not measure the workload asked for"
                );
                for reason in reasons {
                    let _ = writeln!(out, "  - {reason}");
                }
            }
        }
        out.push('\n');
    }
    out
}

/// One line per reason of each entry that is not valid, `b.json: RUN #1:
/// message`, for stderr.
pub fn lines(entries: &[Entry]) -> Vec<String> {
    invalid(entries)
        .into_iter()
        .flat_map(|(label, reasons)| reasons.into_iter().map(move |r| format!("{label}: {r}")))
        .collect()
}

/// The labels of `involved` (the baseline, then the entry judged) whose row
/// `op` is not valid, each once.
pub fn not_valid<'a>(involved: &[&'a Entry], op: &str) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for e in involved {
        if e.row_invalid(op) && !out.contains(&e.label.as_str()) {
            out.push(&e.label);
        }
    }
    out
}

/// The judgement as shown: `verdict`, then `(not valid: b.json)` when an
/// entry it involves is not valid.
pub fn shown(verdict: &Verdict, not_valid: &[&str]) -> String {
    if not_valid.is_empty() {
        verdict.to_string()
    } else {
        format!("{verdict} (not valid: {})", not_valid.join(", "))
    }
}
