//! The page's CSS, inline in its `<head>`: system fonts only, so the page
//! reads the same offline and attached to a ticket.

/// The whole style sheet.
pub const CSS: &str = r#"body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1b1f24; background: #ffffff; }
header { padding: 16px 28px; background: #f3f5f8; border-bottom: 1px solid #d8dde4; }
header h1 { margin: 0 0 4px 0; font-size: 22px; }
header p { margin: 2px 0; color: #4a5563; }
.file { font-family: ui-monospace, monospace; color: #1b1f24; }
main { padding: 8px 28px 40px 28px; max-width: 1200px; }
h2 { font-size: 18px; border-bottom: 1px solid #d8dde4; padding-bottom: 4px; margin-top: 28px; }
h3 { font-size: 15px; margin: 16px 0 6px 0; font-family: ui-monospace, monospace; }
figure.chart-box { margin: 22px 0; }
figcaption { font-weight: 600; margin-bottom: 4px; }
svg.chart { width: 100%; height: auto; background: #ffffff; border: 1px solid #e1e5ea; }
svg.chart .grid { stroke: #eceff3; stroke-width: 1; }
svg.chart .frame { stroke: #6b7480; stroke-width: 1; }
svg.chart text { font-size: 12px; fill: #3b4350; }
svg.chart .axis-title { font-size: 13px; fill: #1b1f24; }
svg.chart .band-0 { fill: #f4f7fb; }
svg.chart .band-1 { fill: #e9eef6; }
svg.chart .band-label { font-size: 11px; fill: #5a6472; }
svg.chart .line { stroke-width: 1.6; }
ul.legend { list-style: none; padding: 0; margin: 6px 0; display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 13px; }
ul.legend li { display: flex; align-items: center; gap: 6px; }
table { border-collapse: collapse; font-size: 13px; margin: 6px 0 12px 0; }
th, td { border: 1px solid #dde2e8; padding: 3px 8px; text-align: left; vertical-align: top; }
table.numbers td { text-align: right; font-variant-numeric: tabular-nums; }
table.numbers td:first-child, table.numbers td.name { text-align: left; }
thead th { background: #f3f5f8; }
table.pairs th { background: #f8f9fb; font-weight: 500; white-space: nowrap; }
table.config code { white-space: pre-wrap; word-break: break-all; }
ul.warnings { padding-left: 20px; }
li.warning { margin: 4px 0; }
li.warning code.kind { background: #fff3cd; border: 1px solid #e7d48a; padding: 0 4px; border-radius: 3px; }
li.silenced { color: #6b7480; }
p.none { color: #5a6472; }
section.verdict-banner { margin: 18px 0; padding: 10px 16px; border: 2px solid #b42318; border-radius: 4px; background: #fdecea; color: #5c1009; }
section.verdict-banner h2 { margin: 0 0 6px 0; border: none; color: #b42318; }
section.verdict-banner ul { margin: 4px 0; padding-left: 20px; }
section.verdict-banner code.kind { background: #ffffff; border: 1px solid #e4a9a2; padding: 0 4px; border-radius: 3px; }
tr[data-verdict="invalid"] td { background: #fdecea; }
div.capacity p.answer { font-size: 16px; font-weight: 600; }
div.capacity[data-confirmed="false"] p.answer { color: #b42318; }
"#;
