//! Counters and histograms merged with `+=`, means exact, and the requests
//! never sent kept apart from the replies.

use super::*;
use crate::protocol::resp::ServerErrorKind;

#[test]
fn merging_histograms_keeps_every_sample() {
    let mut a = OpStats::new().unwrap();
    let mut b = OpStats::new().unwrap();
    for v in 1..=100 {
        a.record(v);
    }
    for v in 1001..=1100 {
        b.record(v);
    }
    a += &b;
    assert_eq!(a.count, 200);
    assert_eq!(a.latency_us.len(), 200);
    let exact_mean = ((1..=100).sum::<u64>() + (1001..=1100).sum::<u64>()) as f64 / 200.0;
    assert_eq!(a.mean_us(), exact_mean);
    // The median of the merged set lies between the two groups: no averaging of medians could know that.
    assert!(a.latency_us.value_at_quantile(0.75) > 1000);
    assert!(a.latency_us.value_at_quantile(0.25) <= 100);
}

#[test]
fn latencies_beyond_an_hour_are_recorded_not_clamped() {
    let mut a = OpStats::new().unwrap();
    a.record(LATENCY_MAX_US * 4);
    assert!(a.latency_us.max() >= LATENCY_MAX_US * 4 * 999 / 1000);
}

#[test]
fn open_loop_keeps_response_and_service_time_apart() {
    let mut a = Stats::new_open_loop(2).unwrap();
    a.ops[1].record_open_loop(500_000, 300);
    let mut b = Stats::new_open_loop(2).unwrap();
    b.ops[1].record_open_loop(100, 100);
    a += &b;
    assert_eq!(a.ops[1].count, 2);
    assert!(a.ops[1].latency_us.max() >= 499_000);
    assert!(a.ops[1].service_us.as_ref().unwrap().max() < 400);
    assert_eq!(a.ops[1].mean_service_us(), 200.0);
}

#[test]
fn rate_limiting_headlines_service_time_and_keeps_response_time_beside() {
    let mut a = OpStats::new_service_headline().unwrap();
    a.record_open_loop(500_000, 300);
    let mut b = OpStats::new_service_headline().unwrap();
    b.record_open_loop(100, 100);
    a += &b;
    assert!(a.latency_us.max() < 400);
    assert_eq!(a.mean_us(), 200.0);
    assert!(a.response_us.as_ref().unwrap().max() >= 499_000);
    assert_eq!(a.response_sum_us, 500_100);
    a.reset();
    assert!(a.response_us.as_ref().unwrap().is_empty());
}

#[test]
fn error_counts_add_per_kind() {
    let mut a = ErrorCounts::default();
    a.count_server(ServerErrorKind::Oom);
    let mut b = ErrorCounts::default();
    b.count_server(ServerErrorKind::Oom);
    b.connection = 2;
    a += &b;
    assert_eq!(a.server_total(), 2);
    assert_eq!(a.connection, 2);
    assert!(!a.is_clean());
}

#[test]
fn totals_merge_every_row() {
    let mut s = Stats::new(3).unwrap();
    s.ops[0].record(10);
    s.ops[1].record(20);
    s.ops[1].hits = 1;
    s.ops[2].record(30);
    s.ops[2].errors_by_kind[0] = 1;
    let t = s.totals();
    assert_eq!(t.count, 3);
    assert_eq!(t.hits, 1);
    assert_eq!(t.errors_by_kind[0], 1);
    assert_eq!(s.merged([1, 2].into_iter()).unwrap().count, 2);
    let mut wider = Stats::new(1).unwrap();
    wider += &s;
    assert_eq!(wider.replies(), 3);
}

#[test]
fn requests_never_sent_are_kept_apart_from_the_replies() {
    let mut a = OpStats::new_open_loop().unwrap();
    a.record_open_loop(1_000, 400);
    a.record_open_loop(3_000, 600);
    a.record_never_sent(900_000);
    let mut b = OpStats::new_open_loop().unwrap();
    b.record_never_sent(100_000);
    a += &b;
    // The replies' fields hold the replies only: mean = sum / count.
    assert_eq!(
        (a.count, a.latency_us.len(), a.latency_sum_us),
        (2, 2, 4_000)
    );
    assert_eq!(a.mean_us(), 2_000.0);
    assert!(a.latency_us.max() < 3_100);
    // The waits of the requests never sent are beside them, merged too.
    assert_eq!(a.never_sent, 2);
    assert_eq!(a.never_sent_us.as_ref().unwrap().len(), 2);
    assert_eq!(a.mean_never_sent_us(), 500_000.0);
    a.reset();
    assert_eq!((a.never_sent, a.never_sent_sum_us), (0, 0));
    assert!(a.never_sent_us.as_ref().unwrap().is_empty());
}
