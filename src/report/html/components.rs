//! The `components` panel: what stood behind the target in each phase
//! (`runs[i].watched`: shards, hosts, the proxy) and the phase's limit
//! (`runs[i].limit`), the same cells and words as the text report's
//! ([`crate::report::watched_text`]), escaped. A file without either (memtier's,
//! an older kvbench's) adds nothing; without any, there is no panel.

use std::fmt::Write;

use crate::report::html::Source;
use crate::report::html::svg::escape;
use crate::report::model::Document;
use crate::report::model::kvbench::PhaseSummary;
use crate::report::watched_text::{TITLES, cells};

/// The panel, or nothing when no phase of any file has a limit or a
/// watched component.
pub fn components(sources: &[Source]) -> String {
    let mut body = String::new();
    for source in sources {
        let Document::Report(report) = &source.content else {
            continue;
        };
        let Some(k) = &report.kvbench else {
            continue;
        };
        let phases: Vec<&PhaseSummary> = k
            .runs
            .iter()
            .filter(|p| p.limit.is_some() || !p.watched.is_empty())
            .collect();
        if phases.is_empty() {
            continue;
        }
        let _ = writeln!(body, "<h3>{}</h3>", escape(&source.label));
        if phases.iter().any(|p| !p.watched.is_empty()) {
            body.push_str("<table class=\"numbers\"><thead><tr>");
            for t in TITLES {
                let _ = write!(body, "<th>{}</th>", escape(t));
            }
            body.push_str("</tr></thead><tbody>\n");
            for p in &phases {
                for w in &p.watched {
                    let _ = write!(
                        body,
                        "<tr data-phase=\"{}\" data-component=\"{}\">",
                        escape(&p.phase),
                        escape(&format!("{} {}", w.role, w.address))
                    );
                    for c in cells(&p.phase, w) {
                        let _ = write!(body, "<td>{}</td>", escape(&c));
                    }
                    body.push_str("</tr>\n");
                }
            }
            body.push_str("</tbody></table>\n");
        }
        body.push_str("<ul class=\"limits\">\n");
        for p in &phases {
            if let Some(l) = &p.limit {
                let _ = writeln!(
                    body,
                    "<li class=\"limit\" data-phase=\"{}\" data-limited=\"{}\"><b>{}</b>: {}{}</li>",
                    escape(&p.phase),
                    l.component.is_some(),
                    escape(&p.phase),
                    escape(&l.text),
                    match l.unwatched.is_empty() {
                        true => String::new(),
                        false => format!(
                            " <span class=\"unwatched\">Not watched: {}.</span>",
                            escape(&l.unwatched.join("; "))
                        ),
                    }
                );
            }
        }
        body.push_str("</ul>\n");
    }
    if body.is_empty() {
        return body;
    }
    format!(
        "<section class=\"panel\" data-panel=\"components\"><h2>Components and the limit of each run</h2>\n{body}</section>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_panel_lists_each_watched_component_and_each_limit_escaped() {
        let json = include_str!("fixture.json");
        let mut doc: serde_json::Value = serde_json::from_str(json).unwrap();
        let run = &mut doc["kvbench"]["runs"][0];
        run["watched"] = serde_json::json!([{
            "kind": "redis", "role": "shard", "address": "127.0.0.1:7001", "error": null,
            "seconds": 2.0, "ops_per_sec": 1500.0, "main_thread_cpu_percent": 97.0
        }]);
        run["limit"] = serde_json::json!({
            "component": "shard 127.0.0.1:7001", "measure": "main-thread CPU", "used": 0.97,
            "capacity": 1.0, "unit": "cores", "utilization_percent": 97.0,
            "text": "shard 127.0.0.1:7001: main-thread CPU at 0.97 of 1 core (97 %) <b>",
            "unwatched": []
        });
        let content = crate::report::model::parse("f.json", &doc.to_string()).unwrap();
        let source = Source {
            label: "f.json".into(),
            content,
        };
        let html = components(&[source]);
        assert!(html.contains("data-panel=\"components\""), "{html}");
        assert!(
            html.contains("data-component=\"shard 127.0.0.1:7001\""),
            "{html}"
        );
        assert!(html.contains("97.0 % main"), "{html}");
        assert!(html.contains("data-limited=\"true\""), "{html}");
        assert!(
            html.contains("&lt;b&gt;") && !html.contains("<b>\n"),
            "{html}"
        );
    }

    #[test]
    fn files_without_limits_add_no_panel() {
        let content = crate::report::model::parse("f.json", include_str!("fixture.json")).unwrap();
        let source = Source {
            label: "f.json".into(),
            content,
        };
        assert_eq!(components(&[source]), "");
    }
}
