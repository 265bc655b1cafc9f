//! What the user typed: the command line, with memtier_benchmark's flag names.
//! [`Cli`] is the whole of it (parser.rs); [`Args`] here, the benchmark's flags,
//! is what it holds without a subcommand and what `kvbench capacity` takes
//! beside its own.
//!
//! Every field is optional here so that we can tell "not given" from "given with
//! the default value": a `--config` file fills what the command line left out, and
//! [`crate::config`] applies defaults and validates the result. The same struct is
//! deserialized from the TOML file (keys are the long flag names), which is why it
//! derives `Deserialize` and rejects unknown keys.

#![allow(
    rustdoc::broken_intra_doc_links,
    reason = "doc comments here are clap's help text, where brackets are literal"
)]

use std::path::PathBuf;

use clap::ArgAction;
use serde::{Deserialize, Serialize};

mod capacity;
mod compare;
mod generate;
mod merge;
mod parser;
mod per_command;
mod report;
mod seconds;
mod subcommand;
mod suite;
mod summary;
mod values;

pub use capacity::{CAPACITY_EXIT_CODES, CapacityArgs, SearchArgs};
pub use compare::{CompareArgs, CompareFormat, CompareLayout};
pub use generate::{
    CompletionShell, CompletionsArgs, ManArgs, completions, man_page, man_pages_to,
};
pub use merge::{MergeArgs, MergeFormat};
pub use parser::Cli;
pub use per_command::{DEFAULT_COMMAND_KEY_PATTERN, DEFAULT_COMMAND_RATIO, place_per_command};
pub use report::ReportArgs;
pub use seconds::seconds_for;
pub use subcommand::{
    HelpArgs, Subcommand, command_line_error, help_text, subcommand_help, usage_error,
};
pub use suite::{SuiteArgs, suite_usage_error};
pub use summary::SUMMARY;
pub use values::{IoEngine, NumList, RequestsArg, RunsArg, SecsOrAuto};

/// Every exit code, as `--help` ends with it (docs/flags.md lists the same).
pub const EXIT_CODES: &str = "Exit codes: 0 a valid result; 1 a report could not be written, \
--max-errors stopped the run, or another failure; 2 bad input or a server that cannot be used, \
before any load; 3 the benchmark ran but its verdict says the result is not valid \
(kvbench.verdict; --allow-invalid exits 0); 4 a shard reached a --start-at boundary too late; \
130 / 143 interrupted by SIGINT / SIGTERM (reports still written).";

/// `-P/--protocol`'s names, as [`crate::protocol::wire::Protocol::name`] gives them.
pub const PROTOCOL_NAMES: [&str; 6] = [
    "redis",
    "resp2",
    "resp3",
    "memcache_text",
    "memcache_binary",
    "memcache_meta",
];

/// The benchmark's flags: the command line without a subcommand (in
/// [`Cli`], which adds the subcommands), and the flags `kvbench capacity` takes
/// beside its own ([`CapacityArgs`]). Names, short options and defaults follow
/// memtier_benchmark's `--help` so that existing scripts paste in unchanged;
/// defaults are applied in [`crate::config`] and shown here in the help text.
#[derive(Debug, Default, Clone, clap::Args, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Args {
    /// Read options from a TOML file whose keys are the long flag names; flags on
    /// the command line override the file
    #[arg(long, value_name = "FILE", help_heading = "Config")]
    #[serde(skip)]
    pub config: Option<PathBuf>,

    /// Server address [default: 127.0.0.1]
    #[arg(
        short = 's',
        long,
        visible_alias = "host",
        short_alias = 'h',
        help_heading = "Connection"
    )]
    pub server: Option<String>,
    /// Server port [default: 6379]
    #[arg(short = 'p', long, help_heading = "Connection")]
    pub port: Option<u16>,
    /// Connect through a UNIX socket instead of TCP
    #[arg(short = 'S', long, value_name = "PATH", help_heading = "Connection")]
    pub unix_socket: Option<PathBuf>,
    /// Resolve the server name to an IPv4 address only
    #[arg(short = '4', long, help_heading = "Connection")]
    #[serde(default)]
    pub ipv4: bool,
    /// Resolve the server name to an IPv6 address only
    #[arg(short = '6', long, help_heading = "Connection")]
    #[serde(default)]
    pub ipv6: bool,
    /// Server URI redis://[user:password@]host[:port][/db] (rediss:// for TLS); overrides -s, -p,
    /// -a and --select-db
    #[arg(short = 'u', long, help_heading = "Connection")]
    pub uri: Option<String>,
    /// Authenticate with PASSWORD or USER:PASSWORD (also read from KVBENCH_AUTH, which
    /// keeps it out of `ps`)
    #[arg(
        short = 'a',
        long,
        value_name = "CREDENTIALS",
        env = "KVBENCH_AUTH",
        hide_env_values = true,
        help_heading = "Connection"
    )]
    pub authenticate: Option<String>,
    /// Database number to SELECT after connecting [default: 0]
    #[arg(long, value_name = "DB", help_heading = "Connection")]
    pub select_db: Option<u32>,
    /// Protocol: redis (RESP2), resp2, resp3, memcache_text, memcache_binary, memcache_meta [default: redis]
    #[arg(
        short = 'P',
        long,
        help_heading = "Connection",
        hide_possible_values = true,
        // Its names, so that shell completion offers them.
        value_parser = clap::builder::PossibleValuesParser::new(PROTOCOL_NAMES)
    )]
    pub protocol: Option<String>,
    /// Seconds to wait for a connection and its handshake [default: 5]
    #[arg(long, value_name = "SECS", help_heading = "Connection")]
    pub connection_timeout: Option<f64>,
    /// Read the password (or USER:PASSWORD) from the first line of FILE
    #[arg(long, value_name = "FILE", help_heading = "Connection")]
    pub auth_file: Option<PathBuf>,

    /// Connect over TLS (rustls); the server's certificate is checked against the
    /// system's CAs or --cacert, and its name against --sni or the host name
    #[arg(long, help_heading = "TLS")]
    #[serde(default)]
    pub tls: bool,
    /// Client certificate chain (PEM) for mutual TLS; needs --key
    #[arg(long, value_name = "FILE", help_heading = "TLS")]
    pub cert: Option<PathBuf>,
    /// Private key (PEM) of --cert
    #[arg(long, value_name = "FILE", help_heading = "TLS")]
    pub key: Option<PathBuf>,
    /// CA certificates (PEM) that sign the server's certificate [default: the system's]
    #[arg(long, value_name = "FILE", help_heading = "TLS")]
    pub cacert: Option<PathBuf>,
    /// Accept any server certificate for any name: encrypted, but unauthenticated
    #[arg(long, help_heading = "TLS")]
    #[serde(default)]
    pub tls_skip_verify: bool,
    /// Server name sent in the TLS handshake and checked against the certificate
    /// [default: the host connected to]
    #[arg(long, value_name = "NAME", help_heading = "TLS")]
    pub sni: Option<String>,
    /// TLS versions to offer, comma-separated: TLSv1.2, TLSv1.3 [default: both]
    #[arg(long, value_name = "LIST", help_heading = "TLS")]
    pub tls_protocols: Option<String>,

    /// Drive a Redis Cluster from this seed node: discover its masters and
    /// route each request to the master of its key's slot (memtier's flag)
    #[arg(long, help_heading = "Cluster")]
    #[serde(default)]
    pub cluster_mode: bool,
    /// With --cluster-mode: MOVED/ASK redirects and retries one request may
    /// follow before it counts as an error, 1-1000 [default: 16]
    #[arg(long, value_name = "N", help_heading = "Cluster")]
    pub max_redirects: Option<u32>,
    /// With --cluster-mode: which nodes serve reads: primary, replica, any or
    /// nearest (each shard's node with the fastest PING at the start); with
    /// --read-server: replica, any or nearest [default: primary; replica with
    /// --read-server]
    #[arg(long, value_name = "FROM", help_heading = "Cluster")]
    pub read_from: Option<String>,

    /// Reconnect connections that break during a run (kvbench's default; memtier's flag)
    #[arg(long, help_heading = "Faults")]
    #[serde(default)]
    pub reconnect_on_error: bool,
    /// Do not reconnect: a broken connection stays closed for the rest of the run
    #[arg(long, help_heading = "Faults")]
    #[serde(default)]
    pub no_reconnect: bool,
    /// Reconnect attempts per outage before a connection gives up; 0 = no limit [default: 20]
    #[arg(long, value_name = "N", help_heading = "Faults")]
    pub max_reconnect_attempts: Option<u32>,
    /// Each reconnect waits this factor longer than the last (from 0.1 s, at most 5 s) [default: 2]
    #[arg(long, value_name = "F", help_heading = "Faults")]
    pub reconnect_backoff_factor: Option<f64>,
    /// Reconnect every connection after N requests, on purpose [default: 0 = never]
    #[arg(long, value_name = "N", help_heading = "Faults")]
    pub reconnect_interval: Option<u64>,
    /// Seconds a request may wait for its reply; then it counts as a timeout and its
    /// connection is reset [default: none]
    #[arg(long, value_name = "SECS", help_heading = "Faults")]
    pub request_timeout: Option<f64>,
    /// Stop the run cleanly once more than N errors (error replies, lost
    /// connections, timeouts) were counted [default: no limit]
    #[arg(long, value_name = "N", help_heading = "Faults")]
    pub max_errors: Option<u64>,
    /// A result whose error replies (or requests lost to timeouts and broken
    /// connections) exceed this percentage of the requests is not valid: exit code 3
    /// [default: 1]
    #[arg(long, value_name = "PERCENT", help_heading = "Faults")]
    pub max_error_share: Option<f64>,
    /// Exit 0 even when the verdict says the result is not valid (the reports
    /// still say it)
    #[arg(long, help_heading = "Faults")]
    #[serde(default)]
    pub allow_invalid: bool,

    /// Send a request again when its reply is a transient error (OOM, BUSY,
    /// LOADING, TRYAGAIN, …; see --retry-on); its latency runs from the first send
    #[arg(long, help_heading = "Retries")]
    #[serde(default)]
    pub retry_on_error: bool,
    /// Retries per request with --retry-on-error; -1 = no limit [default: 3; with
    /// --memtier-compat -1]
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        help_heading = "Retries"
    )]
    pub max_retries: Option<i64>,
    /// The error prefixes that are retried, e.g. OOM,BUSY,LOADING [default: every
    /// transient kind: OOM,LOADING,BUSY,READONLY,TRYAGAIN,CLUSTERDOWN,OTHER]
    #[arg(long, value_name = "PREFIX[,...]", help_heading = "Retries")]
    pub retry_on: Option<String>,
    /// Wait this long before sending a retry; new requests go on meanwhile
    /// [default: 0, at once]
    #[arg(
        long,
        value_name = "MS",
        allow_negative_numbers = true,
        help_heading = "Retries"
    )]
    pub retry_backoff_ms: Option<i64>,
    /// Each further retry of the same request waits this many times longer than
    /// the one before, at most 60 s [default: 1]
    #[arg(
        long,
        value_name = "F",
        allow_negative_numbers = true,
        help_heading = "Retries"
    )]
    pub retry_backoff_factor: Option<f64>,
    /// The most requests one connection holds waiting for a retry; an error reply
    /// beyond them is final [default: 10000]
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        help_heading = "Retries"
    )]
    pub max_retry_queue: Option<i64>,
    /// Append each request that finally failed (an error reply, retries spent) to
    /// FILE as CSV: timestamp,command,key,status,retries
    #[arg(long, value_name = "FILE", help_heading = "Retries")]
    pub failed_keys_file: Option<PathBuf>,
    /// Send each --command rotation as one transaction on one connection (one
    /// shard in --cluster-mode), every __key__ of it the same key; without a
    /// MULTI in the rotation, kvbench wraps it in MULTI … EXEC
    #[arg(long, help_heading = "Load")]
    #[serde(default)]
    pub transaction: bool,
    /// With one --command "SCAN 0 [MATCH p] [COUNT n] [TYPE t]": send SCAN 0,
    /// then SCAN with the cursor each reply returns until it is 0, then SCAN 0
    /// again; rows `SCAN 0` and `SCAN <cursor>`. Needs --pipeline 1
    #[arg(long, help_heading = "Load")]
    #[serde(default)]
    pub scan_incremental_iteration: bool,
    /// With --scan-incremental-iteration: at most N cursor-following SCANs per
    /// cycle, then SCAN 0 again; 0 follows the cursor until it is 0 [default: 0]
    #[arg(long, value_name = "N", help_heading = "Load")]
    pub scan_incremental_max_iterations: Option<u32>,

    /// Worker threads, each with its own event loop; a list (2,4) sweeps [default: 4]
    #[arg(short = 't', long, value_name = "N[,N...]", help_heading = "Load")]
    pub threads: Option<NumList>,
    /// Connections per thread; a list (10,50) sweeps [default: 50]
    #[arg(short = 'c', long, value_name = "N[,N...]", help_heading = "Load")]
    pub clients: Option<NumList>,
    /// Requests in flight per connection; a list (1,4,16,64) sweeps [default: 1]
    #[arg(long, value_name = "N[,N...]", help_heading = "Load")]
    pub pipeline: Option<NumList>,
    /// SET:GET ratio, e.g. 1:10, 1:0 (SET only), 0:1 (GET only); a list
    /// (1:0,0:1,1:1) sweeps [default: 1:10]
    #[arg(long, value_name = "SET:GET[,...]", help_heading = "Load")]
    pub ratio: Option<String>,
    /// A command to send instead of SET/GET, e.g. "HSET __key__ field __data__";
    /// repeat for a mix. Placeholders: __key__, __data__, __rand_int__
    #[arg(long, value_name = "CMD", action = ArgAction::Append, help_heading = "Load")]
    #[serde(default, deserialize_with = "values::one_or_many")]
    pub command: Option<Vec<String>>,
    /// Requests of each --command per cycle, one per command in their order
    /// (repeat the flag or give a list: 1,10) [default: 1 each]
    #[arg(long, value_name = "N[,N...]", action = ArgAction::Append, help_heading = "Load")]
    #[serde(default, deserialize_with = "values::one_or_many")]
    pub command_ratio: Option<Vec<String>>,
    /// Key pattern of each --command (S, R, G, Z, P), one per command in their
    /// order (repeat the flag or give a list: R,S) [default: R each]
    #[arg(long, value_name = "P[,P...]", action = ArgAction::Append, help_heading = "Load")]
    #[serde(default, deserialize_with = "values::one_or_many")]
    pub command_key_pattern: Option<Vec<String>>,
    /// Report rows per command name (command) or per --command line (line) [default: command]
    #[arg(long, value_name = "HOW", help_heading = "Output")]
    pub command_stats_breakdown: Option<String>,
    /// With a sweep: warm up before every cell (each) or only the first (first) [default: each]
    #[arg(long, value_name = "WHEN", help_heading = "Load")]
    pub sweep_warmup: Option<String>,
    /// Requests per client per run, or `allkeys` to cover the key range once [default: 10000]
    #[arg(short = 'n', long, value_name = "N|allkeys", help_heading = "Load")]
    pub requests: Option<RequestsArg>,
    /// Seconds per run, at least 1; replaces --requests. `auto`: each run
    /// lasts until the --target-precision figures are known that well, at
    /// most --max-test-time
    #[arg(long, value_name = "SECS", help_heading = "Load")]
    pub test_time: Option<SecsOrAuto>,
    /// `--test-time auto`: the longest run, seconds [default: 600]
    #[arg(long, value_name = "SECS", help_heading = "Load")]
    pub max_test_time: Option<f64>,
    /// The 95 % interval a figure must reach: ops (ops/sec), a printed
    /// percentile of all ops (p99) or of one op (SET:p99), as a percentage
    /// of the figure: p99=5%.
    /// With --test-time auto the run lasts until each is met; a run that
    /// misses one is not valid (imprecise)
    #[arg(long, value_name = "FIGURE=PCT", action = ArgAction::Append, help_heading = "Load")]
    #[serde(default, deserialize_with = "values::one_or_many")]
    pub target_precision: Option<Vec<String>>,
    /// Number of measured runs [default: 1]; `auto`: runs until the median
    /// run's --target-precision figures are known that well, 6 to
    /// --max-run-count
    #[arg(short = 'x', long, value_name = "N", help_heading = "Load")]
    pub run_count: Option<RunsArg>,
    /// `-x auto`: the most runs [default: 30]
    #[arg(long, value_name = "N", help_heading = "Load")]
    pub max_run_count: Option<u32>,
    /// Seconds of warm-up traffic before the first run, reported apart, or
    /// `auto`: until the per-second throughput and p99 are steady [default: 0]
    #[arg(long, value_name = "SECS", help_heading = "Load")]
    pub warmup_time: Option<SecsOrAuto>,
    /// `--warmup-time auto`: the longest warm-up, seconds [default: 180]
    #[arg(long, value_name = "SECS", help_heading = "Load")]
    pub warmup_max: Option<f64>,
    /// The last seconds of a warm-up tested for a trend [default: 10]
    #[arg(long, value_name = "SECS", help_heading = "Load")]
    pub warmup_window: Option<u64>,
    /// Write every key of --key-minimum..--key-maximum once (pipelined SETs, all
    /// threads) before the warm-up and the runs, so that GETs can hit
    #[arg(long, help_heading = "Load")]
    #[serde(default)]
    pub prefill: bool,
    /// Open loop: send this many requests per second in total, on schedule, and
    /// measure response time from each request's intended send time
    #[arg(long, value_name = "OPS", help_heading = "Load")]
    pub rate: Option<f64>,
    /// memtier's per-connection cap: at most N requests per second per connection,
    /// latency measured from the actual send (service time), as in memtier
    #[arg(long, value_name = "OPS", help_heading = "Load")]
    pub rate_limiting: Option<f64>,
    /// Gaps between intended send times with --rate: constant or poisson [default: constant]
    #[arg(long, value_name = "KIND", help_heading = "Load")]
    pub arrival: Option<String>,

    /// This machine's shard of a multi-machine run, from 0 (with --shard-count)
    /// [default: from the launcher: JOB_COMPLETION_INDEX, SLURM_PROCID, ...]
    #[arg(long, value_name = "I", help_heading = "Shards")]
    pub shard_index: Option<u32>,
    /// How many shards the run has; keys, --prefill and --rate are split among them
    #[arg(long, value_name = "N", help_heading = "Shards")]
    pub shard_count: Option<u32>,
    /// Start the first phase at T: epoch seconds, RFC 3339 (2026-12-01T10:30:00Z),
    /// +30s from now, or barrier (the shards agree on T on the server, with --run-id);
    /// later phases start at fixed boundaries after it
    #[arg(long, value_name = "T", help_heading = "Shards")]
    pub start_at: Option<String>,
    /// Seconds a shard may reach a planned start late before it stops (exit 4) [default: 1]
    #[arg(long, value_name = "SECS", help_heading = "Shards")]
    pub start_tolerance: Option<f64>,
    /// With --start-at: seconds between one run's planned end and the next's start [default: 5]
    #[arg(long, value_name = "SECS", help_heading = "Shards")]
    pub run_gap: Option<f64>,
    /// With --start-at barrier: the id every shard of the run shares
    /// [default: KVBENCH_RUN_ID, or SLURM_JOB_ID.SLURM_STEP_ID]
    #[arg(long, value_name = "ID", help_heading = "Shards")]
    pub run_id: Option<String>,
    /// With --start-at barrier: seconds a shard waits for the others (exit 4) [default: 300]
    #[arg(long, value_name = "SECS", help_heading = "Shards")]
    pub barrier_timeout: Option<f64>,
    /// With --start-at barrier: the server the shards meet on, and measure
    /// their clocks against: redis://[user:pass@]host:port (rediss://,
    /// memcached://) [default: the target; name one backend behind a balancer]
    #[arg(long, value_name = "URI", help_heading = "Shards")]
    pub barrier_server: Option<String>,
    /// Watch a component behind the target, each second and around each phase:
    /// redis://[user:pass@]host:port (or rediss://, memcached://) a backend shard,
    /// node://host:port a Prometheus node exporter (a host's CPU and network),
    /// twemproxy://host:port a proxy's stats port; repeatable. Shard 0 samples them
    #[arg(long, value_name = "URI", action = ArgAction::Append, help_heading = "Shards")]
    #[serde(default, deserialize_with = "values::one_or_many")]
    pub watch: Option<Vec<String>>,

    /// Prefix of every key [default: memtier-]
    #[arg(long, value_name = "PREFIX", help_heading = "Keys")]
    pub key_prefix: Option<String>,
    /// Smallest key number [default: 0]
    #[arg(long, value_name = "N", help_heading = "Keys")]
    pub key_minimum: Option<u64>,
    /// Largest key number [default: 10000000]
    #[arg(long, value_name = "N", help_heading = "Keys")]
    pub key_maximum: Option<u64>,
    /// SET:GET key patterns: S sequential, R uniform, G gaussian, P parallel slices,
    /// Z zipfian (P(k) ∝ k^-exp over the key numbers) [default: R:R]
    #[arg(long, value_name = "SET:GET", help_heading = "Keys")]
    pub key_pattern: Option<String>,
    /// Centre of the G pattern [default: middle of the range]
    #[arg(long, value_name = "N", help_heading = "Keys")]
    pub key_median: Option<f64>,
    /// Standard deviation of the G pattern [default: range / 6]
    #[arg(long, value_name = "N", help_heading = "Keys")]
    pub key_stddev: Option<f64>,
    /// Exponent of the Z pattern, in (0, 5) as in memtier [default: 1]
    #[arg(long, value_name = "EXP", help_heading = "Keys")]
    pub key_zipf_exp: Option<f64>,

    /// Value size in bytes; a list (32,1024) sweeps [default: 32]
    #[arg(short = 'd', long, value_name = "BYTES[,...]", help_heading = "Values")]
    pub data_size: Option<NumList>,
    /// Value sizes drawn uniformly from MIN-MAX bytes
    #[arg(long, value_name = "MIN-MAX", help_heading = "Values")]
    pub data_size_range: Option<String>,
    /// Weighted value sizes SIZE:WEIGHT,SIZE:WEIGHT,...
    #[arg(long, value_name = "LIST", help_heading = "Values")]
    pub data_size_list: Option<String>,
    /// Random value bytes instead of a constant filler
    #[arg(short = 'R', long, help_heading = "Values")]
    #[serde(default)]
    pub random_data: bool,
    /// With --data-size-range: R draws each size at random, S spreads the sizes
    /// evenly over the key range (memtier's flag) [default: R]
    #[arg(long, value_name = "R|S", help_heading = "Values")]
    pub data_size_pattern: Option<String>,
    /// Write each value at this byte offset with SETRANGE and read it back with
    /// GETRANGE (memtier's flag) [default: 0, SET and GET]
    #[arg(long, value_name = "BYTES", help_heading = "Values")]
    pub data_offset: Option<u32>,
    /// Give each SET a random expiry in MIN-MAX seconds (SET ... EX n; a drawn 0
    /// sets none, as memtier)
    #[arg(long, value_name = "MIN-MAX", help_heading = "Values")]
    pub expiry_range: Option<String>,
    /// Send GETs as MGETs of up to N keys, the GETs of a --ratio cycle being keys
    /// (memtier's flag)
    #[arg(long, value_name = "N", help_heading = "Load")]
    pub multi_key_get: Option<u32>,
    /// SET:WAIT ratio: WAIT numreplicas timeout after the SETs (memtier's flag)
    #[arg(long, value_name = "SET:WAIT", help_heading = "WAIT")]
    pub wait_ratio: Option<String>,
    /// With --wait-ratio: each WAIT's replica count, drawn uniformly from MIN-MAX
    /// [default: 0-0]
    #[arg(long, value_name = "MIN-MAX", help_heading = "WAIT")]
    pub num_slaves: Option<String>,
    /// With --wait-ratio: each WAIT's timeout in ms, drawn from a normal
    /// distribution centred on MIN-MAX's middle, as memtier [default: 0-0]
    #[arg(long, value_name = "MIN-MAX", help_heading = "WAIT")]
    pub wait_timeout: Option<String>,

    /// Staircase ramp-up: connections each thread opens at the start, before
    /// --clients-step more every --step-duration seconds up to -c (memtier's
    /// flag; needs --test-time and the other two)
    #[arg(long, value_name = "N", help_heading = "Ramp")]
    pub clients_start: Option<u32>,
    /// Staircase ramp-up: connections each thread adds per step
    #[arg(long, value_name = "N", help_heading = "Ramp")]
    pub clients_step: Option<u32>,
    /// Staircase ramp-up: seconds of each step
    #[arg(long, value_name = "SECS", help_heading = "Ramp")]
    pub step_duration: Option<u32>,
    /// Least pause in microseconds between two connections a thread opens
    /// (memtier's flag) [default: 0]
    #[arg(long, value_name = "MICROS", help_heading = "Ramp")]
    pub thread_conn_start_min_jitter_micros: Option<u32>,
    /// Longest pause in microseconds between two connections a thread opens,
    /// each pause drawn uniformly from min..=max (memtier's flag) [default: 0]
    #[arg(long, value_name = "MICROS", help_heading = "Ramp")]
    pub thread_conn_start_max_jitter_micros: Option<u32>,
    /// Write each connection's per-second counts to
    /// FILE-RUN-THREAD-CLIENT.csv, as memtier's per-client stats files
    #[arg(long, value_name = "FILE", help_heading = "Ramp")]
    pub client_stats: Option<PathBuf>,
    /// Debug lines on stderr: connections opened, phases, ramp steps (no
    /// per-request lines)
    #[arg(short = 'D', long, action = ArgAction::Count, help_heading = "Ramp")]
    #[serde(default)]
    pub debug: u8,
    /// Load keys, values and expiries from FILE (e.g. items.csv), memtier's
    /// import format (a CSV with the header "dumpflags, time, exptime, ..."):
    /// SETs walk its items in order, GETs draw item numbers by --key-pattern
    #[arg(long, value_name = "FILE", help_heading = "Data import")]
    pub data_import: Option<PathBuf>,
    /// With --data-import: after the run, GET every imported key and compare its
    /// value (exit code 1 when a key failed)
    #[arg(long, help_heading = "Data import")]
    #[serde(default)]
    pub data_verify: bool,
    /// With --data-import: only verify the server's values, without a run
    #[arg(long, help_heading = "Data import")]
    #[serde(default)]
    pub verify_only: bool,
    /// With --data-import: keys from --key-prefix and the key range, values from
    /// the file (key number k takes the file's item (k - min) mod items + 1)
    #[arg(long, help_heading = "Data import")]
    #[serde(default)]
    pub generate_keys: bool,
    /// With --data-import: ignore the file's expiry times
    #[arg(long, help_heading = "Data import")]
    #[serde(default)]
    pub no_expiry: bool,
    /// Read commands from a Redis MONITOR capture (e.g. monitor.txt); --command "__monitor_line3__"
    /// sends its third command, "__monitor_line@__" one of its commands per
    /// request (see --monitor-pattern)
    #[arg(long, value_name = "FILE", help_heading = "Data import")]
    pub monitor_input: Option<PathBuf>,
    /// How "__monitor_line@__" picks commands: S in file order, R at random
    /// [default: S]
    #[arg(long, value_name = "S|R", help_heading = "Data import")]
    pub monitor_pattern: Option<String>,

    /// Write the JSON report to FILE (atomically, after every run)
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub json_out_file: Option<PathBuf>,
    /// Write the HTML report (inline SVG charts, no script) to FILE (atomically,
    /// after every run, as the JSON)
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub html_out_file: Option<PathBuf>,
    /// Write HdrHistogram files per run under memtier's names, e.g. PREFIX_FULL_RUN_1.txt
    /// (percentile distribution), PREFIX_SET_command_run_1.hgrm (whole-run log) and
    /// kvbench's PREFIX_GET_command_run_1.hlog (per-second interval log)
    #[arg(long, value_name = "PREFIX", help_heading = "Output")]
    pub hdr_file_prefix: Option<PathBuf>,
    /// Reset the server's SLOWLOG before each run and report its entries after
    #[arg(long, help_heading = "Output")]
    #[serde(default)]
    pub slowlog: bool,
    /// Write the text report to FILE instead of stdout
    #[arg(short = 'o', long, value_name = "FILE", help_heading = "Output")]
    pub out_file: Option<PathBuf>,
    /// Latency percentiles to report [default: 50,99,99.9]
    #[arg(long, value_name = "LIST", help_heading = "Output")]
    pub print_percentiles: Option<String>,
    /// Leave warnings of KIND (as the JSON's `kind` names it, e.g. short_run)
    /// out of the text report and stderr; repeatable. The JSON still lists them
    #[arg(long, value_name = "KIND", action = ArgAction::Append, help_heading = "Output")]
    #[serde(default, deserialize_with = "values::one_or_many")]
    pub no_warning: Option<Vec<String>>,
    /// Leave the latency distribution out of the text report and the per-op
    /// distribution arrays (SET, GET, WAIT) out of the JSON, as memtier does
    #[arg(long, help_heading = "Output")]
    #[serde(default)]
    pub hide_histogram: bool,
    /// Without a terminal, a plain progress line on stderr after each phase's
    /// first second, then every SECS seconds, so a log shows the run is alive;
    /// 0 prints none [default: 10]
    #[arg(long, value_name = "SECS", help_heading = "Output")]
    pub progress_interval: Option<f64>,
    /// Print the effective configuration before running
    #[arg(long, help_heading = "Output")]
    #[serde(default)]
    pub show_config: bool,
    /// Master seed; the same seed gives the same key sequences [default: random, reported]
    #[arg(long, value_name = "N", help_heading = "Output")]
    pub seed: Option<u64>,
    /// With --memtier-compat: each connection its own seed (memtier's meaning);
    /// without it kvbench always gives every connection its own seed
    #[arg(long, help_heading = "Output")]
    #[serde(default)]
    pub distinct_client_seed: bool,
    /// With --memtier-compat: a random master seed instead of memtier's constant
    /// one; without it kvbench's seed is random unless --seed is given
    #[arg(long, help_heading = "Output")]
    #[serde(default)]
    pub randomize: bool,
    /// Write every run's results as well as the best, worst and aggregate (kvbench
    /// always does; accepted so memtier command lines paste in)
    #[arg(long, help_heading = "Output")]
    #[serde(default)]
    pub print_all_runs: bool,
    /// On a terminal too, memtier's text layout: its tables unstacked and its
    /// latency distribution printed, the verdict and warnings above it (by
    /// default a terminal gets the tables stacked to fit, no distribution, and
    /// the verdict, headline and warnings last; a file or pipe always gets
    /// memtier's layout)
    #[arg(long, help_heading = "Output")]
    #[serde(default)]
    pub memtier_layout: bool,
    /// On a terminal, keep each row of kvbench's own tables (a sweep's
    /// summary) on one line however wide; by default they are stacked to fit
    /// the terminal. memtier's table is never changed
    #[arg(long, help_heading = "Output")]
    #[serde(default)]
    pub wide: bool,
    /// Restore every memtier_benchmark semantic that kvbench changes on purpose
    /// (seeds, reconnects, timeouts, key range sharing), to reproduce a memtier
    /// baseline; see docs/memtier-compat.md
    #[arg(long, help_heading = "Compat")]
    #[serde(default)]
    pub memtier_compat: bool,

    /// How worker threads drive their sockets: epoll (readiness, a read and a
    /// write per connection and wake-up) or uring (io_uring: every
    /// connection's sends and multishot receives in one system call per
    /// wake-up; Linux 6.0+, plain TCP and UNIX sockets, no TLS yet)
    /// [default: epoll]
    #[arg(
        long,
        value_name = "ENGINE",
        env = "KVBENCH_IO_ENGINE",
        hide_env_values = true,
        help_heading = "Threads"
    )]
    pub io_engine: Option<IoEngine>,
    /// CPUs to pin worker threads to, e.g. 0-3 or 0,2,4 [default: all the process may use]
    #[arg(long, value_name = "LIST", help_heading = "Threads")]
    pub cpus: Option<String>,
    /// Do not pin worker threads to CPUs
    #[arg(long, help_heading = "Threads")]
    #[serde(default)]
    pub no_pin: bool,

    /// Serve Prometheus / OpenMetrics text at http://ADDR:PORT/metrics during the
    /// run, e.g. 127.0.0.1:9464 (docs/metrics.md)
    #[arg(long, value_name = "ADDR:PORT", help_heading = "Live metrics")]
    pub metrics_listen: Option<String>,
    /// With --metrics-listen: keep serving the final values this many seconds
    /// after the run, so that a scraper gets them [default: 0]
    #[arg(long, value_name = "SECS", help_heading = "Live metrics")]
    pub metrics_linger: Option<f64>,
    /// Send memtier's StatsD metrics over UDP to HOST once a second [default: off]
    #[arg(long, value_name = "HOST", help_heading = "Live metrics")]
    pub statsd_host: Option<String>,
    /// UDP port of --statsd-host [default: 8125]
    #[arg(long, value_name = "PORT", help_heading = "Live metrics")]
    pub statsd_port: Option<u16>,
    /// First part of every StatsD metric name [default: memtier]
    #[arg(long, value_name = "PREFIX", help_heading = "Live metrics")]
    pub statsd_prefix: Option<String>,
    /// Second part of every StatsD metric name, to tell runs apart [default: default]
    #[arg(long, value_name = "LABEL", help_heading = "Live metrics")]
    pub statsd_run_label: Option<String>,

    /// Print a one-screen summary of the flags people use; `kvbench help all`
    /// prints every flag (this text)
    #[arg(long, help_heading = "Info")]
    #[serde(skip)]
    pub help: bool,
    /// Print version
    #[arg(short = 'v', long, action = ArgAction::Version, help_heading = "Info")]
    #[serde(skip)]
    pub version: Option<bool>,

    /// memtier 2.4's read routing, onto --read-from (with --cluster-mode or
    /// --read-server): primary, secondary or secondaryPreferred (replica), or
    /// nearest (the node of each shard that answered PING fastest at the
    /// start) [default: primary]
    #[arg(long, value_name = "MODE", help_heading = "memtier 2.4")]
    pub read_preference: Option<String>,
    /// memtier 2.4's Prometheus endpoint: --metrics-listen on
    /// --prometheus-bind-addr:PORT [default: off]
    #[arg(long, value_name = "PORT", help_heading = "memtier 2.4")]
    pub prometheus_port: Option<u16>,
    /// The address --prometheus-port binds, numeric as memtier takes it
    /// [default: 127.0.0.1]
    #[arg(long, value_name = "ADDR", help_heading = "memtier 2.4")]
    pub prometheus_bind_addr: Option<String>,
    /// memtier 2.4's bound on connection setup (connect, TLS, AUTH, HELLO,
    /// SELECT, cluster discovery), onto --connection-timeout; 0 waits without
    /// bound [default: --connection-timeout's]
    #[arg(long, value_name = "SECS", help_heading = "memtier 2.4")]
    pub connection_stage_timeout: Option<f64>,
    /// Warn (kind miss_rate_above_threshold) when the GET miss rate of the
    /// measured runs is above PERCENT, 0-100 [default: off]
    #[arg(long, value_name = "PERCENT", help_heading = "memtier 2.4")]
    pub miss_rate_threshold: Option<f64>,
    /// With --statsd-host: POST memtier's Graphite event annotations
    /// ("Benchmark Started", "Benchmark Completed") to http://STATSD-HOST:PORT/events/
    /// [default: none sent]
    #[arg(long, value_name = "PORT", help_heading = "memtier 2.4")]
    pub graphite_port: Option<u16>,
    /// Once a second, print the second's throughput, GET miss rate and every
    /// --print-percentiles latency on stderr, each beside its phase average
    #[arg(long, help_heading = "memtier 2.4")]
    #[serde(default)]
    pub realtime_latencies: bool,

    /// With --read-preference secondary: where a read goes when its shard
    /// has no replica; kvbench serves it from the master (memtier's primary)
    /// [default: primary]
    #[arg(long, value_name = "MODE", help_heading = "memtier 2.5")]
    pub read_preference_fallback: Option<String>,
    /// memtier 2.5's standalone read endpoint (a replica, a reader
    /// endpoint): writes go to --server/--port, reads to HOST:PORT (no
    /// READONLY, no discovery)
    #[arg(long, value_name = "HOST:PORT", action = ArgAction::Append, help_heading = "memtier 2.5")]
    #[serde(default, deserialize_with = "values::one_or_many")]
    pub read_server: Option<Vec<String>>,
    /// auto counts hits and misses of --command rows by their reply (GET-like
    /// commands, MGET per key, collections, EXISTS); off counts none
    /// [default: auto]
    #[arg(long, value_name = "MODE", help_heading = "memtier 2.5")]
    pub command_miss_tracking: Option<String>,
    /// With --metrics-listen (or --prometheus-port): a KEY=VALUE label on
    /// every series; repeat for more
    #[arg(long, value_name = "KEY=VALUE", action = ArgAction::Append, help_heading = "memtier 2.5")]
    #[serde(default, deserialize_with = "values::one_or_many")]
    pub prometheus_run_label: Option<Vec<String>>,
    /// With --metrics-listen (or --prometheus-port): the latency histogram's
    /// upper bounds, seconds, ascending, e.g. 0.001,0.005,0.05 [default: 10 µs to 10 s]
    #[arg(long, value_name = "LIST", help_heading = "memtier 2.5")]
    pub prometheus_latency_buckets: Option<String>,
    /// With --realtime-latencies: a latency line over the last SECS seconds
    /// each second, 1-3600; 0 prints none [default: 0, 60 with --memtier-compat]
    #[arg(long, value_name = "SECS", help_heading = "memtier 2.5")]
    pub latency_window: Option<u32>,
}

#[cfg(test)]
mod tests;
