//! memtier's `--data-import` against a real redis-server: an import file
//! written here loaded by a run (DBSIZE, every value and TTL read back),
//! `--data-verify` finding every key, `--verify-only` finding exactly the one
//! key changed behind its back (exit code 1), `--generate-keys` and
//! `--no-expiry`, and the combinations refused before any connection.

use std::path::Path;

use crate::common::{Redis, TempDir, kvbench_at, refused_before_connecting, u};

/// memtier's import header.
const HEADER: &str =
    "dumpflags, time, exptime, nbytes, nsuffix, it_flags, clsid, nkey, key, data\n";

/// The value of item `i`: a quote (written twice in the file), a comma and
/// a newline inside, to hold the reader to memtier's quoting.
fn value(i: usize) -> String {
    format!("v{i},\"q\"\n{}", "x".repeat(i % 7))
}

/// Writes `items` items, keys `imp:{i}`, every third with `expiry` seconds.
fn write_import(path: &Path, items: usize, expiry: u32) {
    let mut text = HEADER.to_string();
    for i in 1..=items {
        let key = format!("imp:{i}");
        let value = value(i);
        let exptime = if i % 3 == 0 { expiry } else { 0 };
        text.push_str(&format!(
            "0, 0, {exptime}, {}, 0, 0, 1, {}, \"{key}\", \"{}\"\n",
            value.len() + 2,
            key.len(),
            value.replace('"', "\"\"")
        ));
    }
    std::fs::write(path, text).unwrap();
}

fn text(redis: &Redis, args: &[&str]) -> String {
    String::from_utf8(redis.command(args)).unwrap()
}

/// Runs kvbench with `args` and `--data-import file`; its exit code, stdout, stderr.
fn run(redis: &Redis, file: &Path, args: &str) -> (Option<i32>, String, String) {
    let out = kvbench_at(redis.port)
        .args(args.split_whitespace())
        .args(["--data-import", file.to_str().unwrap()])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn an_import_loads_every_item_and_verify_finds_exactly_the_key_changed() {
    let redis = Redis::start();
    let dir = TempDir::new("import");
    let file = dir.path("items.csv");
    write_import(&file, 120, 1000);
    let dir_json = dir.path("r.json");
    let (code, stdout, stderr) = run(
        &redis,
        &file,
        &format!(
            "-t 1 -c 2 -n allkeys --ratio 1:0 --data-verify --json-out-file {}",
            dir_json.display()
        ),
    );
    assert_eq!(code, Some(0), "{stderr}");
    // Every item once: the two connections' slices of 1..=120 tile it.
    assert_eq!(redis.dbsize(), 120);
    // An item with an expiry is set with SET … EX n, counted with every SET.
    assert_eq!(redis.calls("set"), 120);
    assert_eq!(redis.calls("setex"), 0);
    for i in [1usize, 2, 3, 59, 120] {
        assert_eq!(
            text(&redis, &["GET", &format!("imp:{i}")]),
            value(i),
            "item {i}"
        );
    }
    let ttl: i64 = text(&redis, &["TTL", "imp:3"]).parse().unwrap();
    assert!((900..=1000).contains(&ttl), "{ttl}");
    assert_eq!(text(&redis, &["TTL", "imp:1"]), "-1");
    assert!(
        stdout.contains(
            "Data verification completed:\n120        keys verified successfuly.\n0          keys failed.\n"
        ),
        "{stdout}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&dir_json).unwrap()).unwrap();
    assert_eq!(u(&doc["ALL STATS"]["Sets"]["Count"]), 120);
    assert_eq!(doc["configuration"]["data_import"], file.to_str().unwrap());
    assert_eq!(doc["configuration"]["data_verify"], "true");

    // One key changed on the server: exactly one failure, named, and exit 1.
    redis.command(&["SET", "imp:77", "changed"]);
    redis.reset_stats();
    let (code, stdout, stderr) = run(&redis, &file, "--verify-only");
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stdout.contains("119        keys verified successfuly.\n1          keys failed.\n"),
        "{stdout}"
    );
    assert!(
        stderr.contains("error: key [imp:77]: expected [v77,"),
        "{stderr}"
    );
    assert!(stderr.contains("got [changed]"), "{stderr}");
    // Only the GETs of the verification: no run.
    assert_eq!(redis.calls("get"), 120);
    assert_eq!(redis.calls("set"), 0);
}

#[test]
fn gets_draw_imported_keys_and_no_expiry_drops_the_files_expiries() {
    let redis = Redis::start();
    let dir = TempDir::new("import-get");
    let file = dir.path("items.csv");
    write_import(&file, 30, 500);
    let (code, _, stderr) = run(&redis, &file, "-t 1 -c 1 -n 30 --ratio 1:0 --no-expiry");
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(redis.calls("set"), 30);
    assert_eq!(redis.calls("setex"), 0);
    assert_eq!(text(&redis, &["TTL", "imp:3"]), "-1");
    // memtier's SETEX for the expiring items under --memtier-compat.
    redis.reset_stats();
    let (code, _, stderr) = run(
        &redis,
        &file,
        "-t 1 -c 1 -n 30 --ratio 1:0 --memtier-compat",
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!((redis.calls("set"), redis.calls("setex")), (20, 10));
    redis.reset_stats();
    let (code, stdout, stderr) = run(&redis, &file, "-t 1 -c 2 -n 200 --ratio 0:1");
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(redis.calls("get"), 400);
    // Every GET names an imported key, so every one hits.
    assert_eq!(
        crate::common::info_u64(redis.port, "stats", "keyspace_misses"),
        0,
        "{stdout}"
    );
    assert_eq!(
        crate::common::info_u64(redis.port, "stats", "keyspace_hits"),
        400
    );
}

#[test]
fn generate_keys_numbers_the_keys_and_takes_the_values_from_the_file() {
    let redis = Redis::start();
    let dir = TempDir::new("import-gen");
    let file = dir.path("items.csv");
    write_import(&file, 4, 0);
    let args = "-t 1 -c 1 -n allkeys --ratio 1:0 --generate-keys --key-prefix g- \
                --key-minimum 10 --key-maximum 19 --key-pattern S:S --data-verify";
    let (code, stdout, stderr) = run(&redis, &file, args);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(redis.dbsize(), 10);
    // Key k takes item (k - 10) mod 4 + 1.
    assert_eq!(text(&redis, &["GET", "g-10"]), value(1));
    assert_eq!(text(&redis, &["GET", "g-15"]), value(2));
    assert_eq!(text(&redis, &["GET", "g-19"]), value(2));
    assert!(
        stdout.contains("10         keys verified successfuly."),
        "{stdout}"
    );
}

#[test]
fn combinations_memtier_refuses_are_refused_before_connecting() {
    let redis = Redis::start();
    let dir = TempDir::new("import-refused");
    let file = dir.path("items.csv");
    write_import(&file, 3, 0);
    let path = file.to_str().unwrap();
    let bad = dir.path("bad.csv");
    std::fs::write(
        &bad,
        format!("{HEADER}0, 0, 0, 9, 0, 0, 0, 1, \"k\", \"short\"\n"),
    )
    .unwrap();
    for (args, flag) in [
        (vec!["--data-verify"], "--data-verify"),
        (vec!["--no-expiry"], "--no-expiry"),
        (
            vec!["--data-import", path, "--key-maximum", "9"],
            "--key-maximum",
        ),
        (vec!["--data-import", path, "-d", "10"], "--data-size"),
        (
            vec!["--data-import", path, "-P", "memcache_text"],
            "--data-import",
        ),
        (
            vec!["--data-import", path, "--command", "GET __key__"],
            "--command",
        ),
        (
            vec!["--data-import", "/nonexistent/items.csv"],
            "--data-import",
        ),
        (
            vec!["--data-import", bad.to_str().unwrap()],
            "--data-import",
        ),
    ] {
        let stderr = refused_before_connecting(&redis, &args);
        assert!(
            stderr.contains(&format!("error: {flag}: ")),
            "{args:?}: {stderr}"
        );
    }
    let stderr = refused_before_connecting(&redis, ["--data-import", bad.to_str().unwrap()]);
    assert!(
        stderr.contains("line 2: the data column is 5 bytes, and the record says 7"),
        "{stderr}"
    );
}
