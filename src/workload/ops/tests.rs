//! Tests of [`super`]: the op table built from the flags.

use super::*;
use crate::workload::pair::PairOptions;

fn spec(text: &str) -> CommandSpec {
    CommandSpec::parse(text).unwrap()
}

#[test]
fn default_pair_is_sets_and_gets_weighted_by_the_ratio() {
    let t = OpTable::default_pair(
        Ratio { set: 1, get: 10 },
        KeyPattern::Uniform,
        KeyPattern::Sequential,
    );
    let names: Vec<_> = t.rows.iter().map(|r| r.memtier.as_str()).collect();
    assert_eq!(names, ["Sets", "Gets"]);
    assert!(!t.rows[0].counts_hits && t.rows[1].counts_hits);
    assert_eq!(t.weights(Ratio { set: 2, get: 3 }), [2, 3]);
    assert_eq!(t.ops[1].pattern, KeyPattern::Sequential);
    assert_eq!(t.ops[0].encoding, Encoding::Set);
    assert_eq!(t.ops[1].encoding, Encoding::Get);
}

#[test]
fn command_breakdown_shares_a_row_per_name_and_line_breakdown_does_not() {
    let lines = || {
        vec![
            (spec("SET __key__ __data__"), KeyPattern::Uniform, 1),
            (spec("GET __key__"), KeyPattern::Uniform, 1),
            (spec("get other:__key__"), KeyPattern::Uniform, 1),
        ]
    };
    let by_command = OpTable::commands(lines(), Breakdown::Command);
    assert_eq!(by_command.rows.len(), 2);
    assert_eq!(by_command.ops[2].row, 1);
    let by_line = OpTable::commands(lines(), Breakdown::Line);
    let keys: Vec<_> = by_line.rows.iter().map(|r| r.json_key.as_str()).collect();
    assert_eq!(keys, ["Sets", "Gets", "Gets#2"]);
    assert_eq!(by_line.rows[2].memtier, "Gets");
    assert_eq!(by_line.rows[2].name_key, "GET#2");
    assert_eq!(by_line.ops[2].row, 2);
    let witnesses = by_line.witnesses();
    assert_eq!(witnesses.len(), 2);
    assert_eq!(witnesses[1].command, "get");
    assert_eq!(witnesses[1].rows, [1, 2]);
    assert_eq!(by_line.weights(Ratio { set: 9, get: 9 }), [1, 1, 1]);
}

#[test]
fn witnesses_and_hit_semantics_follow_the_command_name() {
    let t = OpTable::commands(
        vec![
            (spec("HSET __key__ f __data__"), KeyPattern::Uniform, 1),
            (spec("HGET __key__ f"), KeyPattern::Uniform, 1),
        ],
        Breakdown::Command,
    );
    assert_eq!(t.rows[0].witness, "hset");
    assert_eq!(t.ops[0].encoding, Encoding::Template);
    assert_eq!(t.rows[1].memtier, "Hgets");
    assert_eq!(t.hit_rows().collect::<Vec<_>>(), [1]);
}

#[test]
fn the_request_bound_covers_every_placeholder() {
    let t = OpTable::commands(
        vec![(
            spec("MSET __key__ __data__ __key__ __data__"),
            KeyPattern::Uniform,
            1,
        )],
        Breakdown::Command,
    );
    let mut out = Vec::new();
    struct Big;
    impl<'v> crate::protocol::template::Fill<'v> for Big {
        fn key(&mut self) -> u64 {
            u64::MAX
        }
        fn data(&mut self) -> &'v [u8] {
            &[b'x'; 100]
        }
        fn rand_int(&mut self) -> Option<u64> {
            None
        }
        fn cursor(&mut self) -> u64 {
            u64::MAX
        }
    }
    let len = t.ops[0].template.encode(&mut out, b"memtier-", &mut Big);
    assert!(len <= t.max_request_bytes(8, 100), "{len}");
    assert!(t.max_request_bytes(8, 100) < 2 * len);
}

#[test]
fn multi_key_get_splits_a_cycles_gets_into_mgets_with_memtiers_remainder() {
    let pair = PairOptions {
        multi_get: Some(4),
        ..PairOptions::default()
    };
    let ratio = Ratio { set: 1, get: 10 };
    let t = OpTable::pair_with(ratio, KeyPattern::Uniform, KeyPattern::Uniform, pair);
    let texts: Vec<_> = t.ops.iter().map(|op| op.spec.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "SET __key__ __data__",
            "MGET __key__ __key__ __key__ __key__",
            "MGET __key__ __key__"
        ]
    );
    assert_eq!(t.weights(ratio), [1, 2, 1]);
    let names: Vec<_> = t
        .rows
        .iter()
        .map(|r| (r.memtier.as_str(), r.witness.as_str()))
        .collect();
    assert_eq!(names, [("Sets", "set"), ("Gets", "mget")]);
}

#[test]
fn the_pairs_options_keep_memtiers_rows_and_count_the_command_sent() {
    use crate::workload::pair::{Span, WaitPlan, WaitRule};
    let span = Span { min: 0, max: 1 };
    let wait = WaitPlan {
        sets: 10,
        waits: 1,
        replicas: span,
        timeout_ms: span,
        rule: WaitRule::Exact,
    };
    let pair = PairOptions {
        wait: Some(wait),
        data_offset: 8,
        ..PairOptions::default()
    };
    let ratio = Ratio { set: 1, get: 1 };
    let t = OpTable::pair_with(ratio, KeyPattern::Uniform, KeyPattern::Uniform, pair);
    let rows: Vec<_> = t
        .rows
        .iter()
        .map(|r| (r.json_key.as_str(), r.witness.as_str()))
        .collect();
    assert_eq!(
        rows,
        [
            ("Sets", "setrange"),
            ("Gets", "getrange"),
            ("Waits", "wait")
        ]
    );
    assert_eq!(t.ops[2].encoding, Encoding::Wait);
    // The WAIT stays out of the cycle.
    assert_eq!(t.weights(ratio), [1, 1]);
}
