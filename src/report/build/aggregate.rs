//! `kvbench.aggregate` of a report of several runs: the aggregate section's
//! open-loop measures and cluster nodes, built by the same code as a run's
//! from the stats the aggregate section merged.

use crate::config::Config;
use crate::engine::master::results::Results;
use crate::report::build::{nodes, open_loop};
use crate::report::model::aggregate::Aggregate;

/// `None` for a single run (its `ALL STATS` is the run), without an
/// aggregate section, and when neither the open loop nor routing applies.
pub fn aggregate(c: &Config, r: &Results) -> Option<Aggregate> {
    if r.planned_runs <= 1 || (c.rate.is_none() && c.routing().is_none()) {
        return None;
    }
    let s = r.aggregate()?;
    let measures = c.rate.map(|_| open_loop::measures(c, &s.stats));
    let (service_time, response_time) = measures.unzip();
    // The server's calls of every measured run, as the text has always
    // summed them.
    let runs: Vec<_> = r.runs.iter().collect();
    let cluster = nodes::cluster_of(c, r, &s.stats, &c.ops, &runs, s.duration);
    Some(Aggregate {
        duration: s.duration,
        service_time,
        response_time,
        cluster,
    })
}
