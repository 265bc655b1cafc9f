//! The verdict on the page (docs/verdict.md): a file whose `kvbench.verdict`
//! is not valid opens the page with a banner that names it and lists each
//! reason, and everything the page draws of it carries [`MARK`], so that no
//! chart of refusals reads as a measurement of the workload.
//!
//! Which verdict stands for a file: a report's own, a sweep's (every cell's
//! reasons, each named by its cell), a suite's (every test's, named by the
//! test). A file without one (memtier's, or written before the verdict) is
//! not known to be invalid and is shown as it always was.

use std::fmt::Write;

use crate::report::html::Source;
use crate::report::html::svg::escape;
use crate::report::model::kvbench::Verdict;
use crate::report::model::{Document, Report};

/// What a legend, a summary row or an axis label of a result that is not
/// valid says after its name.
pub const MARK: &str = "(INVALID)";

/// The verdict of what a file holds; `None` when the file has none.
pub fn of_content(content: &Document) -> Option<&Verdict> {
    match content {
        Document::Report(r) => of_report(r),
        Document::Sweep(s) => s.kvbench.verdict.as_ref(),
        Document::Suite(s) => s.kvbench.as_ref().and_then(|k| k.verdict.as_ref()),
    }
}

/// One report's own verdict (a sweep cell's, a suite test's).
pub fn of_report(report: &Report) -> Option<&Verdict> {
    report.kvbench.as_ref().and_then(|k| k.verdict.as_ref())
}

/// True only for a verdict that is there and says not valid: a missing
/// one is unknown, never invalid.
pub fn is_invalid(verdict: Option<&Verdict>) -> bool {
    verdict.is_some_and(|v| !v.valid)
}

/// True when the file's verdict says its numbers are not a measurement.
pub fn source_invalid(source: &Source) -> bool {
    is_invalid(of_content(&source.content))
}

/// `text`, with [`MARK`] after it when `invalid`.
pub fn marked(text: &str, invalid: bool) -> String {
    if invalid {
        format!("{text} {MARK}")
    } else {
        text.to_string()
    }
}

/// A banner per file that is not valid, in the page's order; nothing when
/// every file is valid or unknown.
pub fn banners(sources: &[Source]) -> String {
    let mut out = String::new();
    for source in sources {
        let Some(verdict) = of_content(&source.content).filter(|v| !v.valid) else {
            continue;
        };
        let label = escape(&source.label);
        let _ = writeln!(
            out,
            "<section class=\"verdict-banner\" data-verdict=\"invalid\" data-file=\"{label}\" role=\"alert\"><h2>INVALID RESULT: <span class=\"file\">{label}</span></h2>\n<p>These numbers do not measure the workload asked for; its series below are marked {MARK}. Why:</p>\n<ul class=\"reasons\">"
        );
        for reason in &verdict.reasons {
            let _ = write!(
                out,
                "<li class=\"reason\" data-kind=\"{kind}\"><code class=\"kind\">{kind}</code> ",
                kind = escape(&reason.kind)
            );
            if let Some(phase) = &reason.phase {
                let _ = write!(out, "<span class=\"phase\">{}</span>: ", escape(phase));
            }
            let _ = writeln!(out, "{}</li>", escape(&reason.message));
        }
        out.push_str("</ul></section>\n");
    }
    out
}
