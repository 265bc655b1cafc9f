//! Launching the shards of a set: a start time some seconds ahead, and
//! waiting for a shard that must succeed.

use std::process::Child;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Seconds since the epoch, `ahead` from now (for `--start-at`).
pub fn epoch_in(ahead: Duration) -> f64 {
    (SystemTime::now() + ahead)
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// Waits for `child` and asserts that it succeeded, with its stderr.
pub fn wait_ok(child: Child, what: &str) {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}
