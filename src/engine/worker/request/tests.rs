//! Tests of [`super`]: one connection's request stream.

use super::*;

fn config_with(args: &[&str]) -> Config {
    use clap::Parser;
    // Keys read `k<number>` in these tests.
    let mut full = vec!["kvbench", "--key-prefix", "k"];
    full.extend_from_slice(args);
    Config::from_args(crate::cli::Cli::try_parse_from(full).unwrap().run).unwrap()
}

#[test]
fn allkeys_budgets_sum_to_the_range_even_with_more_connections_than_keys() {
    for (max, slots) in [(9u64, 4u64), (9, 25), (999, 6)] {
        let c = config_with(&[
            "--key-minimum",
            "0",
            "--key-maximum",
            &max.to_string(),
            "-n",
            "allkeys",
        ]);
        let total: u64 = (0..slots)
            .map(|slot| {
                let mut s =
                    RequestSource::new(&c, &pair_encoder(&c), Stop::AllKeys, slot, slots, 1)
                        .unwrap();
                let mut out = Vec::new();
                let values = ValuePool::new(&c.values, false, &mut SmallRng::seed_from_u64(1));
                std::iter::from_fn(|| s.encode_next(&mut out, &values, 0)).count() as u64
            })
            .sum();
        assert_eq!(total, max + 1, "range 0..={max} over {slots} connections");
    }
}

#[test]
fn the_pairs_encoders_and_its_templates_write_the_same_bytes() {
    let c = config_with(&["--ratio", "1:1", "-d", "7"]);
    let values = ValuePool::new(&c.values, false, &mut SmallRng::seed_from_u64(1));
    let mut s = RequestSource::new(&c, &pair_encoder(&c), Stop::Requests(4), 0, 1, 9).unwrap();
    let mut fast = Vec::new();
    while s.encode_next(&mut fast, &values, 0).is_some() {}
    // The same stream through the general templates.
    let mut t = RequestSource::new(&c, &pair_encoder(&c), Stop::Requests(4), 0, 1, 9).unwrap();
    let mut table = (*t.ops).clone();
    for op in &mut table.ops {
        op.encoding = Encoding::Template;
    }
    t.ops = Arc::new(table);
    let mut general = Vec::new();
    while t.encode_next(&mut general, &values, 0).is_some() {}
    assert_eq!(fast, general);
    assert!(fast.starts_with(b"*3\r\n$3\r\nSET\r\n$"));
}

#[test]
fn the_pair_is_encoded_for_the_protocol_of_the_run() {
    let values_for = |c: &Config| ValuePool::new(&c.values, false, &mut SmallRng::seed_from_u64(1));
    let c = config_with(&["-P", "memcache_text", "--ratio", "1:1", "-d", "3"]);
    let values = values_for(&c);
    let mut s = RequestSource::new(&c, &pair_encoder(&c), Stop::Requests(2), 0, 1, 9).unwrap();
    let mut out = Vec::new();
    while s.encode_next(&mut out, &values, 0).is_some() {}
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.starts_with("set k") && text.contains(" 0 0 3\r\n"),
        "{text}"
    );
    assert!(text.contains("\r\nget k"), "{text}");
    let c = config_with(&["-P", "memcache_binary", "--ratio", "0:1"]);
    let values = values_for(&c);
    let mut s = RequestSource::new(&c, &pair_encoder(&c), Stop::Requests(1), 0, 1, 9).unwrap();
    out.clear();
    s.encode_next(&mut out, &values, 41).unwrap();
    assert_eq!(&out[..2], &[0x80, 0x00], "a binary GET");
    assert_eq!(&out[12..16], &41u32.to_be_bytes(), "carries its opaque");
}

#[test]
fn memtier_compat_draws_memtiers_keys_whatever_the_kvbench_seed() {
    let c = config_with(&[
        "--memtier-compat",
        "--key-maximum",
        "1000",
        "--ratio",
        "1:1",
    ]);
    let values = ValuePool::new(&c.values, false, &mut SmallRng::seed_from_u64(1));
    let keys = |seed: u64| {
        let mut s =
            RequestSource::new(&c, &pair_encoder(&c), Stop::Requests(2), 0, 2, seed).unwrap();
        let mut out = Vec::new();
        std::iter::from_fn(|| s.encode_next(&mut out, &values, 0))
            .map(|q| q.key)
            .collect::<Vec<_>>()
    };
    // memtier's first SET and GET of R:R over 0..=1000 (the recorded capture's).
    assert_eq!(keys(1), [870, 543]);
    assert_eq!(keys(99), [870, 543]);
    // kvbench's own draws differ.
    let own = config_with(&["--key-maximum", "1000", "--ratio", "1:1", "--seed", "0"]);
    let mut s = RequestSource::new(&own, &pair_encoder(&own), Stop::Requests(2), 0, 2, 1).unwrap();
    let mut out = Vec::new();
    let first: Vec<u64> = std::iter::from_fn(|| s.encode_next(&mut out, &values, 0))
        .map(|q| q.key)
        .collect();
    assert_ne!(first, [870, 543]);
}

/// Every request `args` sends in `n` requests of one connection, as text.
fn stream(args: &[&str], n: u64) -> String {
    let c = config_with(args);
    let values = ValuePool::new(&c.values, false, &mut SmallRng::seed_from_u64(1));
    let mut s = RequestSource::new(&c, &pair_encoder(&c), Stop::Requests(n), 0, 1, 9).unwrap();
    let mut out = Vec::new();
    while s.encode_next(&mut out, &values, 0).is_some() {}
    String::from_utf8(out).unwrap()
}

#[test]
fn an_expiry_range_sends_set_ex_or_memtiers_setex() {
    let set = stream(&["--ratio", "1:0", "-d", "3", "--expiry-range", "5-5"], 1);
    assert!(set.starts_with("*5\r\n$3\r\nSET\r\n$"), "{set}");
    assert!(
        set.ends_with("$3\r\nxxx\r\n$2\r\nEX\r\n$1\r\n5\r\n"),
        "{set}"
    );
    let compat = &[
        "--ratio",
        "1:0",
        "-d",
        "3",
        "--expiry-range",
        "5-5",
        "--memtier-compat",
    ];
    let setex = stream(compat, 1);
    assert!(setex.starts_with("*4\r\n$5\r\nSETEX\r\n$"), "{setex}");
    assert!(setex.ends_with("$1\r\n5\r\n$3\r\nxxx\r\n"), "{setex}");
    let mc = stream(
        &[
            "-P",
            "memcache_text",
            "--ratio",
            "1:0",
            "-d",
            "3",
            "--expiry-range",
            "5-5",
        ],
        1,
    );
    assert!(
        mc.starts_with("set k") && mc.contains(" 0 5 3\r\nxxx\r\n"),
        "{mc}"
    );
    // A drawn 0 sets no expiry, as memtier.
    let plain = stream(&["--ratio", "1:0", "-d", "3", "--expiry-range", "0-1"], 200);
    assert!(plain.contains("*3\r\n$3\r\nSET\r\n") && plain.contains("EX\r\n"));
}

#[test]
fn wait_ratio_sends_its_waits_between_the_sets() {
    let args = &[
        "--ratio",
        "1:0",
        "--wait-ratio",
        "2:1",
        "--num-slaves",
        "1-1",
        "--wait-timeout",
        "7-7",
    ];
    let text = stream(args, 9);
    let wait = "*3\r\n$4\r\nWAIT\r\n$1\r\n1\r\n$1\r\n7\r\n";
    assert_eq!(text.matches(wait).count(), 3, "{text}");
    assert_eq!(text.matches("SET\r\n").count(), 6, "{text}");
    assert!(
        !text.starts_with(wait),
        "kvbench's rule: the SETs come first"
    );
    let mut compat = args.to_vec();
    compat.push("--memtier-compat");
    assert!(
        stream(&compat, 9).starts_with(wait),
        "memtier starts with a WAIT"
    );
}

#[test]
fn size_pattern_s_spreads_the_sizes_over_the_key_range() {
    let args = &[
        "--ratio",
        "1:0",
        "--key-pattern",
        "S:S",
        "--key-minimum",
        "0",
        "--key-maximum",
        "10",
        "--data-size-range",
        "10-20",
        "--data-size-pattern",
        "S",
        "--memtier-compat",
    ];
    let text = stream(args, 11);
    for (key, size) in [(0, 10), (5, 15), (10, 20)] {
        let set = format!("$2\r\nk{key}\r\n${size}\r\n{}\r\n", "x".repeat(size));
        let set = if key == 10 {
            set.replacen("$2", "$3", 1)
        } else {
            set
        };
        assert!(text.contains(&set), "key {key}: {text}");
    }
}

#[test]
fn a_scan_stream_sends_the_cursor_of_the_reply_before_it() {
    let c = config_with(&[
        "--scan-incremental-iteration",
        "--command",
        "SCAN 0 COUNT 5",
    ]);
    let values = ValuePool::new(&c.values, false, &mut SmallRng::seed_from_u64(1));
    let mut s = RequestSource::new(&c, &pair_encoder(&c), Stop::Requests(4), 0, 1, 9).unwrap();
    let sent = |s: &mut RequestSource| {
        let mut out = Vec::new();
        let queued = s.encode_next(&mut out, &values, 0).unwrap();
        (queued.row, out)
    };
    let scan = |cursor: &[u8]| {
        let mut out = Vec::new();
        crate::protocol::resp::encode_command(&mut out, &[b"SCAN", cursor, b"COUNT", b"5"]);
        out
    };
    assert_eq!(sent(&mut s), (0, scan(b"0")));
    s.follow_scan(ScanReply::Cursor(18446744073709551615));
    assert_eq!(sent(&mut s), (1, scan(b"18446744073709551615")));
    s.follow_scan(ScanReply::Cursor(0));
    assert_eq!(sent(&mut s), (0, scan(b"0")));
    // Requests the open loop never sent are counted in the row they would
    // have had.
    s.follow_scan(ScanReply::Cursor(3));
    assert_eq!(s.skip_next(), Some(1));
    assert!(s.exhausted());
}

#[test]
fn the_short_mget_of_a_cycle_continues_the_sequential_walk() {
    // 10 GETs a cycle in MGETs of 4: 4 + 4 + 2 keys, then the next cycle.
    // memtier draws every key of every MGET from its one GET iterator, so
    // the short MGET goes on where the full ones stopped.
    let mget = |keys: std::ops::RangeInclusive<u64>| {
        let mut text = format!("*{}\r\n$4\r\nMGET\r\n", keys.clone().count() + 1);
        for k in keys {
            let key = format!("k{k}");
            text += &format!("${}\r\n{key}\r\n", key.len());
        }
        text
    };
    let expected: String = [1..=4, 5..=8, 9..=10, 11..=14, 15..=18, 19..=20]
        .into_iter()
        .map(mget)
        .collect();
    for pattern in ["S:S", "P:P"] {
        for compat in [false, true] {
            let mut args = vec![
                "-t",
                "1",
                "-c",
                "1",
                "--ratio",
                "0:10",
                "--multi-key-get",
                "4",
                "--key-pattern",
                pattern,
                "--key-minimum",
                "1",
                "--key-maximum",
                "100",
            ];
            if compat {
                args.push("--memtier-compat");
            }
            assert_eq!(stream(&args, 6), expected, "{pattern}, compat {compat}");
        }
    }
}

#[test]
fn memtier_compat_import_sets_draw_their_key_before_reading_the_next_item() {
    use clap::Parser;
    let parse = |args: &[&str]| {
        let mut full = vec!["kvbench", "--memtier-compat", "--ratio", "1:1"];
        full.extend_from_slice(args);
        Config::from_args(crate::cli::Cli::try_parse_from(full).unwrap().run).unwrap()
    };
    // Item numbers (the keys of an import) of 20 requests, SET and GET in turn.
    let keys = |c: &Config| {
        let values = ValuePool::new(&c.values, false, &mut SmallRng::seed_from_u64(1));
        let mut s = RequestSource::new(c, &pair_encoder(c), Stop::Requests(20), 0, 1, 9).unwrap();
        let mut out = Vec::new();
        std::iter::from_fn(|| s.encode_next(&mut out, &values, 0))
            .map(|q| q.key)
            .collect::<Vec<_>>()
    };
    let path = std::env::temp_dir().join(format!("kvbench-import-{}.csv", std::process::id()));
    let mut file =
        "dumpflags, time, exptime, nbytes, nsuffix, it_flags, clsid, nkey, key, data\n".to_string();
    for i in 1..=50 {
        file += &format!("0, 0, 0, 4, 0, 0, 1, 4, \"i:{i:02}\", \"vv\"\n");
    }
    std::fs::write(&path, file).unwrap();
    let import = keys(&parse(&["--data-import", path.to_str().unwrap()]));
    std::fs::remove_file(&path).unwrap();
    // memtier draws a key for every SET from the SET pattern, so its GETs
    // pick what a run of generated keys over 1..=50 picks ...
    let plain = keys(&parse(&["--key-minimum", "1", "--key-maximum", "50"]));
    let gets = |keys: &[u64]| keys.iter().skip(1).step_by(2).copied().collect::<Vec<_>>();
    assert_eq!(gets(&import), gets(&plain));
    // ... while its SETs send the file's items in order.
    let sets: Vec<u64> = import.iter().step_by(2).copied().collect();
    assert_eq!(sets, (1..=10).collect::<Vec<u64>>());
}
