//! The HTML report: one self-contained page (inline CSS and SVG, no
//! script, no external address) drawn from the typed model's documents
//! ([`crate::report::model::Document`]): those `kvbench report` reads from
//! JSON files, and the one `--html-out-file` is given as it is built.
//!
//! - [`scale`]: scales, ticks and their labels;
//! - [`svg`]: escaping and the chart builder;
//! - [`marks`]: what a chart draws: bands, lines, bars, error bars, legend;
//! - [`data`]: what the charts plot, read from the model;
//! - [`charts`]: the charts of the page;
//! - [`capacity`]: the capacity panel of a `kvbench capacity` file: the
//!   answer, its confirmation and the hockey-stick chart;
//! - [`sweep`]: the charts of a sweep, a point per cell;
//! - [`suite`]: the charts of a suite file, a bar per test;
//! - [`verdict`]: the banner of a file that is not valid, and its marks;
//! - [`panels`]: the summary, warnings, server and configuration panels;
//! - [`page_file`]: `kvbench suite --html-out-file`, checked and written;
//! - [`style`]: the page's CSS.
//!
//! The DOM the page promises (chart and series classes, data attributes,
//! one `<circle class="pt">` per point) is documented in docs/html.md and
//! checked in a real browser by tests/e2e/html.rs.

pub mod capacity;
#[cfg(test)]
mod capacity_tests;
pub mod charts;
pub mod components;
pub mod data;
pub mod marks;
#[cfg(test)]
mod overlay_tests;
pub mod page_file;
pub mod panels;
pub mod precision;
pub mod resources;
pub mod scale;
pub mod scaling;
pub mod server;
pub mod style;
pub mod suite;
#[cfg(test)]
mod suite_tests;
pub mod svg;
pub mod sweep;
#[cfg(test)]
mod tests;
pub mod ticks;
pub mod verdict;
#[cfg(test)]
mod verdict_tests;

use std::fmt::Write;
use std::path::{Path, PathBuf};

pub use page_file::check_page_file;

use crate::config::ReportOptions;
use crate::error::UsageError;
use crate::report::files::{SameFileCheck, Target};
use crate::report::html::svg::escape;
use crate::report::model::{self, Document};

/// One file of the page.
#[derive(Debug, Clone)]
pub struct Source {
    /// The name in legends and headings: the file's name, with its parent
    /// directory when two files share a name.
    pub label: String,
    /// What was read.
    pub content: Document,
}

/// The sources whose content `pick` accepts, each with its index among
/// them (the index picks its colour), in the page's order.
pub fn of_kind<'a, T: ?Sized>(
    sources: &'a [Source],
    pick: impl Fn(&'a Document) -> Option<&'a T>,
) -> Vec<(usize, &'a Source, &'a T)> {
    sources
        .iter()
        .filter_map(|s| pick(&s.content).map(|t| (s, t)))
        .enumerate()
        .map(|(i, (s, t))| (i, s, t))
        .collect()
}

/// The labels of `paths`: each file's name; where several share one, the
/// parent directory's name too (`a/r.json`, `b/r.json`); where that is
/// still shared, the path as given.
pub fn labels(paths: &[PathBuf]) -> Vec<String> {
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.display().to_string())
    };
    let with_parent = |p: &Path| {
        let parent = p
            .parent()
            .and_then(Path::file_name)
            .map(|d| d.to_string_lossy().into_owned());
        match parent {
            Some(d) => format!("{d}/{}", name(p)),
            None => name(p),
        }
    };
    let names: Vec<String> = paths.iter().map(|p| name(p)).collect();
    let longer: Vec<String> = paths
        .iter()
        .zip(&names)
        .map(|(p, n)| {
            if names.iter().filter(|m| *m == n).count() > 1 {
                with_parent(p)
            } else {
                n.clone()
            }
        })
        .collect();
    paths
        .iter()
        .zip(&longer)
        .map(|(p, l)| {
            if longer.iter().filter(|m| *m == l).count() > 1 {
                p.display().to_string()
            } else {
                l.clone()
            }
        })
        .collect()
}

/// The whole page for `sources`.
pub fn page(sources: &[Source]) -> String {
    let mut notes = Vec::new();
    let charts = charts::charts(sources, &mut notes);
    let names: Vec<&str> = sources.iter().map(|s| s.label.as_str()).collect();
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>kvbench report: {}</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>\n{}</style>\n</head>\n<body>\n<header><h1>kvbench report</h1><p class=\"files\">",
        escape(&names.join(", ")),
        style::CSS
    );
    for (i, name) in names.iter().enumerate() {
        let sep = if i == 0 { "" } else { " · " };
        let _ = write!(out, "{sep}<span class=\"file\">{}</span>", escape(name));
    }
    let _ = writeln!(
        out,
        "</p><p class=\"generated\">Rendered by kvbench {} from the JSON reports; every chart is drawn from the files' own numbers.</p></header>\n<main>",
        env!("CARGO_PKG_VERSION")
    );
    // First on the page: a file that is not valid is said so before any
    // of its numbers.
    out.push_str(&verdict::banners(sources));
    // Then a capacity search's answer, before the run that confirmed it.
    out.push_str(&capacity::panel(sources));
    out.push_str(&panels::summary(sources));
    out.push_str("<section class=\"charts\">\n");
    for chart in &charts {
        out.push_str(&chart.render());
    }
    out.push_str("</section>\n");
    out.push_str(&panels::warnings(sources));
    out.push_str(&panels::server(sources));
    out.push_str(&components::components(sources));
    out.push_str(&panels::configuration(sources));
    if !notes.is_empty() {
        out.push_str("<section class=\"panel\" data-panel=\"notes\"><h2>Left out</h2><ul>\n");
        for note in &notes {
            let _ = writeln!(out, "<li>{}</li>", escape(note));
        }
        out.push_str("</ul></section>\n");
    }
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

/// `kvbench report`: reads every file, renders the page and writes it to
/// `-o` (atomically) or stdout. An `-o` that cannot be written, or that is
/// one of the files read, is refused before the files are read.
pub fn run(options: &ReportOptions) -> Result<(), UsageError> {
    let output = options.output.as_deref().unwrap_or(Path::new("-"));
    let unwritable = |e: std::io::Error| {
        UsageError::new(
            "-o",
            format!(
                "cannot write {}: {e}; give a writable path",
                output.display()
            ),
        )
    };
    let target = Target::of(output).map_err(unwritable)?;
    target.check_writable().map_err(unwritable)?;
    // `-o a.json` would replace the report with its own page.
    let inputs = options.files.iter();
    let check = inputs.fold(SameFileCheck::default(), |check, file| {
        check.argument("kvbench report", file)
    });
    check.output("-o", output, &target).check()?;
    let labels = labels(&options.files);
    let mut sources = Vec::with_capacity(options.files.len());
    for (path, label) in options.files.iter().zip(labels) {
        let content = model::read(path).map_err(|e| {
            let message = if e.message.starts_with("cannot read") {
                format!("{}; give the path of a JSON report", e.message)
            } else {
                format!(
                    "not a kvbench JSON report (at {}: {}); give a file written by --json-out-file (of a run, a sweep or kvbench suite)",
                    e.path, e.message
                )
            };
            UsageError::new(&path.display().to_string(), message)
        })?;
        sources.push(Source { label, content });
    }
    target
        .write(page(&sources).as_bytes())
        .or_else(|e| {
            // A closed stdout (`| head`) is the reader's choice.
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                Ok(())
            } else {
                Err(e)
            }
        })
        .map_err(unwritable)
}
