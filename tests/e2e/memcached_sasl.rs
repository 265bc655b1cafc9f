//! `-P memcache_binary -a user:pass` against a real memcached started with
//! SASL (`-S`) and a private sasldb: every connection, reconnects included,
//! authenticates with SASL PLAIN before its first request; the counts equal
//! memcached's own `stats`; a wrong password exits 2 naming -a/--authenticate
//! before any load.

use crate::common::memcached::Memcached;
use crate::common::{assert_no_faults, kvbench_at, kvbench_json, total, u};
use serde_json::Value;

fn assert_clean(doc: &Value) {
    assert_no_faults(doc, "the run");
}

#[test]
fn sasl_plain_logs_in_and_the_counts_equal_memcacheds_stats() {
    let m = Memcached::start_sasl("bench", "s3cret");
    let args = "-P memcache_binary -a bench:s3cret -t 1 -c 2 -n 200 --ratio 1:1 --key-maximum 100 --pipeline 4";
    let doc = kvbench_json(m.port, args, &[]).doc;
    assert_clean(&doc);
    let (sets, gets) = (total(&doc, "SET", "count"), total(&doc, "GET", "count"));
    assert_eq!(sets + gets, 2 * 200);
    assert!(sets > 0 && gets > 0, "{sets} SETs, {gets} GETs");
    assert_eq!(m.stat("cmd_set"), sets);
    assert_eq!(m.stat("cmd_get"), gets);
    assert_eq!(m.stat("get_hits"), total(&doc, "GET", "hits"));
    assert_eq!(m.stat("get_misses"), total(&doc, "GET", "misses"));
    // Each benchmark connection and the preflight and control connections
    // logged in; none failed to.
    assert_eq!(m.stat("auth_errors"), 0);
    assert!(m.stat("auth_cmds") >= 3, "{}", m.stat("auth_cmds"));
}

#[test]
fn reconnects_log_in_again() {
    let m = Memcached::start_sasl("bench", "s3cret");
    let args = "-P memcache_binary -a bench:s3cret -t 1 -c 2 -n 200 --ratio 1:1 --key-maximum 100 --pipeline 4 --reconnect-interval 30";
    let doc = kvbench_json(m.port, args, &[]).doc;
    assert_clean(&doc);
    let reconnects = u(&doc["kvbench"]["errors"]["reconnects"]);
    // 200 requests per connection in shares of 30: six planned reconnects each.
    assert!((10..=14).contains(&reconnects), "{reconnects}");
    let (sets, gets) = (total(&doc, "SET", "count"), total(&doc, "GET", "count"));
    assert_eq!(sets + gets, 2 * 200);
    assert_eq!(m.stat("cmd_set"), sets);
    assert_eq!(m.stat("cmd_get"), gets);
    // Had a reconnected connection skipped SASL, memcached would have
    // refused its requests; each one authenticated instead.
    assert_eq!(m.stat("auth_errors"), 0);
    assert!(
        m.stat("auth_cmds") >= 2 + reconnects,
        "{}",
        m.stat("auth_cmds")
    );
}

#[test]
fn a_wrong_password_exits_2_naming_authenticate_before_any_load() {
    let m = Memcached::start_sasl("bench", "s3cret");
    let out = kvbench_at(m.port)
        .args([
            "-P",
            "memcache_binary",
            "-a",
            "bench:wrong",
            "-t",
            "1",
            "-c",
            "1",
            "-n",
            "50",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--authenticate"), "{stderr}");
    assert!(stderr.contains("SASL"), "{stderr}");
    assert!(m.stat("auth_errors") >= 1);
    assert_eq!(m.stat("cmd_set") + m.stat("cmd_get"), 0);
}

#[test]
fn a_password_without_a_user_and_the_text_protocol_are_usage_errors() {
    let m = Memcached::start_sasl("bench", "s3cret");
    let logins_before = m.stat("auth_cmds");
    for (protocol, auth, says) in [
        ("memcache_binary", "s3cret", "needs a user"),
        ("memcache_text", "bench:s3cret", "memcached has no AUTH"),
    ] {
        let out = kvbench_at(m.port)
            .args(["-P", protocol, "-a", auth, "-n", "10"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{protocol}: {stderr}");
        assert!(
            stderr.contains("--authenticate") && stderr.contains(says),
            "{stderr}"
        );
    }
    // Both were refused before connecting: the only login since is the one
    // that reads this counter.
    assert_eq!(m.stat("auth_cmds"), logins_before + 1);
}
