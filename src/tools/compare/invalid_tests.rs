//! Results that are not valid in a comparison, on hand-made entries: the
//! notice names each with its reasons, every judgement involving one is
//! marked in every layout and format, a suite's rows by their own test,
//! and the CSV keeps its fields.

use crate::report::model::kvbench::{Verdict, VerdictReason};
use crate::tools::compare::invalid::{lines, notice};
use crate::tools::compare::rows::{self, CSV_HEADER};
use crate::tools::compare::tests::entry;
use crate::tools::compare::{Entry, Format, columns};

/// `entry`'s figures, judged not valid for refusals in `RUN #1`.
fn refused(label: &str, ops: f64) -> Entry {
    let mut e = entry(label, ops, Some(1.05));
    e.verdict = Some(Verdict {
        valid: false,
        reasons: vec![VerdictReason {
            kind: "error_replies".into(),
            message: "970 of 1000 replies (97.0 %) were errors, most of them OOM (970)".into(),
            phase: Some("RUN #1".into()),
        }],
        sections: None,
    });
    e.invalid_rows = e.rows.iter().map(|(n, _)| n.clone()).collect();
    e
}

/// A valid entry with a verdict that says so.
fn sound(label: &str, ops: f64) -> Entry {
    let mut e = entry(label, ops, Some(1.05));
    e.verdict = Some(Verdict {
        valid: true,
        reasons: Vec::new(),
        sections: None,
    });
    e
}

/// The fields of a CSV line, a quoted field (`"a, b"`) as one.
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// The verdict (last) field of each `--layout rows` CSV line, with its file.
fn csv_verdicts(csv: &str) -> Vec<(String, String)> {
    let width = CSV_HEADER.split(',').count();
    csv.lines()
        .skip(1)
        .map(|line| {
            let f = fields(line);
            assert_eq!(f.len(), width, "{line}");
            (f[1].clone(), f[width - 1].clone())
        })
        .collect()
}

#[test]
fn the_notice_names_each_invalid_file_with_its_reasons() {
    let entries = [sound("a.json", 1000.0), refused("b.json", 5000.0)];
    let text = notice(&entries, Format::Text);
    assert_eq!(
        text,
        "INVALID RESULT: b.json: these numbers do not measure the workload asked for\n  - RUN #1: 970 of 1000 replies (97.0 %) were errors, most of them OOM (970)\n\n"
    );
    let md = notice(&entries, Format::Markdown);
    assert!(md.starts_with("> **INVALID RESULT: `b.json`**"), "{md}");
    assert!(md.contains("\n> - RUN #1: 970 of 1000"), "{md}");
    assert_eq!(
        lines(&entries),
        ["b.json: RUN #1: 970 of 1000 replies (97.0 %) were errors, most of them OOM (970)"]
    );
    // A valid file and one without a verdict (memtier's, older files) say nothing.
    let quiet = [sound("a.json", 1000.0), entry("old.json", 5000.0, None)];
    assert_eq!(notice(&quiet, Format::Text), "");
    assert!(lines(&quiet).is_empty());
}

#[test]
fn every_judgement_involving_an_invalid_file_says_so() {
    let entries = [
        sound("a.json", 1000.0),
        refused("b.json", 5000.0),
        sound("c.json", 1001.0),
    ];
    let csv = rows::render(&entries, Format::Csv, None);
    assert_eq!(
        csv.lines().next(),
        Some(CSV_HEADER),
        "the CSV keeps its header"
    );
    for (file, verdict) in csv_verdicts(&csv) {
        let marked = verdict.ends_with("(not valid: b.json)");
        assert_eq!(marked, file == "b.json", "{file}: {verdict}");
        if file == "b.json" {
            // The judgement is still there, before the mark.
            assert!(verdict.starts_with("ops/sec +400 %"), "{verdict}");
        }
    }
    // The baseline not valid: its own rows and every row judged against it.
    let entries = [refused("a.json", 1000.0), sound("b.json", 5000.0)];
    let csv = rows::render(&entries, Format::Csv, None);
    let verdicts = csv_verdicts(&csv);
    assert!(
        verdicts
            .iter()
            .all(|(_, v)| v.ends_with("(not valid: a.json)"))
    );
    assert!(
        verdicts
            .iter()
            .any(|(_, v)| v == "baseline (not valid: a.json)")
    );
    let both = [refused("a.json", 1000.0), refused("b.json", 5000.0)];
    let text = rows::render(&both, Format::Text, None);
    assert!(text.contains("(not valid: a.json, b.json)"), "{text}");
}

#[test]
fn the_columns_layout_marks_its_verdict_table_in_every_format() {
    let entries = [sound("a.json", 1000.0), refused("b.json", 5000.0)];
    for format in [Format::Text, Format::Markdown, Format::Csv] {
        let out = columns::render(&entries, format, None);
        // Sets, Gets, Totals: a marked verdict each, none for the baseline.
        assert_eq!(
            out.matches("(not valid: b.json)").count(),
            3,
            "{format:?}:\n{out}"
        );
    }
    let csv = columns::render(&entries, Format::Csv, None);
    let width = csv.lines().next().unwrap().split(',').count();
    for line in csv.lines() {
        assert_eq!(fields(line).len(), width, "{line}");
    }
}

#[test]
fn a_suite_marks_only_the_tests_that_are_not_valid() {
    let mut suite = refused("s.json", 1000.0);
    suite.invalid_rows = vec!["Sets".into()];
    let entries = [sound("base.json", 1000.0), suite];
    let text = rows::render(&entries, Format::Text, None);
    for line in text
        .lines()
        .filter(|l| l.contains("s.json") && !l.contains("base.json"))
    {
        let marked = line.contains("(not valid: s.json)");
        assert_eq!(marked, line.starts_with("Sets"), "{line}");
    }
}
