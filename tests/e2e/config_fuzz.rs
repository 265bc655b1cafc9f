//! Every key of a `--config` file, fed random values of the wrong type or out of
//! range: each run exits 2 before connecting, with one short line naming the key.
//!
//! The keys are the serialized fields of [`Args`], so a key added later is
//! fuzzed too. Which types a key takes is found by asking the same TOML parser
//! kvbench uses; a value is "wrong" when that parse refuses it. Out-of-range
//! values are negative and non-finite numbers for numeric keys and junk for
//! keys whose strings have a syntax. The choice is random with a fixed seed,
//! printed on failure, so a failing case can be replayed.

use std::collections::BTreeMap;

use crate::common::{TempDir, free_port, kvbench};
use kvbench::cli::Args;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

/// The seed of the random choices.
const FUZZ_SEED: u64 = 0x006b_7662_656e_6368;

/// Wrong-type and out-of-range values tried per key.
const CASES_PER_KEY: usize = 3;

/// Values of every TOML type; a key gets those its parse refuses.
const TYPED: &[&str] = &[
    "7",
    "-7",
    "7.5",
    "\"7\"",
    "true",
    "[true, false]",
    "[[1], [2]]",
    "{ x = 1 }",
    "1979-05-27T07:32:00Z",
    "\"\"",
];

/// The longest error line accepted, the file's name counted as `FILE`: room
/// for a message that lists every choice (`--no-warning` names its 17 kinds
/// in about 330 characters), never for a parser's multi-line dump.
const MESSAGE_MAX_CHARS: usize = 400;

/// Numbers no numeric key accepts.
const BAD_NUMBERS: &[&str] = &["-1", "-2.5", "nan", "inf", "-inf", "-1e300"];

/// The numbers JSON cannot hold.
const NON_FINITE: &[&str] = &["nan", "inf", "-inf"];

/// Strings that break the syntax of keys such as `ratio`, `key-pattern` or `cpus`.
const BAD_STRINGS: &[&str] = &["\"§\"", "\"1:\"", "\"-3\"", "\"x,y\""];

/// String keys whose every value is valid text (a password, a prefix, a host
/// name or a path, found only when used; a command, whose name only the server
/// judges), so junk is not out of their range.
const FREE_TEXT: &[&str] = &[
    "command",
    "server",
    "authenticate",
    "key-prefix",
    "unix-socket",
    "auth-file",
    "json-out-file",
    "html-out-file",
    "hdr-file-prefix",
    "out-file",
    "client-stats",
    "failed-keys-file",
];

/// Keys validated only together with the option that uses them.
fn context(key: &str) -> &'static str {
    match key {
        "key-median" | "key-stddev" => "key-pattern = \"G:G\"\n",
        "key-zipf-exp" => "key-pattern = \"Z:Z\"\n",
        _ => "",
    }
}

fn parses(key: &str, value: &str) -> bool {
    toml::from_str::<Args>(&format!("{key} = {value}\n")).is_ok()
}

/// The values to try for `key`: wrong types, and out-of-range values where the
/// key has a range.
fn bad_values(key: &str, rng: &mut SmallRng) -> Vec<String> {
    let wrong: Vec<&str> = TYPED.iter().copied().filter(|v| !parses(key, v)).collect();
    let mut range: Vec<&str> = Vec::new();
    if parses(key, "7") || parses(key, "7.5") {
        range.extend(BAD_NUMBERS.iter().filter(|v| parses(key, v)));
    }
    if parses(key, "\"7\"") && !FREE_TEXT.contains(&key) {
        range.extend(BAD_STRINGS);
    }
    let mut out: Vec<String> = Vec::new();
    // A key that takes decimals always gets one non-finite value: JSON, through
    // which the file is merged with the command line, has none.
    if parses(key, "7.5") {
        out.push(NON_FINITE.choose(rng).unwrap().to_string());
    }
    for pool in [&wrong, &range] {
        for _ in 0..CASES_PER_KEY.min(pool.len()) {
            out.push(pool.choose(rng).unwrap().to_string());
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn every_config_key_refuses_wrong_types_and_out_of_range_values_naming_the_key() {
    let keys: Vec<String> = match serde_json::to_value(Args::default()).unwrap() {
        serde_json::Value::Object(fields) => fields.keys().cloned().collect(),
        other => panic!("Args serialized as {other}"),
    };
    assert!(keys.len() > 40, "only {} keys: {keys:?}", keys.len());
    let mut rng = SmallRng::seed_from_u64(FUZZ_SEED);
    let dir = TempDir::new("fuzz");
    let file = dir.path("f.toml");
    // Nobody listens here: a value that slipped through would try to connect,
    // and its error would name --server/--port rather than the key.
    let port = free_port().to_string();
    let mut failures: BTreeMap<String, String> = BTreeMap::new();
    let mut cases = 0;
    for key in &keys {
        let values = bad_values(key, &mut rng);
        assert!(!values.is_empty(), "no bad value found for {key}");
        for value in values {
            // Shuffle where the key sits among harmless lines.
            let line = format!("{key} = {value}\n");
            let text = if rng.random_bool(0.5) {
                format!("{}{line}", context(key))
            } else {
                format!("{line}{}", context(key))
            };
            std::fs::write(&file, &text).unwrap();
            let out = kvbench(&["--config", file.to_str().unwrap(), "-p", &port]);
            cases += 1;
            let stderr = String::from_utf8_lossy(&out.stderr);
            let named = stderr.contains(key.as_str()) && !stderr.contains("cannot connect");
            // One line, short once the file's (temporary, long) name is taken out.
            let line = stderr.trim_end().replace(file.to_str().unwrap(), "FILE");
            let one_short_line = !line.contains('\n') && line.len() < MESSAGE_MAX_CHARS;
            if out.status.code() != Some(2) || !named || !one_short_line {
                failures.insert(
                    format!("{key} = {value}"),
                    format!("{}: {}", out.status, stderr.trim()),
                );
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {cases} cases (seed {FUZZ_SEED:#x}) did not exit 2 with one short line naming the key:\n{failures:#?}",
        failures.len()
    );
}
