//! `-P memcache_text` against a server whose `VALUE` blocks lie: one for
//! another key than the `get` asked, and one shorter than it announces. Each
//! is a protocol error as soon as its bytes are read: never a hit, never a
//! wait for bytes that do not come.

use serde_json::Value;

use crate::common::memcached::{Lie, LyingText};
use crate::common::{self, TempDir, read_json, total, u};

/// 20 GETs with `-P memcache_text` against a server that lies as `lie` says;
/// the JSON report (the run is invalid: every reply is broken).
fn gets_against(lie: Lie) -> (Value, LyingText) {
    let server = LyingText::start(lie);
    let dir = TempDir::new("mc-lie");
    let json = dir.path("r.json");
    let out = common::kvbench_at(server.port)
        .args(["-P", "memcache_text", "-t", "1", "-c", "1", "-n", "20"])
        .args(["--ratio", "0:1", "--allow-invalid"])
        .args(["--json-out-file", json.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    (read_json(&json), server)
}

/// The message of the verdict's `protocol_errors` reason.
fn protocol_fault(doc: &Value) -> String {
    let reasons = doc["kvbench"]["verdict"]["reasons"].as_array().unwrap();
    reasons
        .iter()
        .find(|r| r["kind"] == "protocol_errors")
        .unwrap_or_else(|| panic!("no protocol_errors reason: {reasons:?}"))["message"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_value_for_another_key_is_a_protocol_error_not_a_hit() {
    let (doc, server) = gets_against(Lie::OtherKey);
    let answered = server.gets.load(std::sync::atomic::Ordering::SeqCst);
    assert!(answered > 0, "the server answered no get");
    assert_eq!(
        total(&doc, "GET", "hits"),
        0,
        "another key's value was a hit"
    );
    let errors = &doc["kvbench"]["errors"];
    // Every answer is out of step: each closes its connection, uncounted as a reply.
    assert_eq!(u(&errors["protocol"]), answered, "{errors}");
    assert_eq!(total(&doc, "GET", "count"), 0, "{errors}");
    let message = protocol_fault(&doc);
    assert!(message.contains("did not ask for"), "{message}");
}

#[test]
fn a_value_block_shorter_than_announced_is_a_protocol_error_at_once() {
    let (doc, server) = gets_against(Lie::Short);
    let answered = server.gets.load(std::sync::atomic::Ordering::SeqCst);
    assert!(answered > 0, "the server answered no get");
    let errors = &doc["kvbench"]["errors"];
    // Found from the bytes, not from a request that never completes.
    assert_eq!(u(&errors["protocol"]), answered, "{errors}");
    assert_eq!(u(&errors["timeouts"]), 0, "{errors}");
    assert_eq!(total(&doc, "GET", "hits"), 0);
    let message = protocol_fault(&doc);
    assert!(
        message.contains("shorter than its announced length"),
        "{message}"
    );
}
