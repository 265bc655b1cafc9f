//! `LATENCY HISTOGRAM` from its wire shape, and the difference of two readings.

use crate::engine::master::server::latency::{
    Cumulative, LatencySnapshot, LatencyUnavailable, parse_histogram,
};
use crate::protocol::value::{self, Value};

fn reply(wire: &[u8]) -> Value {
    value::parse(wire).unwrap().unwrap().0
}

/// Redis 7.0's RESP2 reply for SET (100 calls: 99 within 1 µs, one within
/// 2 µs) and GET (10 calls within 4 µs).
const WIRE: &[u8] = b"*4\r\n$3\r\nset\r\n*4\r\n$5\r\ncalls\r\n:100\r\n$14\r\nhistogram_usec\r\n*4\r\n:1\r\n:99\r\n:2\r\n:100\r\n$3\r\nget\r\n*4\r\n$5\r\ncalls\r\n:10\r\n$14\r\nhistogram_usec\r\n*2\r\n:4\r\n:10\r\n";

#[test]
fn parses_each_command_with_its_cumulative_edges() {
    let found = parse_histogram(&reply(WIRE)).unwrap();
    assert_eq!(found["set"].edges, vec![(1, 99), (2, 100)]);
    assert_eq!(found["get"].total(), 10);
    assert_eq!(found["set"].percentile_bucket_us(50.0), Some((0, 1)));
    assert_eq!(found["set"].percentile_bucket_us(99.5), Some((1, 2)));
}

#[test]
fn an_error_reply_is_an_old_server() {
    let r = reply(b"-ERR unknown subcommand 'HISTOGRAM'\r\n");
    assert_eq!(parse_histogram(&r), Err(LatencyUnavailable::NoHistogram));
}

#[test]
fn the_difference_counts_only_the_phase() {
    let before = Cumulative {
        edges: vec![(1, 50), (4, 60)],
    };
    // 100 more calls: 50 within 1 µs, 40 within 2, 10 within 8.
    let after = Cumulative {
        edges: vec![(1, 100), (2, 140), (4, 150), (8, 160)],
    };
    let d = after.since(&before);
    assert_eq!(d.edges, vec![(1, 50), (2, 90), (4, 90), (8, 100)]);
    assert_eq!(d.percentile_bucket_us(50.0), Some((0, 1)));
    assert_eq!(d.percentile_bucket_us(90.0), Some((1, 2)));
    assert_eq!(d.percentile_bucket_us(99.0), Some((4, 8)));
    // Redis left the empty buckets out: the listed edge below is far
    // lower than where the bucket starts.
    let sparse = Cumulative {
        edges: vec![(2, 1), (2113, 101)],
    };
    assert_eq!(sparse.percentile_bucket_us(50.0), Some((1035, 2113)));
}

#[test]
fn a_restart_counts_everything_after_it_and_idle_commands_drop_out() {
    let h = |n| Cumulative {
        edges: vec![(2, n)],
    };
    let before = LatencySnapshot {
        run_id: Some("a".into()),
        commands: [("set".to_string(), h(500)), ("get".to_string(), h(7))].into(),
    };
    let same = LatencySnapshot {
        run_id: Some("a".into()),
        commands: [("set".to_string(), h(530)), ("get".to_string(), h(7))].into(),
    };
    let d = same.since(&before);
    assert_eq!(d.keys().collect::<Vec<_>>(), ["set"]);
    assert_eq!(d["set"].total(), 30);
    let restarted = LatencySnapshot {
        run_id: Some("b".into()),
        ..same.clone()
    };
    assert_eq!(restarted.since(&before)["set"].total(), 530);
}

#[test]
fn the_sum_adds_cumulative_counts_at_every_edge_either_lists() {
    // Node A: 10 calls within 1 µs, 2 more within 4; node B: 5 within 2 µs,
    // 1 more within 8 (each leaves out the edges where nothing changed).
    let a = Cumulative {
        edges: vec![(1, 10), (4, 12)],
    };
    let b = Cumulative {
        edges: vec![(2, 5), (8, 6)],
    };
    let s = Cumulative::sum([&a, &b]);
    assert_eq!(s.edges, vec![(1, 10), (2, 15), (4, 17), (8, 18)]);
    assert_eq!(s.total(), a.total() + b.total());
    // Of 18 calls the 9th is within 1 µs, the 15th within 2, the 18th 8.
    assert_eq!(s.percentile_bucket_us(50.0), Some((0, 1)));
    assert_eq!(s.percentile_bucket_us(80.0), Some((1, 2)));
    assert_eq!(s.percentile_bucket_us(99.0), Some((4, 8)));
    assert_eq!(Cumulative::sum([&a]), a);
    assert_eq!(Cumulative::sum([]), Cumulative::default());
}
