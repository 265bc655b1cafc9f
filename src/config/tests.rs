//! Validation rules of [`crate::config`], one small test per flag.

use super::*;
use crate::cli::Cli;
use clap::Parser;

fn config(args: &[&str]) -> Result<Config, UsageError> {
    let mut full = vec!["kvbench"];
    full.extend_from_slice(args);
    Config::from_args(Cli::try_parse_from(full).unwrap().run)
}

fn flag_of(args: &[&str]) -> String {
    config(args).unwrap_err().flag
}

#[test]
fn defaults_match_memtier() {
    let c = config(&[]).unwrap();
    assert_eq!((c.threads, c.clients, c.pipeline), (4, 50, 1));
    assert_eq!(c.ratio, Ratio { set: 1, get: 10 });
    assert_eq!(c.stop, Stop::Requests(10_000));
    assert_eq!(
        c.keys.range,
        KeyRange {
            min: 0,
            max: 10_000_000
        }
    );
    assert_eq!(c.keys.prefix, "memtier-");
    assert_eq!(c.keys.pattern_letters, "R:R");
    assert_eq!(c.values, SizeSpec::Fixed(32));
    assert_eq!(c.output.percentiles, vec![50.0, 99.0, 99.9]);
    assert_eq!(c.run_count, 1);
    assert_eq!(c.warmup, Duration::ZERO);
}

#[test]
fn each_bad_value_names_its_flag() {
    assert_eq!(flag_of(&["--ratio", "0:0"]), "--ratio");
    assert_eq!(
        flag_of(&["--key-minimum", "10", "--key-maximum", "5"]),
        "--key-minimum"
    );
    assert_eq!(flag_of(&["--pipeline", "0"]), "--pipeline");
    assert_eq!(flag_of(&["--threads", "0"]), "--threads");
    assert_eq!(flag_of(&["--clients", "0"]), "--clients");
    assert_eq!(flag_of(&["--key-pattern", "X:R"]), "--key-pattern");
    assert_eq!(flag_of(&["--data-size-list", "32:x"]), "--data-size-list");
    assert_eq!(flag_of(&["--data-size-range", "9-3"]), "--data-size-range");
    assert_eq!(flag_of(&["-d", "0"]), "--data-size");
    assert_eq!(flag_of(&["-n", "some"]), "--requests");
    assert_eq!(flag_of(&["-n", "0"]), "--requests");
    assert_eq!(flag_of(&["--test-time", "0"]), "--test-time");
    assert_eq!(flag_of(&["--warmup-time=-1"]), "--warmup-time");
    // `-P memcache` is refused by the parser itself (its possible values).
    assert!(Cli::try_parse_from(["kvbench", "-P", "memcache"]).is_err());
    assert_eq!(
        flag_of(&["-P", "memcache_text", "-a", "pw"]),
        "--authenticate"
    );
    assert_eq!(flag_of(&["-u", "ftp://x"]), "--uri");
    assert_eq!(flag_of(&["--cacert", "ca.pem"]), "--cacert");
    assert_eq!(flag_of(&["--tls", "--cert", "c.pem"]), "--cert");
    assert_eq!(flag_of(&["--tls", "-S", "/s.sock"]), "--tls");
    assert_eq!(
        flag_of(&["--print-percentiles", "50,101"]),
        "--print-percentiles"
    );
    assert_eq!(flag_of(&["--cpus", "3-1"]), "--cpus");
    assert_eq!(
        flag_of(&["--key-pattern", "Z:Z", "--key-zipf-exp", "0"]),
        "--key-zipf-exp"
    );
    assert_eq!(
        flag_of(&["--key-pattern", "G:G", "--key-stddev", "0"]),
        "--key-stddev"
    );
    assert_eq!(flag_of(&["-4", "-6"]), "-4/-6");
    assert_eq!(flag_of(&["--seed", "9007199254740992"]), "--seed");
    assert_eq!(flag_of(&["--rate", "0"]), "--rate");
    assert_eq!(flag_of(&["--rate", "10", "--rate-limiting", "1"]), "--rate");
    assert_eq!(
        flag_of(&["--rate", "10", "--arrival", "bursty"]),
        "--arrival"
    );
    assert_eq!(flag_of(&["--arrival", "poisson"]), "--arrival");
}

#[test]
fn random_seeds_stay_exact_in_json() {
    for _ in 0..20 {
        assert!(config(&[]).unwrap().seed <= MAX_SEED);
    }
    assert_eq!(
        config(&["--seed", "9007199254740991"]).unwrap().seed,
        MAX_SEED
    );
}

#[test]
fn parallel_pattern_needs_a_key_per_connection() {
    let args = [
        "--key-pattern",
        "P:P",
        "--key-maximum",
        "9",
        "-t",
        "2",
        "-c",
        "10",
    ];
    assert_eq!(flag_of(&args), "--key-pattern");
    assert!(
        config(&[
            "--key-pattern",
            "P:P",
            "--key-maximum",
            "19",
            "-t",
            "2",
            "-c",
            "10"
        ])
        .is_ok()
    );
}

#[test]
fn rate_limiting_is_per_connection() {
    let c = config(&["-t", "2", "-c", "5", "--rate-limiting", "100"]).unwrap();
    assert_eq!(c.rate.unwrap().total_per_sec, 1000.0);
    let c = config(&["--rate", "500", "--arrival", "poisson"]).unwrap();
    assert_eq!(
        c.rate,
        Some(Rate {
            total_per_sec: 500.0,
            arrival: Arrival::Poisson,
            missed: Missed::Kept,
        })
    );
    assert_eq!(config(&[]).unwrap().rate, None);
}

#[test]
fn test_time_replaces_requests() {
    let c = config(&["-n", "5", "--test-time", "2"]).unwrap();
    assert_eq!(c.stop, Stop::Time(Duration::from_secs(2)));
    assert_eq!(config(&["-n", "allkeys"]).unwrap().stop, Stop::AllKeys);
}

#[test]
fn a_test_time_under_a_second_is_refused_and_one_second_is_the_shortest_run() {
    assert_eq!(
        flag_of(&["--test-time", "0.0000001", "-n", "1"]),
        "--test-time"
    );
    assert_eq!(flag_of(&["--test-time", "0.999"]), "--test-time");
    let c = config(&["--test-time", "1"]).unwrap();
    assert_eq!(c.stop, Stop::Time(Duration::from_secs(1)));
}

#[test]
fn uri_overrides_server_port_auth_and_db() {
    let c = config(&["-s", "10.1.1.1", "-u", "redis://u:p@127.0.0.2:7001/4"]).unwrap();
    assert_eq!(c.target.endpoint.to_string(), "127.0.0.2:7001");
    assert_eq!(c.target.db, 4);
    assert_eq!(c.target.auth.unwrap().user.as_deref(), Some("u"));
}

#[test]
fn cpu_lists_expand_ranges() {
    assert_eq!(parse_cpu_list("0-2,5").unwrap(), vec![0, 1, 2, 5]);
    assert!(parse_cpu_list("a").is_err());
}

#[test]
fn config_file_fills_what_the_command_line_leaves_out() {
    let dir = std::env::temp_dir().join(format!("kvbench-cfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("c.toml");
    std::fs::write(
        &path,
        "threads = 3\nclients = 7\nratio = \"1:1\"\nhide-histogram = true\n",
    )
    .unwrap();
    let c = config(&["--config", path.to_str().unwrap(), "-c", "9"]).unwrap();
    assert_eq!(c.threads, 3);
    assert_eq!(c.clients, 9, "the command line wins");
    assert_eq!(c.ratio, Ratio { set: 1, get: 1 });
    assert!(c.output.hide_histogram);
    std::fs::write(&path, "threads = [\n").unwrap();
    let err = config(&["--config", path.to_str().unwrap()]).unwrap_err();
    assert_eq!(err.flag, "--config");
    assert!(err.message.contains("line"), "{}", err.message);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gaussian_parameters_need_a_g_pattern() {
    assert_eq!(flag_of(&["--key-median", "5"]), "--key-median");
    assert_eq!(
        flag_of(&["--key-pattern", "Z:R", "--key-stddev", "5"]),
        "--key-stddev"
    );
    assert!(config(&["--key-pattern", "R:G", "--key-median", "5"]).is_ok());
}

#[test]
fn zipf_refuses_key_minimum_0_as_memtier_and_other_patterns_take_it() {
    assert_eq!(
        flag_of(&["--key-pattern", "Z:Z", "--key-minimum", "0"]),
        "--key-minimum"
    );
    assert_eq!(
        flag_of(&["--key-pattern", "S:Z", "--key-minimum", "0"]),
        "--key-minimum"
    );
    assert!(config(&["--key-pattern", "Z:Z", "--key-minimum", "1"]).is_ok());
    // Left out, the range starts at 0 and zipf ranks from 1, as memtier's Z.
    assert!(config(&["--key-pattern", "Z:Z"]).is_ok());
    assert!(config(&["--key-pattern", "R:R", "--key-minimum", "0"]).is_ok());
}

#[test]
fn zipf_exponent_lies_in_memtiers_open_interval() {
    assert!(config(&["--key-pattern", "Z:Z", "--key-zipf-exp", "4.99"]).is_ok());
    assert_eq!(
        flag_of(&["--key-pattern", "Z:Z", "--key-zipf-exp", "5"]),
        "--key-zipf-exp"
    );
}

#[test]
fn rate_limiting_headlines_service_time_and_rate_response_time() {
    assert_eq!(config(&[]).unwrap().headline, Headline::ServiceTime);
    assert_eq!(
        config(&["--rate-limiting", "10"]).unwrap().headline,
        Headline::ServiceTime
    );
    assert_eq!(
        config(&["--rate", "10"]).unwrap().headline,
        Headline::ResponseTime
    );
}

#[test]
fn cluster_mode_fills_its_options_and_its_flags_need_it() {
    assert_eq!(config(&[]).unwrap().cluster, None);
    let c = config(&["--cluster-mode"]).unwrap().cluster.unwrap();
    assert_eq!(c, ClusterOptions::default());
    let c = config(&[
        "--cluster-mode",
        "--max-redirects",
        "1000",
        "--read-from",
        "replica",
    ])
    .unwrap()
    .cluster
    .unwrap();
    assert_eq!((c.max_redirects, c.read_from), (1000, ReadFrom::Replica));
    assert_eq!(flag_of(&["--read-from", "any"]), "--read-from");
    assert_eq!(flag_of(&["--max-redirects", "2"]), "--max-redirects");
    assert_eq!(
        flag_of(&["--cluster-mode", "--max-redirects", "0"]),
        "--max-redirects"
    );
    assert_eq!(
        flag_of(&["--cluster-mode", "-P", "memcache_binary"]),
        "--cluster-mode"
    );
    assert_eq!(
        flag_of(&["--cluster-mode", "-S", "/tmp/x.sock"]),
        "--cluster-mode"
    );
}
