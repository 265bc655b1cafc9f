//! The server's CPU and network second by second (`runs[i].server_use`,
//! and the warm-up's): each server process's CPU (INFO `used_cpu_user` +
//! `used_cpu_sys`, percent of one core) and the bytes it read from and wrote
//! to its clients (`total_net_*_bytes`), on the time line of the ops/s
//! chart, beside the client's CPU: a server at one core's limit, or a
//! network at the link's, says which side a number measures. A merged file
//! has one series per server process. On Redis 7 and later each op also
//! gets a chart of the server's own time per second (`LATENCY HISTOGRAM`'s
//! p50 and p99, each at the upper edge of its power-of-two bucket: at most
//! this), to read beside the op's latency per second at the client. A
//! cluster's nodes are servers of their own, told apart by address. Files
//! without the readings (memtier's, older kvbench's) add no series; without
//! any, there are no charts.

use crate::report::html::Source;
use crate::report::html::charts::{file_data, legend, style};
use crate::report::html::data::{self, Phase};
use crate::report::html::svg::{Axis, Chart, Plot, Series};
use crate::report::model::Report;
use crate::report::model::server::{ServerSecond, ServerUse};

/// One figure of a second; `None` where the server did not say.
type Figure<'f> = &'f dyn Fn(&ServerSecond) -> Option<f64>;

/// The summary of `phase` in `report`: the warm-up's or run n's.
fn servers_of<'a>(report: &'a Report, phase: &Phase<'_>) -> &'a [ServerUse] {
    let Some(k) = report.kvbench.as_ref() else {
        return &[];
    };
    let summary = match phase.name.strip_prefix("RUN #") {
        Some(n) => n
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| k.runs.get(i)),
        None => k.warmup.as_ref(),
    };
    summary.map_or(&[], |s| s.server_use.as_slice())
}

/// The series of `figures` over every file, phase and server.
fn series(reports: &[(usize, &Source, &Report)], figures: &[(&str, Figure<'_>)]) -> Vec<Series> {
    let files = reports.len();
    let mut out = Vec::new();
    for (i, source, report) in reports {
        for phase in &data::phases(report) {
            let servers = servers_of(report, phase);
            for (n, server) in servers.iter().enumerate() {
                if server.per_second.is_empty() {
                    continue;
                }
                for (k, (name, value)) in figures.iter().enumerate() {
                    // Several servers (standalone shards) are told apart
                    // by their target.
                    let name = if servers.len() > 1 {
                        format!("{} {name}", server.target)
                    } else {
                        name.to_string()
                    };
                    let (colour, dash) = style(*i, n * figures.len() + k, files);
                    let mut data = file_data(source);
                    data.push(("phase", phase.name.clone()));
                    data.push(("server", server.run_id.clone()));
                    let points = server
                        .per_second
                        .iter()
                        .enumerate()
                        .filter_map(|(s, c)| Some((phase.offset_s + s as f64 + 0.5, value(c)?)))
                        .collect();
                    out.push(Series {
                        legend: legend(source, &name, files),
                        name,
                        data,
                        colour,
                        dash,
                        points,
                    });
                }
            }
        }
    }
    out
}

/// The server CPU chart and the server network chart, when any report has
/// the readings.
pub fn charts(reports: &[(usize, &Source, &Report)]) -> Vec<Chart> {
    let cpu: [(&str, Figure<'_>); 1] = [("server CPU %", &|s| s.cpu_percent)];
    let net: [(&str, Figure<'_>); 2] = [
        ("server in B/s", &|s| s.net_input_bytes_per_sec),
        ("server out B/s", &|s| s.net_output_bytes_per_sec),
    ];
    let mut out = Vec::new();
    let cpu = series(reports, &cpu);
    if !cpu.is_empty() {
        out.push(Chart {
            kind: "server-cpu",
            title: "Server CPU per second: user + system, of one core (INFO used_cpu_*)".into(),
            data: Vec::new(),
            x: Axis::from_zero("seconds since the first phase started"),
            y: Axis::from_zero("percent"),
            bands: Vec::new(),
            series: cpu,
            plot: Plot::Lines,
            error_bars: Vec::new(),
        });
    }
    let net = series(reports, &net);
    if !net.is_empty() {
        out.push(Chart {
            kind: "server-net",
            title: "Server network per second: bytes read from and written to its clients (INFO total_net_*_bytes)".into(),
            data: Vec::new(),
            x: Axis::from_zero("seconds since the first phase started"),
            y: Axis::from_zero("bytes per second"),
            bands: Vec::new(),
            series: net,
            plot: Plot::Lines,
            error_bars: Vec::new(),
        });
    }
    out.extend(latency(reports));
    out
}

/// The ops with the server's time in any second, in order of appearance.
fn latency_ops(reports: &[(usize, &Source, &Report)]) -> Vec<String> {
    let mut ops: Vec<String> = Vec::new();
    for (_, _, report) in reports {
        for phase in &data::phases(report) {
            let seconds = servers_of(report, phase).iter().flat_map(|s| &s.per_second);
            for op in seconds
                .filter_map(|s| s.latency.as_ref())
                .flat_map(|l| l.keys())
            {
                if !ops.iter().any(|o| o == op) {
                    ops.push(op.to_string());
                }
            }
        }
    }
    ops
}

/// For each op, the server's p50 and p99 per second, ms.
fn latency(reports: &[(usize, &Source, &Report)]) -> Vec<Chart> {
    let mut out = Vec::new();
    for op in latency_ops(reports) {
        let of = |s: &ServerSecond| s.latency.as_ref().and_then(|l| l.get(&op)).cloned();
        let p50 = |s: &ServerSecond| of(s).map(|l| l.p50_max_us as f64 / 1000.0);
        let p99 = |s: &ServerSecond| of(s).map(|l| l.p99_max_us as f64 / 1000.0);
        let figures: [(&str, Figure<'_>); 2] = [("server p50 ≤", &p50), ("server p99 ≤", &p99)];
        out.push(Chart {
            kind: "server-latency",
            title: format!(
                "{op}: the server's own time per second (LATENCY HISTOGRAM; each at most its bucket's upper edge)"
            ),
            data: vec![("op", op.clone())],
            x: Axis::from_zero("seconds since the first phase started"),
            y: Axis::log("latency (ms)"),
            bands: Vec::new(),
            series: series(reports, &figures),
            plot: Plot::Lines,
            error_bars: Vec::new(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::charts;
    use crate::report::html::{Source, of_kind};
    use crate::report::model::Document;
    use crate::report::model::Report;

    fn reports(sources: &[Source]) -> Vec<(usize, &Source, &Report)> {
        of_kind(sources, |c| match c {
            Document::Report(r) => Some(r.as_ref()),
            Document::Sweep(_) | Document::Suite(_) => None,
        })
    }

    /// A one-run report whose run has `server_use` with `seconds` seconds.
    fn source(seconds: usize) -> Source {
        let text = include_str!("fixture.json");
        let mut doc: serde_json::Value = serde_json::from_str(text).unwrap();
        let per_second: Vec<serde_json::Value> = (0..seconds)
            .map(|s| {
                serde_json::json!({"cpu_percent": 10.0 + s as f64,
                    "net_input_bytes_per_sec": 1000.0, "net_output_bytes_per_sec": null,
                    "latency": {"GET": {"command": "get", "calls": 100 + s, "p50_us": 4,
                        "p50_max_us": 8, "p99_us": 16, "p99_max_us": 32 * (s as u64 + 1)}}})
            })
            .collect();
        doc["kvbench"]["runs"][0]["server_use"] = serde_json::json!([{"run_id": "abc", "target": "127.0.0.1:6379", "per_second": per_second}]);
        let content: Document = crate::report::model::parse("f.json", &doc.to_string()).unwrap();
        Source {
            label: "f.json".into(),
            content,
        }
    }

    #[test]
    fn a_run_with_server_seconds_draws_its_cpu_and_network() {
        let sources = [source(3)];
        let reports = reports(&sources);
        let found = charts(&reports);
        let kinds: Vec<&str> = found.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, ["server-cpu", "server-net", "server-latency"]);
        let cpu = &found[0].series[0];
        assert_eq!(cpu.points.len(), 3);
        assert_eq!(cpu.points[2].1, 12.0);
        // A figure the server did not give draws no point.
        let net = &found[1].series;
        assert_eq!(net.len(), 2);
        assert_eq!((net[0].points.len(), net[1].points.len()), (3, 0));
        // The server's own p99 per second, at its bucket's upper edge, in ms.
        let latency = &found[2];
        assert_eq!(latency.data, [("op", "GET".to_string())]);
        let p99 = &latency.series[1];
        assert_eq!(p99.name, "server p99 ≤");
        assert_eq!(
            p99.points.iter().map(|p| p.1).collect::<Vec<_>>(),
            [0.032, 0.064, 0.096]
        );
    }

    #[test]
    fn a_report_without_server_seconds_draws_nothing() {
        let sources = [source(0)];
        let reports = reports(&sources);
        // The seconds decide, not the object: no empty chart.
        assert!(charts(&reports).is_empty());
    }
}
