//! What `kvbench suite` takes: redis-benchmark's flags
//! ([`crate::cli::SuiteArgs`]) turned into a [`SuitePlan`], one validated
//! [`Config`] per step, every mistake refused before any connection.
//!
//! Each step's configuration goes through the benchmark's own validation
//! (memtier-style [`Args`] built from the suite's flags), so a suite test
//! and a `--command` run of the same command are configured alike; an error
//! names the suite's flag (`-c`, `-n`), not the memtier flag it became.
//! Running the plan is [`crate::tools::suite`]. A command after the flags
//! (`suite/custom.rs`) is one test in place of the named ones; the connection's
//! flags (TLS, `-3`, `--cluster`, `-k`, `--rps`) are `suite/connection.rs`'s.

mod connection;
mod custom;
mod idle;

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::cli::{Args, NumList, RequestsArg, SuiteArgs};
use crate::config::{Config, FlagSet};
use crate::error::UsageError;
use crate::protocol::command::suite::{self, SuiteTest};
use crate::protocol::command::{CommandSpec, Part};
use crate::workload::ops::{OpTable, RandInt};

pub use idle::IdlePlan;

/// redis-benchmark's defaults.
const DEFAULT_CLIENTS: usize = 50;
const DEFAULT_REQUESTS: u64 = 100_000;
const DEFAULT_DATA_SIZE: usize = 3;
/// `__rand_int__` has 12 digits, so `-r` stops at 10^12.
const MAX_KEYSPACE: u64 = 1_000_000_000_000;
/// The longest LRANGE reads 600 elements; the preparation pushes at least
/// that many, so every LRANGE test reads full replies even with a small -n.
const LRANGE_PREPARE_MIN: u64 = 600;
/// The tests whose nil reply is a miss: the value is absent or the
/// collection empty. Each is answered by a value or nil, which the
/// connection checks; ZPOPMIN is not among them: it answers an array
/// (empty when the set is), never a value.
const HIT_TESTS: [&str; 4] = ["get", "lpop", "rpop", "spop"];
/// redis-benchmark prints latencies with three decimals.
pub const DEFAULT_PRECISION: usize = 3;
/// More decimals than this would only print zeros: latencies are measured
/// to the nanosecond at best.
const MAX_PRECISION: i64 = 6;

/// How the results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    /// kvbench's table.
    Table,
    /// redis-benchmark's `-q`: one line per test.
    Quiet,
    /// redis-benchmark's `--csv`.
    Csv,
}

/// What the user should know before the suite starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SuiteWarning {
    /// No `-r`: every `__rand_int__` is the placeholder's text, so SET, GET,
    /// INCR, SADD, HSET, ZADD and MSET each touch one key.
    OneKey,
    /// `-n` did not divide by `-c`; every connection sends the same count.
    RoundedRequests {
        /// `-n` as given.
        asked: u64,
        /// What the connections send together.
        sent: u64,
    },
}

impl fmt::Display for SuiteWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SuiteWarning::OneKey => write!(
                f,
                "without -r every __rand_int__ is sent as is, so each test hits one key (key:__rand_int__), as in redis-benchmark; add -r 100000 to spread the keys"
            ),
            SuiteWarning::RoundedRequests { asked, sent } => write!(
                f,
                "-n {asked} does not divide by -c; each test sends {sent} requests (every connection the same count)"
            ),
        }
    }
}

/// One benchmark of the suite: a test, or LRANGE's preparation.
#[derive(Debug, Clone)]
pub struct Step {
    /// The test.
    pub test: &'static SuiteTest,
    /// True for "LPUSH (needed to benchmark LRANGE)".
    pub preparation: bool,
    /// The command sent, with its placeholders: the test's own, or its form
    /// without `-r` ([`SuiteTest::command_sent`]).
    pub command: &'static str,
    /// The command after the flags, not a named test.
    pub custom: bool,
    /// Its validated configuration.
    pub config: Config,
}

impl Step {
    /// The row name in reports and compare: `SET`, `LRANGE_100`, the
    /// preparation's title, or the command after the flags as typed.
    pub fn name(&self) -> String {
        if self.preparation || self.custom {
            self.test.title.to_string()
        } else {
            self.test.name.to_ascii_uppercase()
        }
    }
}

/// The validated suite.
#[derive(Debug, Clone)]
pub struct SuitePlan {
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// How results print.
    pub output: OutputMode,
    /// `-l`: run the steps again until interrupted.
    pub repeat: bool,
    /// Where the JSON goes.
    pub json_out_file: Option<PathBuf>,
    /// Where the HTML page goes.
    pub html_out_file: Option<PathBuf>,
    /// Said once, before the first test.
    pub warnings: Vec<SuiteWarning>,
    /// `--allow-invalid`: a test that is not valid still exits 0.
    pub allow_invalid: bool,
    /// The width the table fits ([`crate::config::table_width`]).
    pub width: Option<usize>,
    /// `--precision`: decimal places of the latencies printed.
    pub precision: usize,
    /// `-e`: print the server's error messages.
    pub show_errors: bool,
    /// `-I`: idle connections in place of the steps (which are then none).
    pub idle: Option<IdlePlan>,
}

impl SuitePlan {
    /// Validates `a`; every error names the flag and the fix.
    pub fn from_args(a: &SuiteArgs) -> Result<SuitePlan, UsageError> {
        let custom = custom::command(a)?;
        let tests = suite::select(a.tests.as_deref().unwrap_or(""))
            .map_err(|e| UsageError::new("-t", format!("{e}; e.g. -t set,get,lrange_100")))?;
        let precision = match a.precision {
            None => DEFAULT_PRECISION,
            Some(p) if (0..=MAX_PRECISION).contains(&p) => p as usize,
            Some(p) => {
                return Err(UsageError::new(
                    "--precision",
                    format!(
                        "'{p}' is outside 0..={MAX_PRECISION} decimal places; e.g. --precision 3"
                    ),
                ));
            }
        };
        let connections = a.clients.unwrap_or(DEFAULT_CLIENTS);
        if connections == 0 {
            return Err(UsageError::new("-c", "must be at least 1; e.g. -c 50"));
        }
        let threads = a.threads.unwrap_or(1);
        if threads == 0 || threads > connections {
            return Err(UsageError::new(
                "--threads",
                format!("must be between 1 and -c ({connections}); e.g. --threads 1"),
            ));
        }
        if connections % threads != 0 {
            let lower = connections - connections % threads;
            return Err(UsageError::new(
                "-c",
                format!(
                    "{connections} connections do not split evenly over --threads {threads}; use -c {lower} or -c {}",
                    lower + threads
                ),
            ));
        }
        let requests = a.requests.unwrap_or(DEFAULT_REQUESTS);
        if requests == 0 {
            return Err(UsageError::new("-n", "must be at least 1; e.g. -n 100000"));
        }
        if a.requests.is_some() && a.test_time.is_some() {
            return Err(UsageError::new(
                "--test-time",
                "bounds each test by time, -n by requests; give one of them",
            ));
        }
        let rand_int = match a.keyspace {
            None if a.sequential => {
                return Err(UsageError::new(
                    "--sequential",
                    "counts __rand_int__ up to -r, and no -r was given; add -r N (e.g. -r 100000)",
                ));
            }
            None => RandInt::Literal,
            Some(n) if (1..=MAX_KEYSPACE).contains(&n) && a.sequential => RandInt::Sequential(n),
            Some(n) if (1..=MAX_KEYSPACE).contains(&n) => RandInt::Below(n),
            Some(n) => {
                return Err(UsageError::new(
                    "-r",
                    format!(
                        "{n} is outside 1..=10^12 (__rand_int__ has 12 digits); e.g. -r 100000"
                    ),
                ));
            }
        };
        if a.data_size == Some(0) {
            return Err(UsageError::new("-d", "must be at least 1 byte; e.g. -d 3"));
        }
        let per_connection = requests.div_ceil(connections as u64);
        let base = base_args(a, threads, connections / threads, connections)?;
        if a.idle {
            return idle::plan(a, base, connections, precision);
        }
        let mut warnings = Vec::new();
        let rand_ints = match &custom {
            Some((_, spec)) => spec.count(&Part::RandInt) > 0,
            None => tests.iter().any(|t| t.command.contains("__rand_int__")),
        };
        if rand_int == RandInt::Literal && rand_ints {
            warnings.push(SuiteWarning::OneKey);
        }
        let sent = per_connection * connections as u64;
        if a.test_time.is_none() && sent != requests {
            warnings.push(SuiteWarning::RoundedRequests {
                asked: requests,
                sent,
            });
        }
        let mut steps = Vec::new();
        if let Some((test, spec)) = custom {
            // redis-benchmark ignores -t when a command follows the flags.
            let mut args = base.clone();
            if a.test_time.is_none() {
                args.requests = Some(RequestsArg::Count(per_connection));
            }
            steps.push(step(args, test, spec, false, true, rand_int)?);
        }
        let named = if steps.is_empty() { tests } else { Vec::new() };
        let mut prepared = false;
        for test in named {
            if let Some(prepare) = test.prepare.filter(|_| !prepared) {
                prepared = true;
                let count = requests.max(LRANGE_PREPARE_MIN);
                let mut args = base.clone();
                // Counted even in a timed suite: LRANGE needs a known list.
                args.test_time = None;
                args.requests = Some(RequestsArg::Count(count.div_ceil(connections as u64)));
                args.warmup_time = None;
                args.run_count = None;
                steps.push(step(
                    args,
                    prepare,
                    named_spec(prepare, rand_int)?,
                    true,
                    false,
                    rand_int,
                )?);
            }
            let mut args = base.clone();
            if a.test_time.is_none() {
                args.requests = Some(RequestsArg::Count(per_connection));
            }
            steps.push(step(
                args,
                test,
                named_spec(test, rand_int)?,
                false,
                false,
                rand_int,
            )?);
        }
        Ok(SuitePlan {
            steps,
            output: if a.csv {
                OutputMode::Csv
            } else if a.quiet {
                OutputMode::Quiet
            } else {
                OutputMode::Table
            },
            repeat: a.repeat,
            json_out_file: a.json_out_file.clone(),
            html_out_file: a.html_out_file.clone(),
            warnings,
            allow_invalid: a.allow_invalid,
            width: crate::config::table_width(a.wide),
            precision,
            show_errors: a.show_errors,
            idle: None,
        })
    }
}

/// A named test's command, parsed.
fn named_spec(test: &SuiteTest, rand_int: RandInt) -> Result<CommandSpec, UsageError> {
    let command = test.command_sent(rand_int != RandInt::Literal);
    CommandSpec::parse(command).map_err(|e| UsageError::new("-t", format!("{}: {e}", test.name)))
}

/// The memtier-style arguments every step shares.
fn base_args(
    a: &SuiteArgs,
    threads: usize,
    clients: usize,
    connections: usize,
) -> Result<Args, UsageError> {
    let authenticate = match (&a.user, &a.password) {
        (Some(user), Some(password)) => Some(format!("{user}:{password}")),
        (None, Some(password)) => Some(password.clone()),
        _ => None,
    };
    let mut args = Args {
        server: a.host.clone(),
        port: a.port,
        unix_socket: a.socket.clone(),
        authenticate,
        select_db: a.dbnum,
        threads: Some(NumList::One(threads as u64)),
        clients: Some(NumList::One(clients as u64)),
        pipeline: a.pipeline.map(|p| NumList::One(p as u64)),
        data_size: Some(NumList::One(a.data_size.unwrap_or(DEFAULT_DATA_SIZE) as u64)),
        test_time: a.test_time.map(crate::cli::SecsOrAuto::Secs),
        warmup_time: a.warmup_time.map(crate::cli::SecsOrAuto::Secs),
        run_count: a.run_count.map(crate::cli::RunsArg::Count),
        seed: a.seed,
        max_error_share: a.max_error_share,
        allow_invalid: a.allow_invalid,
        ..Args::default()
    };
    connection::apply(a, &mut args, connections)?;
    Ok(args)
}

/// A flag error names kvbench's memtier flag; say which suite flag it is
/// (also for the errors a test's run finds, such as a cluster node without
/// `--cluster`).
pub fn suite_flag(e: UsageError) -> UsageError {
    let flag = match e.flag.as_str() {
        "--server" | "--host" => "-h",
        "--port" => "-p",
        "--unix-socket" => "-s",
        "--authenticate" => "-a",
        "--clients" => "-c",
        "--threads" => "--threads",
        "--pipeline" => "-P",
        "--data-size" => "-d",
        "--requests" => "-n",
        "--tls-skip-verify" => "--insecure",
        "--cluster-mode" => "--cluster",
        "--rate-limiting" => "--rps",
        "--read-from" => "--rfr",
        other => other,
    };
    UsageError::new(flag, e.message)
}

/// One step's configuration: the memtier-style checks, then the test's own
/// op table in place of the `--command` one.
fn step(
    mut args: Args,
    test: &'static SuiteTest,
    spec: CommandSpec,
    preparation: bool,
    custom: bool,
    rand_int: RandInt,
) -> Result<Step, UsageError> {
    let command = if custom {
        test.command
    } else {
        test.command_sent(rand_int != RandInt::Literal)
    };
    // The memtier checks parse `--command` with memtier's quoting, which a
    // command typed word by word does not follow: they see a PING, and the
    // op table below carries the command itself.
    let checked = if custom { "PING" } else { command };
    args.command = Some(vec![checked.to_string()]);
    let mut config = Config::from_args(args).map_err(suite_flag)?;
    let counts_hits = HIT_TESTS.contains(&test.name) || (custom && spec.name() == "GET");
    config.flags = FlagSet::Suite;
    config.ops = Arc::new(OpTable::suite_test(
        spec,
        test.inline,
        test.counted_as,
        counts_hits,
        rand_int,
    ));
    Ok(Step {
        test,
        preparation,
        command,
        custom,
        config,
    })
}

#[cfg(test)]
mod tests;
