//! The suite's outputs tested on hand-made step results: figures, the error
//! line, the text/csv rows.

use std::time::Duration;

use clap::Parser;

use crate::cli::SuiteArgs;
use crate::config::SuitePlan;
use crate::config::suite::OutputMode;
use crate::engine::master::results::{Phase, PhaseResult, Results};
use crate::engine::stats::Stats;
use crate::protocol::error_kind::ServerErrorKind;
use crate::report::suite::output::{CSV_HEADER, errors_line, header, row, server_errors};
use crate::report::suite::{Figures, StepResult, figures};
use crate::report::verdict::Verdict;
use crate::report::warnings::Warning;
use crate::report::{ReportInput, build};

/// A finished `-t set` step whose runs each got `(replies, errors)`.
fn set_step(runs: &[(u64, u64)]) -> StepResult {
    let args = SuiteArgs::try_parse_from(["suite", "-t", "set", "-r", "10"]).unwrap();
    let step = SuitePlan::from_args(&args).unwrap().steps.remove(0);
    let runs = runs
        .iter()
        .enumerate()
        .map(|(i, (replies, errors))| {
            let mut stats = Stats::new(1).unwrap();
            stats.ops[0].count = *replies;
            for _ in 0..*errors {
                stats.ops[0].count_error(ServerErrorKind::Oom);
            }
            // A latency per reply, as the worker records them.
            for _ in 0..*replies {
                stats.ops[0].latency_us.record(100).unwrap();
            }
            PhaseResult::of_stats(Phase::Run(i as u32 + 1), stats, Duration::from_secs(1))
        })
        .collect::<Vec<_>>();
    StepResult {
        step,
        results: Results {
            server: None,
            prefill: None,
            warmup: None,
            planned_runs: runs.len() as u32,
            runs_met_after: None,
            runs,
            interrupted: None,
            placement: None,
            cluster: None,
            timing: None,
            tls: None,
            unwritten: Vec::new(),
        },
    }
}

/// The step's figures, read off its report, and its verdict.
fn judged(s: &StepResult) -> (Figures, Verdict) {
    let input = ReportInput::new(&s.step.config, &s.results, true);
    (figures(&s.step, &build::report(&input)), input.verdict)
}

#[test]
fn a_steps_share_is_that_of_its_headline_the_aggregate_of_its_runs() {
    let (f, v) = judged(&set_step(&[(1000, 0)]));
    assert_eq!(f.errors, None);
    assert!(v.valid());
    // -x 2: 30 errors in 2000 replies over both runs, 1.5 %.
    let (f, v) = judged(&set_step(&[(1000, 0), (1000, 30)]));
    let e = f.errors.unwrap();
    assert_eq!(
        (e.errors, e.replies, e.kind),
        (30, 2000, ServerErrorKind::Oom)
    );
    // Judged run by run: 3 % in the second run is over the 1 % default.
    let kinds: Vec<&str> = v.findings.iter().map(|f| f.reason.kind()).collect();
    assert_eq!(kinds, ["error_replies"]);
}

#[test]
fn a_row_with_errors_is_marked_in_q_and_the_table_but_never_in_csv() {
    let refused = set_step(&[(200, 200)]);
    let (f, v) = judged(&refused);
    let marker = "(200 of 200 replies were errors: OOM) [INVALID: error_replies]";
    let quiet = row(OutputMode::Quiet, &refused.step, &f, &v, None, 3);
    assert!(
        quiet.starts_with("SET: ") && quiet.ends_with(&format!(" msec {marker}\n")),
        "{quiet}"
    );
    let table = row(OutputMode::Table, &refused.step, &f, &v, None, 3);
    assert!(table.ends_with(&format!(" {marker}\n")), "{table}");
    let csv = row(OutputMode::Csv, &refused.step, &f, &v, None, 3);
    assert_eq!(
        csv.trim_end().split(',').count(),
        CSV_HEADER.split(',').count()
    );
    assert!(!csv.contains("error") && !csv.contains("INVALID"), "{csv}");
    // Without errors the rows are as before, nothing after the figures.
    let clean = set_step(&[(200, 0)]);
    let (f, v) = judged(&clean);
    assert!(v.valid());
    assert!(row(OutputMode::Quiet, &clean.step, &f, &v, None, 3).ends_with(" msec\n"));
    let table = row(OutputMode::Table, &clean.step, &f, &v, None, 3);
    assert!(!table.contains("error"), "{table}");
}

#[test]
fn on_a_narrow_terminal_the_table_fits_80_columns_and_its_marker_goes_below() {
    let refused = set_step(&[(200, 200)]);
    let (f, v) = judged(&refused);
    let header = header(OutputMode::Table, Some(80));
    let table = row(OutputMode::Table, &refused.step, &f, &v, Some(80), 3);
    let lines: Vec<&str> = header.lines().chain(table.lines()).collect();
    assert_eq!(lines.len(), 3, "{header}{table}");
    assert!(
        lines.iter().all(|l| l.chars().count() <= 80),
        "{header}{table}"
    );
    assert!(lines[1].starts_with("SET ") && !lines[1].contains("INVALID"));
    assert!(
        lines[2].starts_with("  (200 of 200 replies were errors"),
        "{table}"
    );
    // A terminal as wide as the wide table gets the wide table.
    let wide = row(OutputMode::Table, &refused.step, &f, &v, Some(200), 3);
    assert_eq!(wide, row(OutputMode::Table, &refused.step, &f, &v, None, 3));
}

#[test]
fn the_errors_line_is_said_once_whether_or_not_the_warning_said_it() {
    let few = set_step(&[(1000, 3)]);
    let (f, _) = judged(&few);
    let line = errors_line(&few.step, &f, &[]).unwrap();
    assert!(
        line.starts_with("[SET] 3 of 1000 replies (0.3 %) were errors, most of them OOM (3)"),
        "{line}"
    );
    let clean = set_step(&[(1000, 0)]);
    assert_eq!(errors_line(&clean.step, &judged(&clean).0, &[]), None);
    // Above the warning's threshold the error-replies warning is the line.
    let said = Warning::ErrorReplies {
        errors: 3,
        replies: 1000,
        kind: ServerErrorKind::Oom,
        kind_count: 3,
        maxmemory: None,
        policy: None,
        memcached: false,
        redirects: None,
        flags: crate::config::FlagSet::Suite,
    };
    assert_eq!(errors_line(&few.step, &f, &[said]), None);
}

#[test]
fn a_suite_file_reads_back_and_is_written_again_byte_for_byte() {
    let steps = [set_step(&[(1000, 0)]), set_step(&[(900, 3), (800, 0)])];
    let inputs: Vec<crate::report::ReportInput<'_>> = steps
        .iter()
        .map(|s| crate::report::ReportInput::new(&s.step.config, &s.results, true))
        .collect();
    let document = crate::report::suite::json::suite_document(&steps, &inputs, 3, false);
    let written = crate::report::json::pretty(&document);
    let read: crate::report::model::suite::SuiteDocument =
        serde_json::from_slice(&written).unwrap();
    assert_eq!(crate::report::json::pretty(&read), written);
}

#[test]
fn precision_sets_the_latency_decimals_and_leaves_the_rate_at_two() {
    let step = set_step(&[(200, 0)]);
    let (f, v) = judged(&step);
    let quiet = row(OutputMode::Quiet, &step.step, &f, &v, None, 5);
    let p50 = quiet
        .split("p50=")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    assert_eq!(p50.split('.').nth(1).unwrap().len(), 5, "{quiet}");
    let rate = quiet.split(": ").nth(1).unwrap().split(' ').next().unwrap();
    assert_eq!(rate.split('.').nth(1).unwrap().len(), 2, "{quiet}");
    let csv = row(OutputMode::Csv, &step.step, &f, &v, None, 0);
    // Latencies without decimals: no dot in the six latency fields.
    let fields: Vec<&str> = csv.trim_end().split(',').collect();
    assert!(fields[2..].iter().all(|f| !f.contains('.')), "{csv}");
}

#[test]
fn e_prints_each_error_kind_with_its_count() {
    let refused = set_step(&[(200, 200)]);
    let lines = server_errors(&refused.step, &judged(&refused).0);
    assert_eq!(lines, "Error from server: OOM (200 of 200 replies) [SET]\n");
    let clean = set_step(&[(200, 0)]);
    assert_eq!(server_errors(&clean.step, &judged(&clean).0), "");
}
