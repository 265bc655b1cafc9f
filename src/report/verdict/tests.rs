//! The verdict's decisions on hand-made phases: a clean run is valid with no
//! reasons; each way a result stops measuring the workload gives its reason,
//! at the threshold and not below it.

use std::time::Duration;

use crate::engine::master::results::{Phase, PhaseResult, Results};
use crate::engine::stats::Stats;
use crate::engine::stats::errors::ProtocolFault;
use crate::protocol::resp::{DecodeError, ServerErrorKind};
use crate::protocol::wire::WireError;
use crate::report::cluster_fixture::standalone_config;
use crate::report::verdict::{Reason, Verdict};

fn run(n: u32, replies: u64) -> PhaseResult {
    let mut stats = Stats::new(2).unwrap();
    stats.ops[0].count = replies;
    PhaseResult::of_stats(Phase::Run(n), stats, Duration::from_secs(10))
}

fn results(runs: Vec<PhaseResult>) -> Results {
    Results {
        planned_runs: runs.len() as u32,
        runs,
        ..Results::default()
    }
}

fn kinds(v: &Verdict) -> Vec<&'static str> {
    v.findings.iter().map(|f| f.reason.kind()).collect()
}

fn with_errors(replies: u64, errors: u64, kind: ServerErrorKind) -> PhaseResult {
    let mut r = run(1, replies);
    r.stats.ops[0].errors = errors;
    for _ in 0..errors {
        r.stats.errors.count_server(kind);
    }
    r
}

#[test]
fn a_clean_run_is_valid_with_no_reasons() {
    let c = standalone_config(&[]);
    let v = Verdict::of_results(&c, &results(vec![run(1, 1000), run(2, 1000)]));
    assert!(v.valid());
    assert!(v.findings.is_empty());
    assert_eq!(v.text(false), "");
    assert!(crate::report::build::kvbench::verdict(&v).valid);
}

#[test]
fn error_replies_above_the_share_make_the_run_invalid_and_name_the_kind() {
    let c = standalone_config(&[]);
    // 97 % -OOM, as a server at maxmemory with noeviction answers SETs.
    let v = Verdict::of_results(
        &c,
        &results(vec![with_errors(1000, 970, ServerErrorKind::Oom)]),
    );
    assert_eq!(kinds(&v), ["error_replies"]);
    let message = v.findings[0].to_string();
    assert!(
        message.starts_with("RUN #1: 970 of 1000 replies (97.0 %)"),
        "{message}"
    );
    assert!(message.contains("OOM (970)"), "{message}");
    assert!(
        v.text(false).starts_with("INVALID RESULT:"),
        "{}",
        v.text(false)
    );
    assert!(v.text(false).contains("exit code 3"));
}

#[test]
fn the_error_share_is_a_limit_not_a_tripwire() {
    let c = standalone_config(&[]);
    // 1 % exactly is allowed; a little more is not.
    let at = Verdict::of_results(
        &c,
        &results(vec![with_errors(1000, 10, ServerErrorKind::Err)]),
    );
    assert!(at.valid(), "{:?}", at.findings);
    let over = Verdict::of_results(
        &c,
        &results(vec![with_errors(1000, 11, ServerErrorKind::Err)]),
    );
    assert_eq!(kinds(&over), ["error_replies"]);
    let loose = standalone_config(&["--max-error-share", "5"]);
    let five = Verdict::of_results(
        &loose,
        &results(vec![with_errors(1000, 50, ServerErrorKind::Err)]),
    );
    assert!(five.valid());
}

#[test]
fn one_bad_run_makes_the_file_invalid_though_the_aggregate_is_clean() {
    let c = standalone_config(&["-x", "3"]);
    let mut bad = with_errors(1000, 20, ServerErrorKind::Err);
    bad.phase = Phase::Run(3);
    let r = results(vec![run(1, 1000), run(2, 1000), bad]);
    let v = Verdict::of_results(&c, &r);
    assert_eq!(kinds(&v), ["error_replies"]);
    assert_eq!(v.findings[0].phase.as_deref(), Some("RUN #3"));
    // The aggregate's share (20 of 3000) is under the limit.
    let sections = r.sections();
    let aggregate = sections.last().unwrap();
    assert!(Verdict::of_section(&c, aggregate).valid());
    assert!(!Verdict::of_section(&c, &sections[2]).valid());
}

#[test]
fn a_run_without_a_reply_says_nothing_was_measured_and_why() {
    let c = standalone_config(&[]);
    let mut r = run(1, 0);
    r.stats
        .errors
        .count_protocol(ProtocolFault::Malformed(WireError::Resp(
            DecodeError::BulkTooLarge(1 << 62),
        )));
    r.stats.errors.lost_requests = 1;
    let v = Verdict::of_results(&c, &results(vec![r]));
    assert_eq!(kinds(&v), ["protocol_errors", "nothing_measured"]);
    let message = v.findings[0].to_string();
    assert!(
        message.contains("bulk length 4611686018427387904 exceeds the limit"),
        "{message}"
    );
}

#[test]
fn requests_lost_to_timeouts_count_against_the_error_share() {
    let c = standalone_config(&[]);
    let mut r = run(1, 900);
    r.stats.errors.timeouts = 100;
    r.stats.errors.lost_requests = 100;
    let v = Verdict::of_results(&c, &results(vec![r]));
    assert_eq!(kinds(&v), ["requests_lost"]);
    let message = v.findings[0].to_string();
    assert!(
        message.contains("100 of 1000 requests sent (10.0 %)"),
        "{message}"
    );
    assert!(message.contains("request timeouts 100"), "{message}");
}

#[test]
fn a_dead_node_and_never_sent_requests_are_load_not_offered() {
    let c = standalone_config(&[]);
    let mut r = run(1, 770);
    r.stats.errors.node_down = 230;
    let v = Verdict::of_results(&c, &results(vec![r]));
    assert_eq!(kinds(&v), ["nodes_down"]);
    assert!(
        v.findings[0]
            .to_string()
            .contains("230 of 1000 requests (23.0 %)")
    );
    let mut open = run(1, 995);
    open.unsent = 5;
    assert!(Verdict::of_results(&c, &results(vec![open.clone()])).valid());
    open.unsent = 50;
    let v = Verdict::of_results(&c, &results(vec![open]));
    assert_eq!(kinds(&v), ["never_sent"]);
}

#[test]
fn lost_connections_a_stall_and_an_interrupt_each_say_so() {
    let c = standalone_config(&["-n", "5"]);
    let mut r = run(1, 10);
    r.connections_given_up = 2;
    r.stalled_workers = 1;
    let mut all = results(vec![r]);
    all.interrupted = Some((Phase::Run(1), 2));
    let v = Verdict::of_results(&c, &all);
    assert_eq!(
        kinds(&v),
        ["connections_lost", "no_progress", "interrupted"]
    );
    let stall = v.findings[1].to_string();
    assert!(stall.contains("no reply came for 10 s"), "{stall}");
    assert!(v.findings[2].to_string().contains("signal 2"));
}

#[test]
fn a_benchmark_that_ended_before_its_first_run_measured_nothing() {
    let c = standalone_config(&[]);
    let v = Verdict::of_results(&c, &results(Vec::new()));
    assert_eq!(kinds(&v), ["nothing_measured"]);
}

#[test]
fn parts_are_labelled_in_the_verdict_of_their_whole() {
    let c = standalone_config(&[]);
    let bad = Verdict::of_results(
        &c,
        &results(vec![with_errors(10, 10, ServerErrorKind::Err)]),
    );
    let good = Verdict::default();
    let whole = Verdict::of_parts([("ZADD".to_string(), &bad), ("SET".to_string(), &good)]);
    assert_eq!(whole.findings.len(), 1);
    assert_eq!(whole.findings[0].phase.as_deref(), Some("ZADD RUN #1"));
    let written = crate::report::build::kvbench::verdict(&whole);
    assert!(!written.valid);
    assert_eq!(written.reasons[0].kind, "error_replies");
    assert_eq!(written.reasons[0].phase.as_deref(), Some("ZADD RUN #1"));
    assert!(matches!(
        whole.findings[0].reason,
        Reason::ErrorReplies { errors: 10, .. }
    ));
}

#[test]
fn the_invalid_text_names_the_code_the_process_exits_with() {
    let c = standalone_config(&[]);
    let mut all = results(vec![with_errors(1000, 970, ServerErrorKind::Oom)]);
    let ended = Verdict::of_results(&c, &all);
    assert_eq!(ended.exit_code(false), 3);
    assert!(ended.text(true).contains("(exit code 0: --allow-invalid)"));
    // Ctrl-C: 128 + 2 whatever else was wrong, and --allow-invalid changes nothing.
    all.interrupted = Some((Phase::Run(1), 2));
    let cut = Verdict::of_results(&c, &all);
    assert_eq!(cut.exit_code(false), 130);
    for allow_invalid in [false, true] {
        let text = cut.text(allow_invalid);
        assert!(text.contains("(exit code 130)"), "{text}");
    }
    // The --max-errors stop (no signal) exits 1.
    all.interrupted = Some((Phase::Run(1), 0));
    let stopped = Verdict::of_results(&c, &all);
    assert!(stopped.text(false).contains("(exit code 1)"));
}
