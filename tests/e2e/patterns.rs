//! Keys touched fit the key pattern (S, P, R, G, Z), `--seed` makes key choice
//! reproducible, and the GET hit rate kvbench reports is the server's own.
//!
//! Witnesses: `DBSIZE`, `KEYS`, `INFO` and, for how often each key was touched,
//! the LFU counter (`OBJECT FREQ`) of a server started with `allkeys-lfu`,
//! `lfu-log-factor 0` (every access adds exactly one) and `lfu-decay-time 0`
//! (counters never decay). A key's counter starts at 5 when a SET creates it.

use crate::common::{Redis, Report, info_u64, pipeline};
use kvbench::protocol::value::Value as Reply;

/// The LFU counter of a key right after the SET that created it.
const LFU_INIT: u64 = 5;

/// The payload of a reply that is no array, as text (an integer's in decimal).
fn text(reply: &Reply) -> String {
    match reply {
        Reply::Simple(_) | Reply::Bulk(_) => reply.text().unwrap(),
        Reply::Integer(i) => i.to_string(),
        Reply::Error(e) => panic!("server error: {e}"),
        other => panic!("unexpected reply {other:?}"),
    }
}

/// Sends `commands` in one write on one connection and returns each reply as
/// the texts of its elements (an array) or of itself.
fn texts(redis: &Redis, commands: &[Vec<String>]) -> Vec<Vec<String>> {
    pipeline(redis.port, commands)
        .iter()
        .map(|reply| match reply {
            Reply::Array(elements) => elements.iter().map(text).collect(),
            other => vec![text(other)],
        })
        .collect()
}

/// The numbers of the keys that start with `prefix`, sorted. Panics on a key
/// with the prefix whose rest is not a decimal number.
fn key_numbers(redis: &Redis, prefix: &str) -> Vec<u64> {
    let keys = vec!["KEYS".to_string(), format!("{prefix}*")];
    let mut numbers: Vec<u64> = texts(redis, &[keys])
        .concat()
        .iter()
        .map(|name| {
            name.strip_prefix(prefix)
                .unwrap()
                .parse()
                .unwrap_or_else(|_| panic!("key {name:?} is not {prefix}<number>"))
        })
        .collect();
    numbers.sort_unstable();
    numbers
}

/// LFU counters (`OBJECT FREQ`) of `<prefix><n>` for each n, in one round trip.
fn lfu_counters(redis: &Redis, prefix: &str, numbers: &[u64]) -> Vec<u64> {
    let commands: Vec<Vec<String>> = numbers
        .iter()
        .map(|n| vec!["OBJECT".into(), "FREQ".into(), format!("{prefix}{n}")])
        .collect();
    let replies = texts(redis, &commands);
    let counter = |reply: &[String]| match reply {
        [c] => c.parse().unwrap(),
        other => panic!("OBJECT FREQ replied {other:?}"),
    };
    replies.iter().map(|reply| counter(reply)).collect()
}

/// How many times SET wrote each key: its counter minus the one the creating
/// SET left, plus that SET.
fn writes(redis: &Redis, prefix: &str, numbers: &[u64]) -> Vec<u64> {
    lfu_counters(redis, prefix, numbers)
        .into_iter()
        .map(|c| {
            assert!(
                (LFU_INIT..255).contains(&c),
                "counter {c} out of the usable range"
            );
            c - LFU_INIT + 1
        })
        .collect()
}

/// A server that counts every access to every key in its LFU counter.
fn counting_redis() -> Redis {
    Redis::start_with(&[
        "--maxmemory-policy",
        "allkeys-lfu",
        "--lfu-log-factor",
        "0",
        "--lfu-decay-time",
        "0",
    ])
}

/// `-n allkeys` with key pattern `pattern` writes each of keys 1-1000 exactly once.
fn assert_allkeys_writes_every_key_once(pattern: &str) {
    let redis = Redis::start();
    // 1000 keys over 6 connections: slices of 167 and 166 keys.
    let range = "--key-minimum 1 --key-maximum 1000";
    redis.kvbench_json(&format!(
        "-t 2 -c 3 -n allkeys --ratio 1:0 --key-pattern {pattern} {range}"
    ));
    assert_eq!(redis.calls("set"), 1000, "{pattern}");
    assert_eq!(redis.dbsize(), 1000, "{pattern}");
    let all: Vec<u64> = (1..=1000).collect();
    assert_eq!(key_numbers(&redis, "memtier-"), all, "{pattern}");
}

#[test]
fn sequential_allkeys_writes_every_key_exactly_once() {
    assert_allkeys_writes_every_key_once("S:S");
}

#[test]
fn parallel_allkeys_writes_every_key_exactly_once() {
    assert_allkeys_writes_every_key_once("P:P");
}

#[test]
fn parallel_connections_write_only_inside_their_own_disjoint_slices() {
    let redis = Redis::start();
    // 6 connections, slices of 100 keys, 50 SETs each: disjoint slices give
    // 6 × 50 distinct keys; any overlap between connections would give fewer.
    redis.kvbench_json(
        "-t 2 -c 3 -n 50 --ratio 1:0 --key-pattern P:P --key-minimum 1 --key-maximum 600",
    );
    assert_eq!(redis.calls("set"), 300);
    assert_eq!(redis.dbsize(), 300);
    let expected: Vec<u64> = (0..6)
        .flat_map(|slot| (1..=50).map(move |i| slot * 100 + i))
        .collect();
    assert_eq!(key_numbers(&redis, "memtier-"), expected);
}

#[test]
fn parallel_connections_wrap_within_their_slice_and_sequential_ones_walk_on() {
    // Keys 1..=7 over 6 connections: slot 0 owns keys 1-2, slots 1-5 one key each.
    // With 3 SETs per connection, P wraps inside each slice; S walks on through
    // the whole range from the start of its slice, wrapping at 7.
    let keys: Vec<u64> = (1..=7).collect();
    for (pattern, expected) in [
        // slot 0: 1 2 1; slot k: its one key three times.
        ("P:P", [2, 1, 3, 3, 3, 3, 3]),
        // slot 0: 1 2 3; 1: 3 4 5; 2: 4 5 6; 3: 5 6 7; 4: 6 7 1; 5: 7 1 2.
        ("S:S", [3, 2, 2, 2, 3, 3, 3]),
    ] {
        let redis = counting_redis();
        let range = "--key-minimum 1 --key-maximum 7";
        redis.kvbench_json(&format!(
            "-t 1 -c 6 -n 3 --ratio 1:0 --key-pattern {pattern} {range}"
        ));
        assert_eq!(writes(&redis, "memtier-", &keys), expected, "{pattern}");
    }
}

#[test]
fn uniform_keys_stay_inside_the_range_and_reach_both_ends() {
    let redis = Redis::start();
    redis.kvbench_json(
        "-t 1 -c 2 -n 500 --ratio 1:0 --key-pattern R:R --key-prefix r- --key-minimum 500 --key-maximum 1500",
    );
    assert_eq!(redis.calls("set"), 1000);
    let keys = key_numbers(&redis, "r-");
    assert_eq!(
        keys.len() as u64,
        redis.dbsize(),
        "a key without the prefix"
    );
    assert!(keys.iter().all(|k| (500..=1500).contains(k)), "{keys:?}");
    // 1000 uniform draws over 1001 keys: about 632 distinct, and the first and
    // last 20 keys are each missed with probability about e^-20.
    assert!(
        (450..1000).contains(&keys.len()),
        "{} distinct keys",
        keys.len()
    );
    assert!(keys[0] <= 520 && *keys.last().unwrap() >= 1480, "{keys:?}");
}

#[test]
fn gaussian_keys_concentrate_around_the_median() {
    let redis = counting_redis();
    redis.kvbench_json(
        "-t 1 -c 2 -n 1000 --ratio 1:0 --key-pattern G:G --key-prefix g- --key-minimum 1 --key-maximum 10000 --key-median 5000 --key-stddev 500 --seed 7",
    );
    let keys = key_numbers(&redis, "g-");
    assert!(keys.iter().all(|k| (1..=10000).contains(k)), "{keys:?}");
    let counts = writes(&redis, "g-", &keys);
    let total: u64 = counts.iter().sum();
    assert_eq!(total, 2000, "LFU writes disagree with the SETs sent");
    assert_eq!(redis.calls("set"), 2000);
    let within = |lo: u64, hi: u64| -> u64 {
        keys.iter()
            .zip(&counts)
            .filter(|(k, _)| (lo..=hi).contains(*k))
            .map(|(_, c)| c)
            .sum()
    };
    // ±2σ holds 95.4 % of a normal's mass (a uniform pattern would put 20 % there),
    // ±3σ 99.7 %.
    let two_sigma = within(4000, 6000) as f64 / total as f64;
    let three_sigma = within(3500, 6500) as f64 / total as f64;
    assert!(two_sigma >= 0.90, "{two_sigma} of writes within ±2σ");
    assert!(three_sigma >= 0.98, "{three_sigma} of writes within ±3σ");
    let mean = keys.iter().zip(&counts).map(|(k, c)| k * c).sum::<u64>() as f64 / total as f64;
    assert!((mean - 5000.0).abs() < 100.0, "mean key {mean}");
    // The spread is bounded on both sides: 2000 draws estimate σ to about 1.6 %,
    // so a stddev halved (250) or doubled (1000) fails, and so does a ±2σ share
    // that is too high (a narrower curve puts 99.99 % there).
    let var = keys
        .iter()
        .zip(&counts)
        .map(|(k, c)| (*k as f64 - mean).powi(2) * *c as f64)
        .sum::<f64>()
        / (total as f64 - 1.0);
    let sd = var.sqrt();
    assert!(
        (450.0..550.0).contains(&sd),
        "stddev of the keys written {sd}"
    );
    assert!(two_sigma <= 0.985, "{two_sigma} of writes within ±2σ");
}

#[test]
fn zipfian_reads_hit_the_first_key_most_often() {
    let redis = counting_redis();
    redis.kvbench_json(
        "-t 1 -c 2 -n allkeys --ratio 1:0 --key-pattern S:S --key-minimum 1 --key-maximum 100",
    );
    let keys: Vec<u64> = (1..=100).collect();
    assert_eq!(writes(&redis, "memtier-", &keys), vec![1; 100]);
    let hits_before = info_u64(redis.port, "stats", "keyspace_hits");

    redis.kvbench_json(
        "-t 1 -c 2 -n 300 --ratio 0:1 --key-pattern Z:Z --key-minimum 1 --key-maximum 100 --seed 11",
    );
    assert_eq!(
        info_u64(redis.port, "stats", "keyspace_hits") - hits_before,
        600
    );
    // Each GET adds one to its key's counter.
    let reads: Vec<u64> = lfu_counters(&redis, "memtier-", &keys)
        .into_iter()
        .map(|c| c - LFU_INIT)
        .collect();
    assert_eq!(reads.iter().sum::<u64>(), 600);
    let (top, top_reads) = reads.iter().enumerate().max_by_key(|(_, r)| **r).unwrap();
    assert_eq!(top, 0, "key {} read most ({top_reads}): {reads:?}", top + 1);
    assert!(
        reads[1..].iter().all(|r| r < top_reads),
        "the first key is not strictly the most read: {reads:?}"
    );
    // Zipf(1) over keys 1..=100 gives key 1 a share of 1/H(100) = 19.3 %, 116 of
    // 600 reads (σ ≈ 10), and keys 1-10 56.5 %, 339 reads (σ ≈ 12). An exponent
    // scaled by 0.6 gives 43 and 193, a doubled one 367 and 569: both fail.
    assert!(
        (80..=155).contains(&reads[0]),
        "key 1 read {} times of 600: {reads:?}",
        reads[0]
    );
    let first_ten: u64 = reads[..10].iter().sum();
    assert!(
        (290..=390).contains(&first_ten),
        "{first_ten} of 600 reads on keys 1-10: {reads:?}"
    );
}

/// memtier's Z weighs the key number itself: over keys 1000-1999 at exponent 1,
/// memtier's hottest key got 42 of 20 000 GETs. Ranking from --key-minimum
/// instead would give key 1000 about 2 700 of them.
#[test]
fn zipfian_over_a_range_far_from_one_is_mild_as_in_memtier() {
    let redis = counting_redis();
    redis.kvbench_json(
        "-t 1 -c 2 -n allkeys --ratio 1:0 --key-pattern P:P --key-minimum 1000 --key-maximum 1999",
    );
    let keys: Vec<u64> = (1000..=1999).collect();
    assert_eq!(writes(&redis, "memtier-", &keys), vec![1; 1000]);
    redis.kvbench_json(
        "-t 1 -c 2 -n 10000 --ratio 0:1 --key-pattern Z:Z --key-minimum 1000 --key-maximum 1999 --seed 5",
    );
    let reads: Vec<u64> = lfu_counters(&redis, "memtier-", &keys)
        .into_iter()
        .map(|c| c - LFU_INIT)
        .collect();
    assert_eq!(reads.iter().sum::<u64>(), 20_000);
    // P(1000) = 1000^-1 / Σ k^-1 = 1.44e-3: 29 expected (σ ≈ 5.4).
    assert!(
        (10..=55).contains(&reads[0]),
        "key 1000 read {} times",
        reads[0]
    );
    // The lower half holds ln(1499.5/999.5)/ln(1999.5/999.5) = 58.5 % (σ ≈ 0.35 %).
    let lower: u64 = reads[..500].iter().sum();
    let share = lower as f64 / 20_000.0;
    assert!((0.565..0.605).contains(&share), "lower half share {share}");
}

#[test]
fn the_same_seed_writes_the_same_keys_and_another_seed_other_keys() {
    let keys_for = |seed: u64| {
        let redis = Redis::start();
        let Report {
            doc, stdout: text, ..
        } = redis.kvbench_json(&format!(
                "-t 2 -c 2 -n 100 --ratio 1:0 --key-pattern R:R --key-minimum 1 --key-maximum 1000000 --seed {seed}"
            ));
        assert_eq!(doc["kvbench"]["seed"], seed);
        assert!(text.contains(&format!("Seed: {seed}")), "{text}");
        key_numbers(&redis, "memtier-")
    };
    let first = keys_for(42);
    assert!(first.len() > 350, "only {} distinct keys", first.len());
    assert_eq!(first, keys_for(42), "seed 42 gave two different key sets");
    assert_ne!(first, keys_for(43), "seeds 42 and 43 gave the same key set");
}

/// The `GET hit rate: … %` figure of a text report.
fn text_hit_rate(text: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.starts_with("GET hit rate: "))
        .unwrap_or_else(|| panic!("no hit rate line in\n{text}"));
    line["GET hit rate: ".len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn hit_rate_is_100_percent_inside_the_written_range_and_about_half_over_twice_it() {
    let redis = Redis::start();
    redis.kvbench_json(
        "-t 1 -c 2 -n allkeys --ratio 1:0 --key-pattern S:S --key-minimum 1 --key-maximum 1000",
    );
    assert_eq!(redis.dbsize(), 1000);

    let hits = || info_u64(redis.port, "stats", "keyspace_hits");
    let misses = || info_u64(redis.port, "stats", "keyspace_misses");

    let (h0, m0) = (hits(), misses());
    let Report {
        doc, stdout: text, ..
    } = redis.kvbench_json(
        "-t 1 -c 2 -n 200 --ratio 0:1 --key-pattern R:R --key-minimum 1 --key-maximum 1000",
    );
    assert_eq!(doc["kvbench"]["hit_rate_percent"].as_f64(), Some(100.0));
    assert!(text.contains("GET hit rate: 100.00 %"), "{text}");
    assert_eq!(doc["kvbench"]["totals"]["GET"]["hits"], 400);
    assert_eq!(doc["kvbench"]["totals"]["GET"]["misses"], 0);
    assert_eq!((hits() - h0, misses() - m0), (400, 0));

    let (h0, m0) = (hits(), misses());
    let Report {
        doc, stdout: text, ..
    } = redis.kvbench_json(
        "-t 1 -c 2 -n 500 --ratio 0:1 --key-pattern R:R --key-minimum 1 --key-maximum 2000",
    );
    let (server_hits, server_misses) = (hits() - h0, misses() - m0);
    let get = &doc["kvbench"]["totals"]["GET"];
    assert_eq!(get["hits"], server_hits);
    assert_eq!(get["misses"], server_misses);
    assert_eq!(server_hits + server_misses, 1000);
    let rate = doc["kvbench"]["hit_rate_percent"].as_f64().unwrap();
    assert!((40.0..=60.0).contains(&rate), "hit rate {rate} %");
    let expected = 100.0 * server_hits as f64 / 1000.0;
    assert!(
        (rate - expected).abs() < 1e-9,
        "{rate} vs server {expected}"
    );
    assert!((text_hit_rate(&text) - rate).abs() < 0.006, "{text}");
}
