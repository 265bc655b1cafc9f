//! The client machine's CPU second by second (`runs[i].client.per_second`,
//! and the warm-up's): kvbench's own CPU (percent of one core) and the whole
//! machine's (percent of all its cores), on the time line of the ops/s
//! chart, so that a dip in throughput can be read against a saturated
//! client. Files without the readings (memtier's, older kvbench's) add no
//! series; without any, there is no chart.

use crate::report::html::Source;
use crate::report::html::charts::{file_data, legend, style};
use crate::report::html::data::{self, Phase};
use crate::report::html::svg::{Axis, Chart, Plot, Series};
use crate::report::model::Report;
use crate::report::model::host::ClientSecond;

/// One figure of a second.
type Figure = fn(&ClientSecond) -> f64;

/// The summary of `phase` in `report`: the warm-up's or run n's.
fn seconds_of<'a>(report: &'a Report, phase: &Phase<'_>) -> Option<&'a [ClientSecond]> {
    let k = report.kvbench.as_ref()?;
    let summary = match phase.name.strip_prefix("RUN #") {
        Some(n) => k.runs.get(n.parse::<usize>().ok()?.checked_sub(1)?),
        None => k.warmup.as_ref(),
    }?;
    Some(&summary.client.as_ref()?.per_second)
}

/// The chart, `None` when no report has the readings.
pub fn client_cpu(reports: &[(usize, &Source, &Report)]) -> Option<Chart> {
    let files = reports.len();
    let mut series = Vec::new();
    for (i, source, report) in reports {
        for phase in &data::phases(report) {
            let Some(seconds) = seconds_of(report, phase) else {
                continue;
            };
            let kinds: [(&str, Figure); 2] = [
                ("kvbench CPU %", |s| s.process_cpu_percent),
                ("host CPU %", |s| s.machine_cpu_percent),
            ];
            for (k, (name, value)) in kinds.into_iter().enumerate() {
                let (colour, dash) = style(*i, k, files);
                let mut data = file_data(source);
                data.push(("phase", phase.name.clone()));
                series.push(Series {
                    name: name.to_string(),
                    legend: legend(source, name, files),
                    data,
                    colour,
                    dash,
                    points: seconds
                        .iter()
                        .enumerate()
                        .map(|(s, c)| (phase.offset_s + s as f64 + 0.5, value(c)))
                        .collect(),
                });
            }
        }
    }
    (!series.is_empty()).then(|| Chart {
        kind: "client-cpu",
        title: "Client CPU per second: kvbench (of one core) and the machine (of all cores)".into(),
        data: Vec::new(),
        x: Axis::from_zero("seconds since the first phase started"),
        y: Axis::from_zero("percent"),
        bands: Vec::new(),
        plot: Plot::Lines,
        error_bars: Vec::new(),
        series,
    })
}
