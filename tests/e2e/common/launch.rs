//! Launching the shards of a set: a start time some seconds ahead, waiting
//! for a shard that must succeed, and merging the set's files.

use std::path::Path;
use std::process::Child;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::common::{kvbench, read_json};

/// A shard's small workload: one thread, two connections, SET:GET 1:1 over
/// 1 000 keys.
pub const SMALL_SHARD: [&str; 8] = [
    "-t",
    "1",
    "-c",
    "2",
    "--ratio",
    "1:1",
    "--key-maximum",
    "1000",
];

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

/// `kvbench merge FILES -o OUT EXTRA…`, which must succeed; the merged file.
pub fn merge_ok(files: &[String], out: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["merge"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["-o", out.to_str().unwrap()]);
    args.extend(extra);
    let run = kvbench(&args);
    assert!(
        run.status.success(),
        "kvbench merge: {}\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    read_json(out)
}
