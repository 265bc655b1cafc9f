//! Each flag's parsing, where it is defined: memtier's names and short
//! options, lists that sweep, config-file keys, and one-line parse errors.

use super::*;
use clap::{CommandFactory, Parser};

fn parse(args: &[&str]) -> Args {
    let mut full = vec!["kvbench"];
    full.extend_from_slice(args);
    Cli::try_parse_from(full).unwrap().run
}

#[test]
fn command_definition_is_consistent() {
    Cli::command().debug_assert();
}

#[test]
fn short_h_means_host_like_memtier() {
    assert_eq!(
        parse(&["-h", "10.0.0.1"]).server.as_deref(),
        Some("10.0.0.1")
    );
    assert_eq!(parse(&["--host", "a"]).server.as_deref(), Some("a"));
    assert_eq!(parse(&["-s", "b"]).server.as_deref(), Some("b"));
}

#[test]
fn memtier_short_flags_parse() {
    let a = parse(&[
        "-t", "2", "-c", "3", "-n", "allkeys", "-d", "64", "-x", "3", "-R",
    ]);
    assert_eq!(a.threads, Some(NumList::One(2)));
    assert_eq!(a.clients, Some(NumList::One(3)));
    assert_eq!(a.requests, Some(RequestsArg::Word("allkeys".into())));
    assert_eq!(a.data_size, Some(NumList::One(64)));
    assert_eq!(a.run_count, Some(RunsArg::Count(3)));
    assert!(a.random_data);
}

#[test]
fn parse_errors_become_one_line_naming_the_flag() {
    let e = Cli::try_parse_from(["kvbench", "-t", "foo"]).unwrap_err();
    let u = usage_error(&e);
    assert_eq!(u.flag, "--threads");
    assert!(!u.to_string().contains('\n'));
    let e = Cli::try_parse_from(["kvbench", "--thread", "2"]).unwrap_err();
    let u = usage_error(&e);
    assert_eq!(u.flag, "--thread");
    assert!(u.message.contains("--threads"), "{}", u.message);
}

#[test]
fn a_stray_word_is_refused_without_showing_it() {
    for argv in [
        &["kvbench", "-a", "bench", "CANARY-pw-1"][..],
        &[
            "kvbench",
            "--authenticate",
            "bench",
            "CANARY-pw-1",
            "-n",
            "5",
        ],
        &["kvbench", "-n", "5", "CANARY-pw-1"],
    ] {
        let e = Cli::try_parse_from(argv).unwrap_err();
        let u = usage_error(&e);
        assert!(!u.to_string().contains("CANARY"), "{argv:?}: {u}");
        assert!(u.message.contains("USER:PASSWORD"), "{argv:?}: {u}");
    }
    // A subcommand's typo still gets its suggestion.
    let e = Cli::try_parse_from(["kvbench", "compre"]).unwrap_err();
    assert!(
        usage_error(&e).message.contains("'compare'"),
        "{}",
        usage_error(&e)
    );
    // A mistyped flag is still named.
    let e = Cli::try_parse_from(["kvbench", "--thread", "2"]).unwrap_err();
    assert_eq!(usage_error(&e).flag, "--thread");
}

#[test]
fn numeric_flags_accept_lists_that_sweep() {
    assert_eq!(
        parse(&["--pipeline", "1,4,16"]).pipeline,
        Some(NumList::Many(vec![1, 4, 16]))
    );
    assert!(Cli::try_parse_from(["kvbench", "--pipeline", "1,x"]).is_err());
    let a: Args = toml::from_str("pipeline = [1, 4]\nclients = \"10,50\"\n").unwrap();
    assert_eq!(a.pipeline.unwrap().values().unwrap(), vec![1, 4]);
    assert_eq!(a.clients.unwrap().values().unwrap(), vec![10, 50]);
}

#[test]
fn requests_accepts_a_number() {
    assert_eq!(
        parse(&["-n", "500"]).requests,
        Some(RequestsArg::Count(500))
    );
}

#[test]
fn unset_flags_stay_none_so_a_config_file_can_fill_them() {
    let a = parse(&[]);
    assert!(a.threads.is_none() && a.ratio.is_none() && a.pipeline.is_none());
}

#[test]
fn config_file_keys_are_long_flag_names() {
    let a: Args = toml::from_str(
        "threads = 2\nkey-pattern = \"S:S\"\nrequests = \"allkeys\"\ntest-time = 5\n",
    )
    .unwrap();
    assert_eq!(a.threads, Some(NumList::One(2)));
    assert_eq!(a.key_pattern.as_deref(), Some("S:S"));
    assert_eq!(a.test_time, Some(SecsOrAuto::Secs(5.0)));
}

#[test]
fn config_file_rejects_unknown_keys() {
    let err = toml::from_str::<Args>("thread = 2\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("thread"), "{err}");
}

#[test]
fn cluster_flags_parse_and_come_from_a_config_file() {
    let a = parse(&[
        "--cluster-mode",
        "--max-redirects",
        "3",
        "--read-from",
        "any",
    ]);
    assert!(a.cluster_mode);
    assert_eq!(a.max_redirects, Some(3));
    assert_eq!(a.read_from.as_deref(), Some("any"));
    assert!(!parse(&[]).cluster_mode);
    let file: Args =
        toml::from_str("cluster-mode = true\nmax-redirects = 5\nread-from = \"replica\"\n")
            .unwrap();
    assert!(file.cluster_mode);
    assert_eq!(file.max_redirects, Some(5));
    assert_eq!(file.read_from.as_deref(), Some("replica"));
}

#[test]
fn shard_and_start_flags_parse_and_come_from_a_config_file() {
    let a = parse(&[
        "--shard-index",
        "2",
        "--shard-count",
        "4",
        "--start-at",
        "+30s",
        "--start-tolerance",
        "0.5",
        "--run-gap",
        "2",
    ]);
    assert_eq!((a.shard_index, a.shard_count), (Some(2), Some(4)));
    assert_eq!(a.start_at.as_deref(), Some("+30s"));
    assert_eq!((a.start_tolerance, a.run_gap), (Some(0.5), Some(2.0)));
    let file: Args =
        toml::from_str("shard-count = 3\nstart-at = \"2026-12-01T10:30:00Z\"").unwrap();
    assert_eq!(file.shard_count, Some(3));
    assert_eq!(file.start_at.as_deref(), Some("2026-12-01T10:30:00Z"));
}

fn error_of(args: &[&str]) -> String {
    let mut full = vec!["kvbench"];
    full.extend_from_slice(args);
    usage_error(&Cli::try_parse_from(full).unwrap_err()).to_string()
}

#[test]
fn a_real_typo_still_gets_its_suggestion() {
    let e = error_of(&["--thread", "2"]);
    assert!(e.contains("did you mean '--threads'"), "{e}");
    assert!(!e.contains("memtier's"), "{e}");
}

#[test]
fn a_repeated_flag_takes_its_last_value() {
    let a = Cli::try_parse_from(["kvbench", "-t", "2", "--test-time", "5", "-t", "3"])
        .unwrap()
        .run;
    assert_eq!(a.threads, Some(crate::cli::NumList::One(3)));
    let a = Cli::try_parse_from(["kvbench", "--ratio", "1:1", "--ratio", "0:1"])
        .unwrap()
        .run;
    assert_eq!(a.ratio.as_deref(), Some("0:1"));
    let a = Cli::try_parse_from(["kvbench", "--hide-histogram", "--hide-histogram"])
        .unwrap()
        .run;
    assert!(a.hide_histogram);
}

#[test]
fn the_protocol_names_completion_offers_are_the_protocols() {
    use crate::protocol::wire::Protocol;
    let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.name()).collect();
    assert_eq!(names, super::PROTOCOL_NAMES);
    let bash =
        String::from_utf8(super::completions(super::generate::CompletionShell::Bash)).unwrap();
    let offered = bash
        .lines()
        .skip_while(|l| !l.contains("--protocol)"))
        .nth(1)
        .unwrap_or_default();
    assert!(offered.contains("memcache_binary"), "{offered}");
    assert!(!offered.contains("compgen -f"), "{offered}");
}
