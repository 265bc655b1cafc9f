//! Best, worst and aggregate views of finished runs: chosen by rate, not by
//! position, and the aggregate rate taken over all requests and all run time.

use super::*;

fn run(n: u32, count: u64, secs: u64) -> PhaseResult {
    let mut stats = Stats::new(2).unwrap();
    stats.ops[0].count = count;
    PhaseResult::of_stats(Phase::Run(n), stats, Duration::from_secs(secs))
}

#[test]
fn best_and_worst_are_chosen_by_rate_not_position() {
    let r = Results {
        server: None,
        prefill: None,
        warmup: None,
        runs: vec![run(1, 100, 1), run(2, 50, 1), run(3, 300, 1)],
        planned_runs: 3,
        runs_met_after: None,
        interrupted: None,
        placement: None,
        cluster: None,
        timing: None,
        tls: None,
        unwritten: Vec::new(),
    };
    assert_eq!(r.best(), Some(2));
    assert_eq!(r.worst(), Some(1));
    let titles: Vec<String> = r.sections().into_iter().map(|s| s.title).collect();
    assert_eq!(titles.len(), 6);
    assert_eq!(titles[5], "AGGREGATED AVERAGE RESULTS (3 runs)");
}

#[test]
fn aggregate_rate_is_all_requests_over_all_time() {
    let r = Results {
        server: None,
        prefill: None,
        warmup: None,
        runs: vec![run(1, 100, 1), run(2, 300, 3)],
        planned_runs: 2,
        runs_met_after: None,
        interrupted: None,
        placement: None,
        cluster: None,
        timing: None,
        tls: None,
        unwritten: Vec::new(),
    };
    let agg = r.aggregate().unwrap();
    assert_eq!(rate(agg.stats.ops[0].count, agg.duration), 100.0);
}

#[test]
fn a_single_run_is_all_stats() {
    let r = Results {
        server: None,
        prefill: None,
        warmup: None,
        runs: vec![run(1, 1, 1)],
        planned_runs: 1,
        runs_met_after: None,
        interrupted: None,
        placement: None,
        cluster: None,
        timing: None,
        tls: None,
        unwritten: Vec::new(),
    };
    assert_eq!(r.sections()[0].title, "ALL STATS");
}

#[test]
fn the_aggregate_merges_only_the_runs_that_ran_to_their_end_and_counts_them() {
    let mut cut = run(2, 10, 1);
    cut.interrupted = true;
    let r = Results {
        server: None,
        prefill: None,
        warmup: None,
        runs: vec![run(1, 100, 1), cut, run(3, 300, 3)],
        planned_runs: 3,
        runs_met_after: None,
        interrupted: None,
        placement: None,
        cluster: None,
        timing: None,
        tls: None,
        unwritten: Vec::new(),
    };
    let agg = r.aggregate().unwrap();
    assert_eq!(agg.title, "AGGREGATED AVERAGE RESULTS (2 runs)");
    assert_eq!(agg.stats.ops[0].count, 400);
    assert_eq!(agg.duration, Duration::from_secs(4));
    assert!(!agg.interrupted);
    // With no run to its end there is nothing to aggregate.
    let mut only_cut = r.clone();
    only_cut.runs.retain(|run| run.interrupted);
    assert!(only_cut.aggregate().is_none());
}
