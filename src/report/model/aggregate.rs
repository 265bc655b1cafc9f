//! `kvbench.aggregate`: what memtier's `AGGREGATED AVERAGE RESULTS` section
//! cannot hold of the runs it takes together, in the shapes a run has them
//! (the open loop's other latency measure, each cluster node); and
//! [`Report::last_section`], the facts of the section a text report shows
//! last, a run's or the aggregate's.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::report::model::Report;
use crate::report::model::cluster::PhaseCluster;
use crate::report::model::kvbench::LatencyBlock;
use crate::report::model::named::Named;
use crate::report::model::rounded;
use crate::report::model::section::SectionTitle;

/// With `-x 2` or more, over the runs the aggregate section takes together
/// (every run that ran to its end), what its memtier layout lacks; absent
/// when there is none of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "aggregate")]
pub struct Aggregate {
    /// Those runs' run times added, ms: the time its rates are over.
    // Exact in the model, whole milliseconds in the JSON.
    #[serde(rename = "duration_ms", with = "rounded::millis")]
    #[schemars(with = "u64")]
    pub duration: Duration,
    /// `--rate` or `--rate-limiting`: as a run's `open_loop.service_time`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_time: Option<Named<Option<LatencyBlock>>>,
    /// `--rate` or `--rate-limiting`: as a run's `open_loop.response_time`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_time: Option<Named<LatencyBlock>>,
    /// `--cluster-mode` or `--read-server`: as a run's `cluster`, its
    /// `per_second` empty, each node's server calls summed over every run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<PhaseCluster>,
}

/// The facts of the last section of a report, beside its memtier rows.
pub struct LastSection<'a> {
    /// Its title.
    pub title: SectionTitle,
    /// The time its rates are over.
    pub duration: Duration,
    /// The open loop's service time per row and `Totals`.
    pub service_time: Option<&'a Named<Option<LatencyBlock>>>,
    /// The open loop's response time per row and `Totals`.
    pub response_time: Option<&'a Named<LatencyBlock>>,
    /// Each node.
    pub cluster: Option<&'a PhaseCluster>,
}

impl Report {
    /// The last section's facts: `ALL STATS` and `RUN #n` are a run's, the
    /// aggregate `kvbench.aggregate`'s; `None` without one (or for `BEST`
    /// and `WORST`, which an aggregate always follows).
    pub fn last_section(&self) -> Option<LastSection<'_>> {
        let k = self.kvbench.as_ref()?;
        let (title, _) = self.sections.last()?;
        let run = match *title {
            SectionTitle::AllStats => k.runs.first(),
            SectionTitle::Run(n) => k.runs.get((n as usize).checked_sub(1)?),
            SectionTitle::Aggregated(_) => {
                let a = k.aggregate.as_ref()?;
                return Some(LastSection {
                    title: *title,
                    duration: a.duration,
                    service_time: a.service_time.as_ref(),
                    response_time: a.response_time.as_ref(),
                    cluster: a.cluster.as_ref(),
                });
            }
            SectionTitle::Best | SectionTitle::Worst => None,
        }?;
        let open = run.open_loop.as_ref();
        Some(LastSection {
            title: *title,
            duration: run.duration,
            service_time: open.map(|o| &o.service_time),
            response_time: open.map(|o| &o.response_time),
            cluster: run.cluster.as_ref(),
        })
    }
}
