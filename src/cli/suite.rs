//! `kvbench suite`: what the user typed, with redis-benchmark's flag names and
//! meanings, so that a redis-benchmark line pastes in after `kvbench suite`.
//! [`crate::config::SuitePlan::from_args`] validates it.

use std::path::PathBuf;

use clap::{ArgAction, Parser};

use crate::error::UsageError;

/// redis-benchmark flags that `kvbench suite` does not take: named as such,
/// so that a pasted line fails with the reason instead of "unexpected".
const UNSUPPORTED: [&str; 1] = ["--enable-tracking"];

/// redis-benchmark's flags (and valkey-benchmark's `--rps`, `--duration`,
/// `--warmup`, `--rfr`), plus kvbench's own `--test-time`, `--warmup-time`,
/// `--run-count`, `--json-out-file`, `--html-out-file` and `--seed`.
///
/// Numbers take `allow_negative_numbers` one by one, not for the whole
/// command: set for all, `-3` (RESP3) would read as the first word of a
/// trailing command.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "kvbench suite",
    about = "Run redis-benchmark's tests (PING, SET, GET, … LRANGE_600, MSET), or the command after the flags, with redis-benchmark's flags",
    // `-h` is the host, as in redis-benchmark; help is `--help`.
    disable_help_flag = true,
    args_override_self = true,
    max_term_width = 100
)]
pub struct SuiteArgs {
    /// Server hostname [default: 127.0.0.1]
    #[arg(short = 'h', long = "host", value_name = "HOST")]
    pub host: Option<String>,
    /// Server port [default: 6379]
    #[arg(
        short = 'p',
        long = "port",
        value_name = "PORT",
        allow_negative_numbers = true
    )]
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
    #[arg(long, value_name = "DB", allow_negative_numbers = true)]
    pub dbnum: Option<u32>,
    /// Parallel connections in all [default: 50]
    #[arg(
        short = 'c',
        long = "clients",
        value_name = "N",
        allow_negative_numbers = true
    )]
    pub clients: Option<usize>,
    /// Requests per test, all connections together [default: 100000]
    #[arg(
        short = 'n',
        long = "requests",
        value_name = "N",
        allow_negative_numbers = true
    )]
    pub requests: Option<u64>,
    /// Value size of SET/GET and the other values, bytes [default: 3]
    #[arg(
        short = 'd',
        long = "datasize",
        value_name = "BYTES",
        allow_negative_numbers = true
    )]
    pub data_size: Option<usize>,
    /// __rand_int__ becomes a random number below N; without it every test
    /// hits one key, as in redis-benchmark
    #[arg(
        short = 'r',
        long = "keyspacelen",
        value_name = "N",
        allow_negative_numbers = true
    )]
    pub keyspace: Option<u64>,
    /// Pipeline N requests [default: 1]
    #[arg(
        short = 'P',
        long = "pipeline",
        value_name = "N",
        allow_negative_numbers = true
    )]
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
    /// 1 keeps connections alive; 0 opens a new connection for every request [default: 1]
    #[arg(
        short = 'k',
        long = "keepalive",
        value_name = "1|0",
        allow_negative_numbers = true
    )]
    pub keepalive: Option<i64>,
    /// Worker threads the connections are spread over [default: 1]
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Each test runs this long (at least 1) instead of -n requests
    /// (valkey-benchmark's --duration)
    #[arg(
        long,
        visible_alias = "duration",
        value_name = "SECS",
        allow_negative_numbers = true
    )]
    pub test_time: Option<f64>,
    /// Each test is warmed up this long, apart from its figures
    /// (valkey-benchmark's --warmup)
    #[arg(
        long,
        visible_alias = "warmup",
        value_name = "SECS",
        allow_negative_numbers = true
    )]
    pub warmup_time: Option<f64>,
    /// Measured runs per test (kvbench reports their aggregate) [default: 1]
    #[arg(long = "run-count", value_name = "N", allow_negative_numbers = true)]
    pub run_count: Option<u32>,
    /// Speak RESP3 (HELLO 3 on every connection)
    #[arg(short = '3', action = ArgAction::SetTrue)]
    pub resp3: bool,
    /// The server is a Redis Cluster: -h/-p is a seed node, each request goes
    /// to the master of its key's slot
    #[arg(long, action = ArgAction::SetTrue)]
    pub cluster: bool,
    /// valkey-benchmark's read from replicas, with --cluster: no (masters),
    /// yes (replicas), all (every node) [default: no]
    #[arg(long, value_name = "no|yes|all")]
    pub rfr: Option<String>,
    /// valkey-benchmark's rate limit: at most N requests per second in all,
    /// shared evenly by the connections; 0 = no limit
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub rps: Option<f64>,
    /// valkey-benchmark's sequential keys: __rand_int__ counts up from 0 (to
    /// -r, then again), each connection from its own start
    #[arg(long, action = ArgAction::SetTrue)]
    pub sequential: bool,
    /// Print the server's error replies: each distinct message once per test, on stdout
    #[arg(short = 'e', action = ArgAction::SetTrue)]
    pub show_errors: bool,
    /// Idle mode: open -c connections, send nothing and wait (--test-time
    /// seconds, 60 without it, or until Ctrl+C)
    #[arg(short = 'I', long = "idle", action = ArgAction::SetTrue)]
    pub idle: bool,
    /// Decimal places of the latencies printed [default: 3]
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub precision: Option<i64>,
    /// Read the last argument of the command after the flags from stdin
    #[arg(short = 'x', action = ArgAction::SetTrue)]
    pub stdin_last_arg: bool,
    /// Connect over TLS
    #[arg(long, action = ArgAction::SetTrue)]
    pub tls: bool,
    /// Server name indication for TLS [default: the host]
    #[arg(long, value_name = "HOST")]
    pub sni: Option<String>,
    /// CA certificate file (PEM) to verify the server with [default: the system's]
    #[arg(long, value_name = "FILE")]
    pub cacert: Option<PathBuf>,
    /// Directory of trusted CA certificates (every PEM file in it)
    #[arg(long, value_name = "DIR")]
    pub cacertdir: Option<PathBuf>,
    /// Accept any server certificate (encrypted, not authenticated)
    #[arg(long, action = ArgAction::SetTrue)]
    pub insecure: bool,
    /// Client certificate (PEM) to authenticate with; needs --key
    #[arg(long, value_name = "FILE")]
    pub cert: Option<PathBuf>,
    /// Private key (PEM) of --cert
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
    /// Write the JSON report (a section per test) here
    #[arg(long, value_name = "FILE")]
    pub json_out_file: Option<PathBuf>,
    /// Write the HTML report (requests/s and latency per test) here
    #[arg(long, value_name = "FILE")]
    pub html_out_file: Option<PathBuf>,
    /// Master seed of the random numbers
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub seed: Option<u64>,
    /// A test whose error replies (or lost requests) exceed this percentage is
    /// not valid, and the suite exits 3 [default: 1]
    #[arg(long, value_name = "PERCENT", allow_negative_numbers = true)]
    pub max_error_share: Option<f64>,
    /// Exit 0 even when a test's verdict says it is not valid
    #[arg(long)]
    pub allow_invalid: bool,
    /// Print help
    #[arg(long, action = ArgAction::Help)]
    pub help: Option<bool>,
    /// A command to run as the one test, in place of the named ones, each word
    /// one argument (`script load "redis.call('ping')"`); __rand_int__ draws
    /// below -r
    #[arg(trailing_var_arg = true, value_name = "COMMAND ARGS")]
    pub command: Vec<String>,
    /// With -x: what stdin held, the command's last argument (read by the
    /// binary before the plan is built).
    #[arg(skip)]
    pub stdin_value: Option<Vec<u8>>,
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
        let e = SuiteArgs::try_parse_from(["suite", "--enable-tracking"]).unwrap_err();
        let u = suite_usage_error(&e);
        assert_eq!(u.flag, "--enable-tracking");
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

    #[test]
    fn minus_3_is_resp3_and_the_command_starts_at_the_first_word() {
        let a = SuiteArgs::try_parse_from([
            "suite", "-3", "-n", "10", "-x", "script", "load", "-3", "-k",
        ])
        .unwrap();
        assert!(a.resp3 && a.stdin_last_arg);
        assert_eq!(a.requests, Some(10));
        // After the first word every word is the command's, flags or not.
        assert_eq!(a.command, ["script", "load", "-3", "-k"]);
        // A negative count is a bad value of -c, not a flag `-1`.
        let e = SuiteArgs::try_parse_from(["suite", "-c", "-1"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
    }

    #[test]
    fn valkey_benchmarks_names_are_aliases() {
        let a = SuiteArgs::try_parse_from(["suite", "--duration", "2", "--warmup", "1"]).unwrap();
        assert_eq!((a.test_time, a.warmup_time), (Some(2.0), Some(1.0)));
    }
}
