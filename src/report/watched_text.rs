//! The text of the watched components and the limit, rendered from the
//! report model ([`Watched`], [`Limit`]) for a run's report, `kvbench
//! merge`'s rounds and the HTML page's `components` panel alike: one row per component (a shard's rate,
//! hit rate, CPU, network and keys; a host's busy cores and busiest
//! interface; a proxy's backends), then each phase's `Limit:` line.

use std::fmt::Write;

use crate::report::model::watched::{Limit, Watched};
use crate::report::table::{Format, Table};

/// The titles of the components table.
pub const TITLES: [&str; 8] = [
    "Run",
    "Component",
    "Ops/sec",
    "Hit rate",
    "CPU",
    "Net in MB/s",
    "Net out MB/s",
    "Keys",
];

/// Columns aligned left: the run and the component.
fn left(i: usize) -> bool {
    i < 2
}

fn mb(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{:.2}", v / 1e6))
}

/// The cells of one component's row, under [`TITLES`].
pub fn cells(phase: &str, w: &Watched) -> Vec<String> {
    let name = format!("{} {}", w.role, w.address);
    if let Some(e) = &w.error {
        let mut row = vec![phase.to_string(), name, format!("not read: {e}")];
        row.resize(TITLES.len(), String::new());
        return row;
    }
    match w.role.as_str() {
        "shard" => vec![
            phase.to_string(),
            name,
            w.ops_per_sec.map_or("-".into(), |v| format!("{v:.2}")),
            w.hit_rate_percent
                .map_or("-".into(), |v| format!("{v:.2} %")),
            match (w.main_thread_cpu_percent, w.cpu_percent) {
                (Some(main), _) => format!("{main:.1} % main"),
                (None, Some(all)) => format!("{all:.1} %"),
                _ => "-".into(),
            },
            mb(w.net_input_bytes_per_sec),
            mb(w.net_output_bytes_per_sec),
            w.keys.map_or("-".into(), |k| k.to_string()),
        ],
        "host" => {
            let busiest = w.interfaces.iter().flatten().max_by(|a, b| {
                (a.rx_bytes_per_sec + a.tx_bytes_per_sec)
                    .total_cmp(&(b.rx_bytes_per_sec + b.tx_bytes_per_sec))
            });
            vec![
                phase.to_string(),
                name,
                "-".into(),
                "-".into(),
                match (w.busy_cores, w.cores) {
                    (Some(busy), Some(cores)) => format!("{busy:.2} of {cores} cores"),
                    _ => "-".into(),
                },
                busiest.map_or("-".into(), |n| {
                    format!("{} {}", n.device, mb(Some(n.rx_bytes_per_sec)))
                }),
                mb(busiest.map(|n| n.tx_bytes_per_sec)),
                "-".into(),
            ]
        }
        _ => {
            let backends = w.backends.as_deref().unwrap_or_default();
            let requests: u64 = backends.iter().map(|b| b.requests).sum();
            let errors: u64 = backends.iter().map(|b| b.errors).sum();
            let per_sec = |n: u64| {
                if w.seconds > 0.0 {
                    format!("{:.2}", n as f64 / w.seconds)
                } else {
                    "-".into()
                }
            };
            vec![
                phase.to_string(),
                name,
                per_sec(requests),
                "-".into(),
                format!("{} backends, {errors} errors", backends.len()),
                "-".into(),
                "-".into(),
                w.client_connections
                    .map_or("-".into(), |c| format!("{c} clients")),
            ]
        }
    }
}

/// The components of each `(phase, watched)`, as one table; nothing when
/// none was watched.
pub fn table(out: &mut String, phases: &[(&str, &[Watched])], width: Option<usize>) {
    let mut t = Table::new(TITLES.map(String::from).to_vec(), left)
        .key(2)
        .rule();
    for (phase, watched) in phases {
        t.extend(watched.iter().map(|w| cells(phase, w)));
    }
    if t.is_empty() {
        return;
    }
    let _ = writeln!(out, "Components behind the target (--watch):");
    t.write(out, Format::Text(width));
}

/// `Limit: RUN #1: …` and, once, what was not watched.
pub fn limit_lines(out: &mut String, phases: &[(&str, &Limit)]) {
    for (phase, limit) in phases {
        let _ = writeln!(out, "Limit: {phase}: {}.", limit.text);
    }
    if let Some((_, limit)) = phases.first()
        && !limit.unwatched.is_empty()
    {
        let _ = writeln!(out, "Not watched: {}.", limit.unwatched.join("; "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard() -> Watched {
        serde_json::from_value(serde_json::json!({
            "kind": "redis", "role": "shard", "address": "127.0.0.1:7001", "error": null,
            "seconds": 2.0, "ops_per_sec": 1500.0, "hit_rate_percent": 90.0,
            "main_thread_cpu_percent": 42.5, "net_input_bytes_per_sec": 2.0e6,
            "net_output_bytes_per_sec": 1.0e6, "keys": 1000
        }))
        .unwrap()
    }

    #[test]
    fn a_shard_row_shows_its_rate_hit_rate_and_main_thread() {
        let mut out = String::new();
        let watched = [shard()];
        table(&mut out, &[("RUN #1", &watched)], None);
        assert!(out.starts_with("Components behind the target"), "{out}");
        let row = out.lines().last().unwrap();
        for part in [
            "RUN #1",
            "shard 127.0.0.1:7001",
            "1500.00",
            "90.00 %",
            "42.5 % main",
            "2.00",
            "1000",
        ] {
            assert!(row.contains(part), "{part} in {row}");
        }
    }

    #[test]
    fn nothing_watched_prints_nothing() {
        let mut out = String::new();
        table(&mut out, &[("RUN #1", &[])], None);
        assert_eq!(out, "");
    }
}
