//! Tests of `--retry-on-error`'s flags made into a policy, and of the
//! failed-keys file's guard.

use super::*;
use crate::cli::Cli;
use clap::Parser;

fn args(extra: &[&str]) -> Args {
    let mut all = vec!["kvbench"];
    all.extend_from_slice(extra);
    Cli::try_parse_from(all).unwrap().run
}

#[test]
fn retries_are_off_without_the_switch_and_its_options_say_so() {
    assert_eq!(build_retry(&args(&[]), Protocol::Redis), Ok(None));
    let e = build_retry(&args(&["--max-retries", "2"]), Protocol::Redis).unwrap_err();
    assert_eq!(e.flag, "--max-retries");
}

#[test]
fn the_default_policy_retries_transient_kinds_three_times() {
    let p = build_retry(&args(&["--retry-on-error"]), Protocol::Redis)
        .unwrap()
        .unwrap();
    assert_eq!(p.budget, RetryBudget::AtMost(3));
    assert!(p.retries(ServerErrorKind::Oom, 2));
    assert!(!p.retries(ServerErrorKind::Oom, 3));
    assert!(!p.retries(ServerErrorKind::WrongType, 0));
    assert!(!p.retries(ServerErrorKind::Err, 0));
}

#[test]
fn minus_one_retries_without_limit() {
    let a = args(&["--retry-on-error", "--max-retries", "-1"]);
    let p = build_retry(&a, Protocol::Redis).unwrap().unwrap();
    assert!(p.retries(ServerErrorKind::Busy, u16::MAX));
    let a = args(&["--retry-on-error", "--max-retries", "-2"]);
    assert_eq!(
        build_retry(&a, Protocol::Redis).unwrap_err().flag,
        "--max-retries"
    );
}

#[test]
fn retry_on_takes_prefixes_and_refuses_permanent_ones() {
    let a = args(&["--retry-on-error", "--retry-on", "oom,-BUSY"]);
    let p = build_retry(&a, Protocol::Redis).unwrap().unwrap();
    assert_eq!(
        p.on.kinds().collect::<Vec<_>>(),
        [ServerErrorKind::Oom, ServerErrorKind::Busy]
    );
    for bad in ["WRONGTYPE", "MOVED", "NOPE"] {
        let a = args(&["--retry-on-error", "--retry-on", bad]);
        let e = build_retry(&a, Protocol::Redis).unwrap_err();
        assert_eq!(e.flag, "--retry-on", "{bad}");
        assert!(e.message.contains(bad), "{e:?}");
    }
}

#[test]
fn paced_retries_grow_by_the_factor_up_to_a_minute() {
    let a = args(&[
        "--retry-on-error",
        "--retry-backoff-ms",
        "10",
        "--retry-backoff-factor",
        "2",
        "--max-retry-queue",
        "5",
    ]);
    let p = build_retry(&a, Protocol::Redis).unwrap().unwrap().pacing;
    assert_eq!(p.max_queue, 5);
    assert_eq!(p.delay(0), Duration::from_millis(10));
    assert_eq!(p.delay(3), Duration::from_millis(80));
    assert_eq!(p.delay(40), MAX_RETRY_BACKOFF);
    assert_eq!(p.delay(u16::MAX), MAX_RETRY_BACKOFF);
    let unpaced = build_retry(&args(&["--retry-on-error"]), Protocol::Redis)
        .unwrap()
        .unwrap()
        .pacing;
    assert_eq!(unpaced.delay(5), Duration::ZERO);
    assert_eq!(unpaced.max_queue, DEFAULT_MAX_RETRY_QUEUE);
}

#[test]
fn pacing_flags_name_what_is_wrong() {
    for (extra, flag) in [
        (
            &["--retry-backoff-factor", "2"][..],
            "--retry-backoff-factor",
        ),
        (&["--retry-backoff-ms", "60001"][..], "--retry-backoff-ms"),
        (&["--retry-backoff-ms", "-5"][..], "--retry-backoff-ms"),
        (
            &["--retry-backoff-ms", "5", "--retry-backoff-factor", "0.5"][..],
            "--retry-backoff-factor",
        ),
        (&["--max-retry-queue", "0"][..], "--max-retry-queue"),
    ] {
        let mut all = vec!["--retry-on-error"];
        all.extend_from_slice(extra);
        let e = build_retry(&args(&all), Protocol::Redis).unwrap_err();
        assert_eq!(e.flag, flag, "{extra:?}");
    }
    let e = build_retry(&args(&["--max-retry-queue", "9"]), Protocol::Redis).unwrap_err();
    assert_eq!(e.flag, "--max-retry-queue");
    assert!(e.message.contains("--retry-on-error"), "{e:?}");
}

#[test]
fn memcached_refuses_retries() {
    let a = args(&["--retry-on-error"]);
    assert!(build_retry(&a, Protocol::MemcacheText).is_err());
}

#[test]
fn a_foreign_file_is_never_appended_to() {
    let dir = std::env::temp_dir().join(format!("kvbench-failed-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ours = dir.join("ours.csv");
    std::fs::write(&ours, format!("{FAILED_KEYS_HEADER}\n")).unwrap();
    let theirs = dir.join("theirs.csv");
    std::fs::write(&theirs, "precious\n").unwrap();
    let empty = dir.join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    for (path, ok) in [
        (&ours, true),
        (&empty, true),
        (&theirs, false),
        (&dir, false),
    ] {
        let a = args(&["--failed-keys-file", path.to_str().unwrap()]);
        assert_eq!(build_failed_keys(&a).is_ok(), ok, "{}", path.display());
    }
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "precious\n");
    std::fs::remove_dir_all(&dir).unwrap();
}
