//! Micro-benchmarks of the per-request work: decoding replies, encoding
//! commands, generating keys, recording latencies. `cargo bench --bench micro`;
//! the figures are in docs/performance.md.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::SmallRng;

use kvbench::engine::stats::latency_histogram;
use kvbench::protocol::command::{CommandSpec, suite};
use kvbench::protocol::resp;
use kvbench::protocol::resp::heads::PairHeads;
use kvbench::protocol::template::{Fill, RespTemplate};
use kvbench::workload::keys::{KeyGen, KeyPattern, KeyRange};

fn decoding(c: &mut Criterion) {
    let mut group = c.benchmark_group("decode");
    let bulk = format!("$32\r\n{}\r\n", "x".repeat(32)).into_bytes();
    let cases: [(&str, &[u8]); 5] = [
        ("simple +OK", b"+OK\r\n"),
        ("bulk 32 B", &bulk),
        ("nil", b"$-1\r\n"),
        ("error", b"-ERR wrong number of arguments\r\n"),
        ("array of 3", b"*3\r\n$3\r\nfoo\r\n:42\r\n$-1\r\n"),
    ];
    for (name, wire) in cases {
        group.bench_function(name, |b| b.iter(|| resp::decode(black_box(wire))));
    }
    group.finish();
}

fn encoding(c: &mut Criterion) {
    let mut group = c.benchmark_group("encode");
    let value = vec![b'x'; 32];
    let mut out = Vec::with_capacity(4096);
    group.bench_function("GET memtier-<key>", |b| {
        let mut key = 0u64;
        b.iter(|| {
            out.clear();
            key = key.wrapping_add(7919) % 10_000_000;
            resp::encode_get(&mut out, b"memtier-", black_box(key))
        })
    });
    group.bench_function("SET memtier-<key> 32 B", |b| {
        let mut key = 0u64;
        b.iter(|| {
            out.clear();
            key = key.wrapping_add(7919) % 10_000_000;
            resp::encode_set(&mut out, b"memtier-", black_box(key), &value)
        })
    });
    // The same requests from the heads built once per key width, as the
    // worker encodes the pair (protocol::resp::heads).
    let heads = PairHeads::new(b"memtier-", 1..=7);
    group.bench_function("GET memtier-<key>, heads", |b| {
        let mut key = 0u64;
        b.iter(|| {
            out.clear();
            key = key.wrapping_add(7919) % 10_000_000;
            heads.get(&mut out, black_box(key))
        })
    });
    group.bench_function("SET memtier-<key> 32 B, heads", |b| {
        let mut key = 0u64;
        b.iter(|| {
            out.clear();
            key = key.wrapping_add(7919) % 10_000_000;
            heads.set(&mut out, black_box(key), &value)
        })
    });
    group.finish();
}

/// Values for a template: one 32-byte value, keys and random numbers counted.
struct Counter {
    key: u64,
    value: &'static [u8],
}

impl Fill<'static> for Counter {
    fn key(&mut self) -> u64 {
        self.key = self.key.wrapping_add(7919) % 10_000_000;
        self.key
    }
    fn data(&mut self) -> &'static [u8] {
        self.value
    }
    fn rand_int(&mut self) -> Option<u64> {
        Some(self.key())
    }
    fn cursor(&mut self) -> u64 {
        self.key
    }
}

fn templates(c: &mut Criterion) {
    let mut group = c.benchmark_group("template");
    let mut out = Vec::with_capacity(4096);
    let cases = [
        ("SET __key__ __data__ (32 B)", "SET __key__ __data__"),
        ("HSET __key__ field __data__", "HSET __key__ field __data__"),
        ("SET user:{__key__} __data__", "SET user:{__key__} __data__"),
        ("LRANGE mylist 0 99 (literal)", "LRANGE mylist 0 99"),
        ("MSET 10 x __rand_int__", suite::TESTS[18].command),
    ];
    for (name, command) in cases {
        let t = RespTemplate::new(&CommandSpec::parse(command).expect("valid"), false);
        let mut fill = Counter {
            key: 0,
            value: &[b'x'; 32],
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                out.clear();
                t.encode(&mut out, b"memtier-", black_box(&mut fill))
            })
        });
    }
    group.finish();
}

/// One request of a connection's stream, as the load loop takes it: the op
/// cycle, the key draw and the template together.
fn request_stream(c: &mut Criterion) {
    use clap::Parser;
    use kvbench::config::{Config, Stop};
    use kvbench::engine::worker::request::{RequestSource, pair_encoder};
    use kvbench::workload::values::ValuePool;

    let mut group = c.benchmark_group("request");
    let cases: [(&str, &[&str]); 2] = [
        ("SET:GET 1:10", &["--ratio", "1:10"]),
        (
            "HSET:HGET 1:3",
            &[
                "--command",
                "HSET __key__ field __data__",
                "--command",
                "HGET __key__ field",
                "--command-ratio",
                "1,3",
            ],
        ),
    ];
    let mut out = Vec::with_capacity(1 << 20);
    for (name, args) in cases {
        let mut full = vec!["kvbench"];
        full.extend_from_slice(args);
        let args = kvbench::cli::Cli::try_parse_from(full)
            .expect("valid flags")
            .run;
        let config = Config::from_args(args).expect("valid config");
        let values = ValuePool::new(&config.values, false, &mut SmallRng::seed_from_u64(1));
        let mut source = RequestSource::new(
            &config,
            &pair_encoder(&config),
            Stop::Time(std::time::Duration::MAX),
            0,
            1,
            1,
        )
        .expect("valid source");
        group.bench_function(name, |b| {
            b.iter(|| {
                if out.len() > (1 << 20) - 4096 {
                    out.clear();
                }
                source.encode_next(&mut out, &values, 0)
            })
        });
    }
    group.finish();
}

fn key_generation(c: &mut Criterion) {
    let mut group = c.benchmark_group("keys");
    let range = KeyRange {
        min: 0,
        max: 10_000_000,
    };
    let patterns = [
        ("sequential", KeyPattern::Sequential),
        ("uniform", KeyPattern::Uniform),
        (
            "gaussian",
            KeyPattern::Gaussian {
                median: 5_000_000.0,
                stddev: 1_666_666.0,
            },
        ),
        ("parallel", KeyPattern::Parallel),
        ("zipfian", KeyPattern::Zipfian { exponent: 1.0 }),
    ];
    for (name, pattern) in patterns {
        let mut keys = KeyGen::new(pattern, range, 3, 50).expect("valid pattern");
        let mut rng = SmallRng::seed_from_u64(1);
        group.bench_function(name, |b| b.iter(|| keys.next(&mut rng)));
    }
    group.finish();
}

fn histogram(c: &mut Criterion) {
    let mut h = latency_histogram().expect("valid bounds");
    let mut v = 1u64;
    c.bench_function("histogram record", |b| {
        b.iter(|| {
            v = (v * 1_103_515_245 + 12_345) % 100_000 + 1;
            h.record(black_box(v))
        })
    });
}

criterion_group!(
    benches,
    decoding,
    encoding,
    templates,
    request_stream,
    key_generation,
    histogram
);
criterion_main!(benches);
