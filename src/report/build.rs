//! The report built once per save: [`report`] turns the configuration, the
//! results, the verdict and the warnings of a [`ReportInput`] into the typed
//! [`crate::report::model::Report`] ([`capacity_report`] with a capacity
//! search's result in it), which every JSON file is the serialization of
//! and the HTML page draws ([`crate::report::export`]), and which `compare`,
//! `merge` and `kvbench report` read back.
//!
//! memtier's keys, their order and memtier's rounding are the model's and
//! this builder's: each number is rounded here, as memtier prints it, so that
//! serializing the model writes the bytes memtier's readers expect.
//!
//! - [`rows`]: memtier's sections (`ALL STATS`, `RUN #n RESULTS`, …) from
//!   sums, which a run's stats ([`section`]) and merge's sums both provide;
//! - [`kvbench`]: the `kvbench` object and its phase summaries;
//! - [`evidence`]: the server's account, placement, shard and cluster nodes;
//! - [`open_loop`]: a `--rate` run's schedule and latency blocks;
//! - [`config`]: memtier's `configuration`;
//! - [`settings`]: `kvbench.config`, also `--show-config`.

pub mod aggregate;
pub mod config;
pub mod evidence;
pub mod host;
pub mod kvbench;
pub mod nodes;
pub mod open_loop;
pub mod precision;
pub mod rows;
pub mod section;
pub mod server_latency;
pub mod settings;
pub mod warmup;
pub mod watched;

use crate::config::{Config, Stop};
use crate::report::ReportInput;
use crate::report::model::capacity::Capacity;
use crate::report::model::section::SectionTitle;
use crate::report::model::tls::TlsNegotiated;
use crate::report::model::{Report, RunInformation};

/// The whole report of `input`.
pub fn report(input: &ReportInput<'_>) -> Report {
    report_with(input, None)
}

/// The report of a capacity search: `input`'s benchmark, with what the
/// search found in `kvbench.capacity`.
pub fn capacity_report(input: &ReportInput<'_>, capacity: &Capacity) -> Report {
    report_with(input, Some(capacity))
}

fn report_with(input: &ReportInput<'_>, capacity: Option<&Capacity>) -> Report {
    let c = input.config;
    let sections = input.results.sections();
    let sections = sections.iter().filter_map(|s| {
        // Every title the results give is one of memtier's, which parse;
        // the model keys a section by its parsed title.
        let title = SectionTitle::parse(&s.title)?;
        Some((title, section::section(s, c)))
    });
    Report {
        configuration: Some(config::memtier_configuration(c)),
        run_information: Some(run_information(c)),
        tls: input.results.tls.as_ref().map(|t| TlsNegotiated {
            negotiated_version: t.version.clone(),
            negotiated_cipher: t.cipher.clone(),
        }),
        sections: sections.collect(),
        kvbench: Some(kvbench::kvbench(input, capacity)),
        other: Default::default(),
    }
}

/// memtier's `run information`: its third key names what bounds the runs,
/// `Requests per client` or, for timed runs, `Seconds`.
fn run_information(c: &Config) -> RunInformation {
    let (requests_per_client, seconds) = match c.stop {
        Stop::Requests(n) => (Some(n), None),
        Stop::AllKeys => (Some(config::allkeys_per_connection(c)), None),
        Stop::Time(d) => (None, Some(d.as_secs_f64().round() as u64)),
    };
    RunInformation {
        threads: c.threads as u32,
        connections_per_thread: c.clients as u32,
        requests_per_client,
        seconds,
        format_version: crate::report::model::FORMAT_VERSION,
    }
}

#[cfg(test)]
mod tests;
