//! The block after compare's tables: each file's GET hit rate, and the
//! settings that differ between the files (`kvbench.config`, and
//! `kvbench.server` as `server.*`), a column per file — so a table whose
//! files differ by more than the one change meant shows it
//! (`pipeline 1 vs 16`, `server.version 7.0.15 vs 7.2.4`). A memtier run
//! with memtier's same-seed connections beside a run with distinct seeds
//! gets a like-for-like note: the two loads are not the same.

use std::fmt::Write;

use crate::report::table::Table;
use crate::tools::compare::{Entry, Fleet, Format, table_format};

/// The keys whose values differ between the files that have them, in the
/// order they first appear. A memtier file has the workload settings of its
/// `configuration` only: a key it lacks shows `-` and is not counted as
/// differing.
pub fn differing_keys(entries: &[Entry]) -> Vec<&str> {
    let known: Vec<&Entry> = entries.iter().filter(|e| !e.settings.is_empty()).collect();
    let mut keys: Vec<&str> = Vec::new();
    for e in &known {
        for (k, _) in &e.settings {
            if !keys.contains(&k.as_str()) {
                keys.push(k);
            }
        }
    }
    keys.retain(|k| {
        let mut values = known.iter().filter_map(|e| e.setting(k));
        let first = values.next();
        values.any(|v| Some(v) != first)
    });
    keys
}

/// Each file's value of `key`, `-` where it has none.
fn values(entries: &[Entry], key: &str) -> Vec<String> {
    entries
        .iter()
        .map(|e| e.setting(key).unwrap_or("-").to_string())
        .collect()
}

/// Machines, threads × connections, connections in all and ops/sec per
/// machine, a row each, when some file is a merged set (the whitepaper's
/// tables of 1/2/4/8 machines); none otherwise.
fn fleet_rows(entries: &[Entry]) -> Vec<Vec<String>> {
    if !entries
        .iter()
        .any(|e| e.fleet.is_some_and(|f| f.machines > 1))
    {
        return Vec::new();
    }
    let row = |title: &str, cell: &dyn Fn(&Fleet) -> String| {
        let mut r = vec![title.to_string()];
        r.extend(
            entries
                .iter()
                .map(|e| e.fleet.as_ref().map_or("-".into(), cell)),
        );
        r
    };
    vec![
        row("machines", &|f| f.machines.to_string()),
        row("threads × connections", &|f| {
            format!("{} × {}", f.threads, f.clients)
        }),
        row("connections", &|f| {
            (f.machines * f.threads * f.clients).to_string()
        }),
        row("ops/sec per machine", &|f| {
            format!("{:.2}", f.ops_per_machine)
        }),
        row("server shards", &|f| f.servers.to_string()),
        row("ops/sec per shard", &|f| format!("{:.2}", f.ops_per_server)),
    ]
}

/// What to say when no setting differs.
fn nothing_differs(entries: &[Entry]) -> &'static str {
    if entries.iter().filter(|e| !e.settings.is_empty()).count() < 2 {
        "differs: not known (only kvbench and memtier files carry their settings)"
    } else {
        "differs: nothing in kvbench.config or kvbench.server"
    }
}

/// A like-for-like note when some files' connections share one seed (a
/// memtier file, whose JSON does not record `--distinct-client-seed`, or a
/// kvbench file with `seeding` shared, as `--memtier-compat` runs) and
/// others' do not: same-seed connections ask for the same keys in lockstep,
/// which keeps the server cache-hot.
pub fn seeding_note(entries: &[Entry]) -> Option<String> {
    let mut same: Vec<String> = Vec::new();
    let mut distinct: Vec<&str> = Vec::new();
    for e in entries.iter().filter(|e| !e.settings.is_empty()) {
        match e.setting("seeding").map(|s| s.trim_matches('"')) {
            None => same.push(format!(
                "{} (memtier's default, unless it ran with --distinct-client-seed, which its JSON does not record)",
                e.label
            )),
            Some("shared") => same.push(e.label.clone()),
            Some(_) => distinct.push(&e.label),
        }
    }
    if same.is_empty() || distinct.is_empty() {
        return None;
    }
    Some(format!(
        "not like for like: in {} every connection has the same seed, so the connections ask for the same keys in lockstep and the server's work is cache-hot (Redis 7.0.15: 0.54-0.60 against 0.78-0.88 us of server user time a request, memtier 13-35 % faster with its default; docs/memtier-compat.md); {} give each connection its own seed. Run memtier with --distinct-client-seed, or kvbench with --memtier-compat, so that both sides seed alike.",
        same.join(", "),
        distinct.join(", ")
    ))
}

/// The block in `format` (text or Markdown).
/// With a `width` (a terminal), the text is stacked to fit it.
pub fn render(entries: &[Entry], format: Format, width: Option<usize>) -> String {
    let keys = differing_keys(entries);
    let mut header = vec!["files".to_string()];
    header.extend(entries.iter().map(|e| e.label.clone()));
    let mut hit = vec!["GET hit rate %".to_string()];
    hit.extend(
        entries
            .iter()
            .map(|e| e.hit_rate_percent.map_or("-".into(), |h| format!("{h:.2}"))),
    );
    let fleet = fleet_rows(entries);
    let mut out = String::new();
    let mut t = Table::new(header, |_| true);
    t.push(hit);
    t.extend(fleet);
    let markdown = format == Format::Markdown;
    if markdown {
        // A Markdown table has no sub-rows: each key names its row.
        t.extend(keys.iter().map(|k| {
            let mut cells = vec![format!("differs: {k}")];
            cells.extend(values(entries, k));
            cells
        }));
    } else {
        if !keys.is_empty() {
            t.push(vec!["differs:".to_string()]);
        }
        t.extend(keys.iter().map(|k| {
            let mut cells = vec![format!("  {k}")];
            cells.extend(values(entries, k));
            cells
        }));
    }
    // Never a CSV: the block is printed beside text and Markdown only.
    let shown = if markdown {
        Format::Markdown
    } else {
        Format::Text
    };
    t.write(&mut out, table_format(shown, width));
    // A blank line before a note under a Markdown table: a plain line right
    // under it would be read as one more row. Under text, the note is its
    // own line: as a cell it would widen the first column.
    let gap = if markdown { "\n" } else { "" };
    if keys.is_empty() {
        let _ = writeln!(out, "{gap}{}", nothing_differs(entries));
    }
    if let Some(note) = seeding_note(entries) {
        let _ = writeln!(out, "{gap}{note}");
    }
    out
}
