//! The typed report model: kvbench's JSON report (docs/output.md,
//! docs/output.schema.json) as structs. [`crate::report::build`] fills them
//! from the results and the JSON exporter serializes them (memtier's keys
//! and their order are the field names and order here); `compare`, `merge`
//! and `kvbench report` read files back into them.
//!
//! What it owns:
//! - [`Document`]: a single report, a sweep (one report per cell) or a
//!   suite (one report per test, [`suite`]);
//! - [`Report`]: memtier's sections (`ALL STATS`, `RUN #n RESULTS`, …) with
//!   their op rows kept by name ([`section`]), and the `kvbench` object
//!   ([`kvbench`]); a memtier_benchmark file reads too, without `kvbench`;
//! - reading a file with errors that name the file and the field's jq path;
//! - docs/output.schema.json, generated from these types ([`schema`]).
//!
//! Reading tolerates unknown keys, so a newer kvbench's file still reads: at
//! the top level they are kept in [`Report::other`] and written back; inside
//! the typed objects they are skipped. Compressed histograms stay strings
//! until [`histogram::CompressedHistogram::decode`] is called.

pub mod aggregate;
pub mod capacity;
pub mod cluster;
mod fleet;
pub mod histogram;
pub mod host;
pub mod kvbench;
pub mod load_gap;
mod locate;
pub mod named;
pub mod open_loop;
pub mod percentiles;
pub mod phase;
pub mod precision;
pub mod recheck;
pub mod rounded;
pub mod schema;
pub mod section;
pub mod server;
pub mod server_latency;
pub mod shard;
pub mod suite;
pub mod sweep;
#[cfg(test)]
mod tests;
pub mod tls;
pub mod verdict;
pub mod warmup;
pub mod watched;

use std::fmt;
use std::path::Path;

use schemars::JsonSchema;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::error::ModelError;
use crate::report::model::kvbench::Kvbench;
use crate::report::model::named::Named;
use crate::report::model::section::{Section, SectionTitle};
use crate::report::model::suite::SuiteDocument;
pub use crate::report::model::sweep::{
    Sweep, SweepDocument, SweepInterrupted, SweepKvbench, SweepParameter, SweepRow, SweepSpread,
};

/// memtier's `run information`: `Requests per client` for counted runs,
/// `Seconds` for timed ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(
    rename = "runInformation",
    extend("oneOf" = [{"required": ["Requests per client"]}, {"required": ["Seconds"]}])
)]
pub struct RunInformation {
    /// Worker threads.
    #[serde(rename = "Threads")]
    #[schemars(range(min = 1))]
    pub threads: u32,
    /// Clients per thread.
    #[serde(rename = "Connections per thread")]
    #[schemars(range(min = 1))]
    pub connections_per_thread: u32,
    /// `-n` per client per run (with `-n allkeys` the busiest connection's
    /// share); absent for timed runs.
    #[serde(
        rename = "Requests per client",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub requests_per_client: Option<u64>,
    /// `--test-time`, rounded to an integer as memtier writes it; present
    /// instead of `Requests per client` for timed runs.
    #[serde(rename = "Seconds", default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<u64>,
    /// memtier's JSON format version, `2`.
    #[serde(rename = "Format version")]
    #[schemars(schema_with = "schema::format_version")]
    pub format_version: u32,
}

/// One report: kvbench's, or memtier_benchmark's (which has no `kvbench`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// memtier's `configuration`. Kept as an object: it is written for
    /// memtier's readers with memtier's keys, which follow memtier's
    /// versions; kvbench's typed settings are in `kvbench.config`.
    pub configuration: Option<Map<String, Value>>,
    /// `run information`.
    pub run_information: Option<RunInformation>,
    /// memtier 2.4's `TLS`: the negotiated session, with `--tls` only.
    pub tls: Option<tls::TlsNegotiated>,
    /// The sections, in the file's order.
    pub sections: Vec<(SectionTitle, Section)>,
    /// kvbench's own object; `None` in a memtier file.
    pub kvbench: Option<Kvbench>,
    /// Top-level keys this reader does not know, kept to be written back.
    pub other: Named<Value>,
}

impl Report {
    /// The section titled `title`.
    pub fn section(&self, title: SectionTitle) -> Option<&Section> {
        self.sections
            .iter()
            .find(|(t, _)| *t == title)
            .map(|(_, s)| s)
    }

    /// The section of run `i` (from 0) of a report of `runs` runs: `ALL
    /// STATS` for one run (or `RUN #1`, where a file names it so), else
    /// `RUN #i+1`.
    pub fn run_section(&self, i: usize, runs: usize) -> Option<&Section> {
        if runs == 1 {
            self.section(SectionTitle::AllStats)
                .or_else(|| self.section(SectionTitle::Run(1)))
        } else {
            self.section(SectionTitle::Run(i as u32 + 1))
        }
    }

    /// The section a reader should quote: the aggregate of several runs, or
    /// `ALL STATS` for one.
    pub fn headline(&self) -> Option<&Section> {
        self.sections
            .iter()
            .find(|(t, _)| matches!(t, SectionTitle::Aggregated(_)))
            .or_else(|| {
                self.sections
                    .iter()
                    .find(|(t, _)| *t == SectionTitle::AllStats)
            })
            .map(|(_, s)| s)
    }
}

/// memtier's JSON format version, the one `run information` says.
pub const FORMAT_VERSION: u32 = 2;

const CONFIGURATION: &str = "configuration";
const RUN_INFORMATION: &str = "run information";
const KVBENCH: &str = "kvbench";
const TLS: &str = "TLS";

impl Serialize for Report {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Some(c) = &self.configuration {
            map.serialize_entry(CONFIGURATION, c)?;
        }
        if let Some(r) = &self.run_information {
            map.serialize_entry(RUN_INFORMATION, r)?;
        }
        if let Some(t) = &self.tls {
            map.serialize_entry(TLS, t)?;
        }
        for (title, section) in &self.sections {
            map.serialize_entry(&title.to_string(), section)?;
        }
        for (k, v) in self.other.iter() {
            map.serialize_entry(k, v)?;
        }
        if let Some(k) = &self.kvbench {
            map.serialize_entry(KVBENCH, k)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Report {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ReportVisitor;

        impl<'de> Visitor<'de> for ReportVisitor {
            type Value = Report;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a report object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Report, A::Error> {
                let mut report = Report::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        CONFIGURATION => report.configuration = Some(map.next_value()?),
                        RUN_INFORMATION => report.run_information = Some(map.next_value()?),
                        KVBENCH => report.kvbench = Some(map.next_value()?),
                        TLS => report.tls = Some(map.next_value()?),
                        _ => match SectionTitle::parse(&key) {
                            Some(title) => report.sections.push((title, map.next_value()?)),
                            None => report.other.0.push((key, map.next_value()?)),
                        },
                    }
                }
                // Without sections nor a kvbench object this is some other
                // JSON file, not a snapshot of a report.
                if report.sections.is_empty() && report.kvbench.is_none() {
                    return Err(de::Error::custom(
                        "no ALL STATS or RUN #n RESULTS section and no kvbench object: not a kvbench or memtier report",
                    ));
                }
                Ok(report)
            }
        }

        deserializer.deserialize_map(ReportVisitor)
    }
}

/// Any file `--json-out-file` writes.
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    /// One benchmark (one or several runs).
    Report(Box<Report>),
    /// A sweep: one report per cell.
    Sweep(Box<SweepDocument>),
    /// A `kvbench suite` file: one report per test.
    Suite(Box<SuiteDocument>),
}

impl Serialize for Document {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Document::Report(r) => r.serialize(serializer),
            Document::Sweep(s) => s.serialize(serializer),
            Document::Suite(s) => s.serialize(serializer),
        }
    }
}

/// Only the key that tells a sweep from a report.
#[derive(Deserialize)]
struct Probe {
    sweep: Option<IgnoredAny>,
}

/// Only the key that tells a suite file from the others.
#[derive(Deserialize)]
struct SuiteProbe {
    suite: Option<IgnoredAny>,
}

/// Reads `text` (the contents of `file`) as a suite file, or `None` when it
/// has no `suite` (or is not JSON: [`parse`] then says where).
pub fn parse_suite(file: &str, text: &str) -> Result<Option<SuiteDocument>, ModelError> {
    match serde_json::from_str(text) {
        Ok(SuiteProbe { suite: Some(_) }) => {}
        _ => return Ok(None),
    }
    serde_json::from_str(text)
        .map(Some)
        .map_err(|e| ModelError {
            file: file.to_string(),
            path: ".suite".into(),
            message: e.to_string(),
        })
}

/// Reads `text` (the contents of `file`) into the model.
pub fn parse(file: &str, text: &str) -> Result<Document, ModelError> {
    if let Some(suite) = parse_suite(file, text)? {
        return Ok(Document::Suite(Box::new(suite)));
    }
    let located = |e: serde_json::Error| {
        let offset = locate::offset_of(text, e.line(), e.column());
        ModelError {
            file: file.to_string(),
            path: locate::path_at(text, offset),
            message: e.to_string(),
        }
    };
    // A first pass that skips every value: cheap next to the typed read,
    // and it keeps the typed read's errors those of the right layout.
    let probe: Probe = serde_json::from_str(text).map_err(located)?;
    if probe.sweep.is_some() {
        serde_json::from_str(text)
            .map(|s| Document::Sweep(Box::new(s)))
            .map_err(located)
    } else {
        let mut report: Report = serde_json::from_str(text).map_err(located)?;
        if let Some(k) = report.kvbench.as_mut() {
            recheck::recheck(k);
        }
        Ok(Document::Report(Box::new(report)))
    }
}

/// Reads the file at `path` into the model.
pub fn read(path: &Path) -> Result<Document, ModelError> {
    let (file, text) = read_text(path)?;
    parse(&file, &text)
}

/// The name errors give the file at `path`, and its text.
pub fn read_text(path: &Path) -> Result<(String, String), ModelError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ModelError {
        file: file.clone(),
        path: ".".into(),
        message: format!("cannot read it: {e}"),
    })?;
    Ok((file, text))
}
