//! The scaling chart: sets measured with more server shards (or, all shards
//! alike, more client machines) side by side — each file's total ops/s and
//! its ops/s per shard against the shard count, as the whitepaper's tables
//! set 2/4/8/16 shards against 1/2/4/8 machines. Drawn when two files or
//! more differ in shards or machines; a flat per-shard line is linear
//! scaling, a falling one the cost of the next shard.

use crate::report::html::Source;
use crate::report::html::charts::style;
use crate::report::html::svg::{Axis, Chart, Plot, Series};
use crate::report::model::Report;

/// One merged set (or single machine) on the chart.
#[derive(Debug, Clone, Copy)]
struct SetPoint {
    machines: u64,
    shards: u64,
    ops_per_sec: f64,
}

/// What the x axis counts.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Across {
    Shards,
    Machines,
}

impl SetPoint {
    fn of(report: &Report) -> Option<SetPoint> {
        let k = report.kvbench.as_ref()?;
        let totals = report.headline()?.row("Totals")?;
        Some(SetPoint {
            machines: k.machines(),
            shards: k.server_shards(),
            ops_per_sec: totals.ops_per_sec,
        })
    }

    fn x(&self, across: Across) -> u64 {
        match across {
            Across::Shards => self.shards,
            Across::Machines => self.machines,
        }
    }
}

/// The chart, `None` unless the files differ in shards or machines.
pub fn scaling(reports: &[(usize, &Source, &Report)]) -> Option<Chart> {
    let mut points: Vec<SetPoint> = reports
        .iter()
        .filter_map(|(_, _, r)| SetPoint::of(r))
        .collect();
    let first = *points.first()?;
    let differ = |a: Across| points.iter().any(|p| p.x(a) != first.x(a));
    // Shards when they differ; else the machines driving one server.
    let across = if differ(Across::Shards) {
        Across::Shards
    } else if differ(Across::Machines) {
        Across::Machines
    } else {
        return None;
    };
    let x_title = match across {
        Across::Shards => "server shards",
        Across::Machines => "client machines",
    };
    points.sort_by_key(|p| p.x(across));
    let line = |k: usize, name: &str, y: fn(&SetPoint) -> f64| {
        let (colour, dash) = style(0, k, 1);
        Series {
            name: name.to_string(),
            legend: name.to_string(),
            data: Vec::new(),
            colour,
            dash,
            points: points.iter().map(|p| (p.x(across) as f64, y(p))).collect(),
        }
    };
    Some(Chart {
        kind: "scaling",
        title: format!("Scaling: total and per-shard ops/s against {x_title}"),
        data: vec![("x", x_title.to_string())],
        x: Axis::from_zero(x_title),
        y: Axis::from_zero("ops/s"),
        bands: Vec::new(),
        plot: Plot::Lines,
        error_bars: Vec::new(),
        series: vec![
            line(0, "total ops/s", |p| p.ops_per_sec),
            line(1, "ops/s per shard", |p| p.ops_per_sec / p.shards as f64),
        ],
    })
}
