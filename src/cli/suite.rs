//! `kvbench suite`: what the user typed, with redis-benchmark's flag names and
//! meanings, so that a redis-benchmark line pastes in after `kvbench suite`.
//! [`crate::config::SuitePlan::from_args`] validates it.

use std::path::PathBuf;

use clap::{ArgAction, Parser};

use crate::error::UsageError;

/// redis-benchmark flags that `kvbench suite` does not take: named as such,
/// so that a pasted line fails with the reason instead of "unexpected".
const UNSUPPORTED: [&str; 6] = [
    "--cluster",
    "-e",
    "-I",
    "--precision",
    "--enable-tracking",
    "--idle",
];

/// redis-benchmark's flags, plus kvbench's own `--test-time`,
/// `--warmup-time`, `-x`, `--json-out-file`, `--html-out-file` and `--seed`.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "kvbench suite",
    about = "Run redis-benchmark's tests (PING, SET, GET, … LRANGE_600, MSET) with redis-benchmark's flags",
    // `-h` is the host, as in redis-benchmark; help is `--help`.
    disable_help_flag = true,
    allow_negative_numbers = true,
    args_override_self = true,
    max_term_width = 100
)]
pub struct SuiteArgs {
    /// Server hostname [default: 127.0.0.1]
    #[arg(short = 'h', long = "host", value_name = "HOST")]
    pub host: Option<String>,
    /// Server port [default: 6379]
    #[arg(short = 'p', long = "port", value_name = "PORT")]
    pub port: Option<u16>,
    /// Server socket (overrides host and port)
    #[arg(short = 's', long = "socket", value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// Password for Redis AUTH
    #[arg(short = 'a', long = "password", value_name = "PASSWORD")]
    pub password: Option<String>,
    /// ACL user for AUTH, with -a
    #[arg(long, value_name = "USER")]
    pub user: Option<String>,
    /// SELECT this database [default: 0]
    #[arg(long, value_name = "DB")]
    pub dbnum: Option<u32>,
    /// Parallel connections in all [default: 50]
    #[arg(short = 'c', long = "clients", value_name = "N")]
    pub clients: Option<usize>,
    /// Requests per test, all connections together [default: 100000]
    #[arg(short = 'n', long = "requests", value_name = "N")]
    pub requests: Option<u64>,
    /// Value size of SET/GET and the other values, bytes [default: 3]
    #[arg(short = 'd', long = "datasize", value_name = "BYTES")]
    pub data_size: Option<usize>,
    /// __rand_int__ becomes a random number below N; without it every test
    /// hits one key, as in redis-benchmark
    #[arg(short = 'r', long = "keyspacelen", value_name = "N")]
    pub keyspace: Option<u64>,
    /// Pipeline N requests [default: 1]
    #[arg(short = 'P', long = "pipeline", value_name = "N")]
    pub pipeline: Option<usize>,
    /// Only these tests, comma-separated, case-insensitive (groups: ping, lrange)
    #[arg(short = 't', long = "tests", value_name = "LIST")]
    pub tests: Option<String>,
    /// One line per test, as redis-benchmark -q
    #[arg(short = 'q', long = "quiet", action = ArgAction::SetTrue)]
    pub quiet: bool,
    /// redis-benchmark's CSV on stdout
    #[arg(long, action = ArgAction::SetTrue)]
    pub csv: bool,
    /// On a terminal, keep each table row on one line however wide (by
    /// default the table is narrowed to fit the terminal)
    #[arg(long, action = ArgAction::SetTrue)]
    pub wide: bool,
    /// Run the tests again and again, until interrupted
    #[arg(short = 'l', long = "loop", action = ArgAction::SetTrue)]
    pub repeat: bool,
    /// Keep connections alive: 1 (the only value kvbench supports)
    #[arg(short = 'k', long = "keepalive", value_name = "1|0")]
    pub keepalive: Option<u8>,
    /// Worker threads the connections are spread over [default: 1]
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Each test runs this long (at least 1) instead of -n requests
    #[arg(long, value_name = "SECS")]
    pub test_time: Option<f64>,
    /// Each test is warmed up this long, apart from its figures
    #[arg(long, value_name = "SECS")]
    pub warmup_time: Option<f64>,
    /// Measured runs per test (kvbench reports their aggregate) [default: 1]
    #[arg(short = 'x', long = "run-count", value_name = "N")]
    pub run_count: Option<u32>,
    /// Write the JSON report (a section per test) here
    #[arg(long, value_name = "FILE")]
    pub json_out_file: Option<PathBuf>,
    /// Write the HTML report (requests/s and latency per test) here
    #[arg(long, value_name = "FILE")]
    pub html_out_file: Option<PathBuf>,
    /// Master seed of the random numbers
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// A test whose error replies (or lost requests) exceed this percentage is
    /// not valid, and the suite exits 3 [default: 1]
    #[arg(long, value_name = "PERCENT")]
    pub max_error_share: Option<f64>,
    /// Exit 0 even when a test's verdict says it is not valid
    #[arg(long)]
    pub allow_invalid: bool,
    /// Print help
    #[arg(long, action = ArgAction::Help)]
    pub help: Option<bool>,
    /// redis-benchmark's trailing command (`script load …`); refused with advice
    #[arg(trailing_var_arg = true, hide = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// A parse error of `kvbench suite` in kvbench's one-line form, pointing at
/// the suite's own help.
pub fn suite_usage_error(e: &clap::Error) -> UsageError {
    let mut u = super::usage_error(e);
    if UNSUPPORTED.contains(&u.flag.as_str()) {
        u.message = format!(
            "redis-benchmark's {} is not supported by kvbench suite; remove it (kvbench suite --help lists the flags)",
            u.flag
        );
    }
    u.message = u
        .message
        .replace("see kvbench --help", "see kvbench suite --help");
    u
}

#[cfg(test)]
mod tests {
    use super::{SuiteArgs, suite_usage_error};
    use clap::{CommandFactory, Parser};

    #[test]
    fn command_definition_is_consistent() {
        SuiteArgs::command().debug_assert();
    }

    #[test]
    fn a_redis_benchmark_flag_kvbench_lacks_is_named_as_such() {
        let e = SuiteArgs::try_parse_from(["suite", "--cluster"]).unwrap_err();
        let u = suite_usage_error(&e);
        assert_eq!(u.flag, "--cluster");
        assert!(u.message.contains("not supported by kvbench suite"), "{u}");
        let e = SuiteArgs::try_parse_from(["suite", "-n", "x"]).unwrap_err();
        assert!(
            suite_usage_error(&e)
                .message
                .ends_with("see kvbench suite --help")
        );
    }

    #[test]
    fn a_redis_benchmark_line_from_the_notes_parses() {
        let a = SuiteArgs::try_parse_from(
            "kvbench-suite -h 192.168.0.11 -p 7000 -c 100 -n 1000000 -a 888888 -q -d 100 -t get,lpush -P 16 -r 100000"
                .split(' '),
        )
        .unwrap();
        assert_eq!(a.host.as_deref(), Some("192.168.0.11"));
        assert_eq!(
            (a.port, a.clients, a.requests),
            (Some(7000), Some(100), Some(1_000_000))
        );
        assert_eq!(a.password.as_deref(), Some("888888"));
        assert!(a.quiet && !a.csv);
        assert_eq!(
            (a.data_size, a.pipeline, a.keyspace),
            (Some(100), Some(16), Some(100_000))
        );
        assert_eq!(a.tests.as_deref(), Some("get,lpush"));
    }
}
