//! What we built from what the user typed: a validated [`Config`].
//!
//! [`Config::from_args`] merges a `--config` TOML file under the command line,
//! applies memtier_benchmark's defaults and checks every value before any
//! connection opens. Each rejection is a [`UsageError`] naming the flag and the fix;
//! `main` exits 2 for it.
//!
//! The subcommands get the same treatment: [`SuitePlan::from_args`] (one
//! `Config` per redis-benchmark test), [`CompareOptions`] and
//! [`ReportOptions`], so the modules that run them never see clap's structs.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

mod bounds;
pub mod capacity;
mod choices;
pub mod cluster;
mod commands;
mod compat;
mod config_file;
mod connection;
mod data;
mod file_values;
pub mod import;
pub mod io_engine;
mod load;
pub mod memtier24;
pub mod memtier25;
pub mod metrics;
mod monitor;
mod output;
mod pair;
pub mod precision;
pub mod ramp;
pub mod read_server;
pub mod retry;
mod scan;
pub mod shard;
pub mod start_at;
pub mod suite;
pub mod sweep;
pub mod target;
pub mod tls;
mod tls_key;
mod tools;
mod transaction;
pub mod warmup;
mod warning_kind;
pub mod watch;

use crate::cli::Args;
use crate::config::target::Target;
use crate::error::UsageError;
use crate::protocol::wire::Protocol;
use crate::workload::keys::{KeyPattern, KeyRange};
use crate::workload::mix::Ratio;
use crate::workload::ops::OpTable;
use crate::workload::values::SizeSpec;
use bounds::seconds;
pub use choices::{Arrival, FaultPolicy, FlagSet, Headline, Missed, Pinning, Rate, Stop};
pub use cluster::{ClusterOptions, ReadFrom};
pub use compat::{MEMTIER_CONSTANT_SEED, NO_CONNECT_TIMEOUT, RangeSharing, Seeding, Semantics};
use compat::{build_seed, build_semantics};
use config_file::{merge, read_config_file};
use connection::{build_target, tls_settings};
use data::build_keys;
pub use import::{DataImport, Verify};
pub use load::MAX_PIPELINE;
use load::{build_faults, build_rate, build_stop, build_sweep};
pub use metrics::{LiveMetrics, StatsdTarget};
pub use output::InputFile;
pub(crate) use output::parse_cpu_list;
use output::{build_output, build_pinning};
pub use precision::PrecisionPlan;
pub use read_server::ReadServer;
pub use shard::{Shard, ShardSource};
use shard::{build_shard, hostname};
pub use start_at::StartAt;
use start_at::build_start;
pub use suite::SuitePlan;
pub use sweep::{Cell, Sweep};
pub use tools::{
    CompareFormat, CompareLayout, CompareOptions, MergeFormat, MergeOptions, ReportOptions,
    table_width,
};
use warmup::WarmupPlan;
pub use warning_kind::WarningKind;

/// The key space: names, range and the per-op access patterns.
#[derive(Debug, Clone, PartialEq)]
pub struct KeySpace {
    /// `--key-prefix`.
    pub prefix: String,
    /// `--key-minimum ..= --key-maximum`.
    pub range: KeyRange,
    /// Pattern of SET keys.
    pub set_pattern: KeyPattern,
    /// Pattern of GET keys.
    pub get_pattern: KeyPattern,
    /// The letters as typed, e.g. `R:R`, for reports.
    pub pattern_letters: String,
}

impl KeySpace {
    /// True for `P:P`, the one pair memtier divides `-n allkeys` among its
    /// clients for.
    pub fn both_parallel(&self) -> bool {
        self.set_pattern == KeyPattern::Parallel && self.get_pattern == KeyPattern::Parallel
    }
}

/// Where results go.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// `--json-out-file`.
    pub json_out_file: Option<PathBuf>,
    /// `--html-out-file`.
    pub html_out_file: Option<PathBuf>,
    /// `-o/--out-file`; `None` is stdout.
    pub out_file: Option<PathBuf>,
    /// `--print-percentiles`, each in (0, 100].
    pub percentiles: Vec<f64>,
    /// `--hide-histogram`.
    pub hide_histogram: bool,
    /// `--hdr-file-prefix`.
    pub hdr_file_prefix: Option<PathBuf>,
    /// `--slowlog`.
    pub slowlog: bool,
    /// `--show-config`.
    pub show_config: bool,
    /// `--print-all-runs` (kvbench writes every run either way; reported in the
    /// JSON's `configuration` as memtier does).
    pub print_all_runs: bool,
    /// `--wide`: kvbench's own tables one line per row on a terminal too.
    pub wide: bool,
    /// `--memtier-layout` (or `--memtier-compat`): memtier's text layout on a
    /// terminal too.
    pub memtier_layout: bool,
    /// The files the benchmark reads, which no output may name.
    pub inputs: Vec<InputFile>,
}

/// A complete, validated benchmark configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Server, credentials, database.
    pub target: Target,
    /// Worker threads.
    pub threads: usize,
    /// Connections per thread.
    pub clients: usize,
    /// Requests in flight per connection.
    pub pipeline: usize,
    /// SET:GET mix.
    pub ratio: Ratio,
    /// What is sent: the SET/GET pair (weighted by `ratio`) or `--command` lines.
    pub ops: Arc<OpTable>,
    /// When each run ends.
    pub stop: Stop,
    /// Measured runs.
    pub run_count: u32,
    /// The 95 % intervals the runs must reach (`--target-precision`), and
    /// whether a run lasts until they do (`--test-time auto`).
    pub precision: PrecisionPlan,
    /// Warm-up before the first run (with `--warmup-time auto`, its
    /// longest, `--warmup-max`); zero means none.
    pub warmup: Duration,
    /// How the warm-up ends and the window its trend is judged on.
    pub warmup_plan: WarmupPlan,
    /// Open-loop schedule; `None` is a closed loop.
    pub rate: Option<Rate>,
    /// What the headline latency measures.
    pub headline: Headline,
    /// `--prefill`: write the whole key range once before anything else.
    pub prefill: bool,
    /// Keys.
    pub keys: KeySpace,
    /// Value sizes.
    pub values: SizeSpec,
    /// `-R`: random value bytes.
    pub random_data: bool,
    /// Reports.
    pub output: Output,
    /// Master seed from which every thread and connection seed derives.
    pub seed: u64,
    /// CPU placement.
    pub pinning: Pinning,
    /// `--io-engine`: epoll or io_uring.
    pub io_engine: io_engine::IoEngine,
    /// Reconnects, timeouts, the error budget.
    pub faults: FaultPolicy,
    /// Swept values (single values when nothing is swept); the fields above hold
    /// the first cell's.
    pub sweep: Sweep,
    /// kvbench's semantics or memtier's (`--memtier-compat`).
    pub semantics: Semantics,
    /// `--cluster-mode`: route by slot over every master; `None` for one server.
    pub cluster: Option<ClusterOptions>,
    /// `--read-server`: reads to a standalone read endpoint, writes to the
    /// target; `None` otherwise (always `None` with `--cluster-mode`).
    pub read_server: Option<ReadServer>,
    /// This machine's shard of a multi-machine run; `None` on one machine.
    pub shard: Option<Shard>,
    /// `--start-at`: when the phases start; `None` starts at once.
    pub start_at: Option<StartAt>,
    /// This machine's name, for reports and `{host}` in file names.
    pub host: String,
    /// `--progress-interval`: without a terminal, a progress line this often;
    /// `None` (0) prints none.
    pub progress_interval: Option<Duration>,
    /// `--no-warning`: kinds left out of the text report and stderr.
    pub silenced_warnings: Vec<WarningKind>,
    /// `--metrics-listen` and `--statsd-*`: who watches the run live.
    pub metrics: LiveMetrics,
    /// memtier's staircase, connection jitter, client stats and debug lines.
    pub ramp: ramp::Ramp,
    /// `--data-import`: memtier's import file and what to verify of it.
    pub import: Option<DataImport>,
    /// `--miss-rate-threshold`: the GET miss rate, %, above which a warning says so.
    pub miss_rate_threshold: Option<f64>,
    /// `--realtime-latencies`: the per-second latency block on stderr.
    pub realtime_latencies: bool,
    /// `--latency-window`: with `--realtime-latencies`, the seconds of the
    /// sliding-window latency line; `None` prints none.
    pub latency_window: Option<u32>,
    /// `--retry-on-error`: which error replies are sent again, how often.
    pub retry: Option<retry::RetryPolicy>,
    /// `--failed-keys-file`: where the requests that finally failed are appended.
    pub failed_keys_file: Option<PathBuf>,
    /// `--watch`: the components behind the target that this machine samples
    /// (empty on every shard but shard 0, which samples them for the set).
    pub watch: Vec<watch::Watch>,
    /// The first `--watch redis://` of the run, on every shard: the clock
    /// its machines measure their offsets against when the target (a
    /// proxy) refuses `TIME`.
    pub clock_source: Option<Target>,
    /// `--barrier-server`: where `--start-at barrier` meets, and the clock
    /// every shard measures its offset against; `None` is the target.
    pub barrier_server: Option<Target>,
    /// Whose flags the warnings' advice names.
    pub flags: FlagSet,
}

/// How long a request-bound phase (`-n`, `-n allkeys`, the prefill) waits
/// without any reply before it ends, when `--request-timeout` does not say:
/// long enough for a server's fork or a slow disk, short enough that a server
/// which took the requests and never answers does not hold the run for ever.
pub const DEFAULT_STALL_LIMIT: Duration = Duration::from_secs(10);

impl Config {
    /// Total connections of the run.
    pub fn connections(&self) -> usize {
        self.threads * self.clients
    }

    /// How long a worker of a phase that ends at `stop` waits without any
    /// reply before it stops the phase: `--request-timeout`, else
    /// [`DEFAULT_STALL_LIMIT`], for request-bound phases; `None` for timed
    /// phases, which their deadline bounds.
    pub fn stall_limit(&self, stop: Stop) -> Option<Duration> {
        match stop {
            Stop::Time(_) => None,
            Stop::Requests(_) | Stop::AllKeys => {
                Some(self.faults.request_timeout.unwrap_or(DEFAULT_STALL_LIMIT))
            }
        }
    }

    /// How requests are routed over nodes: `--cluster-mode`'s options, or a
    /// `--read-server` run's (one shard, its replica the read endpoint);
    /// `None` for one server.
    pub fn routing(&self) -> Option<ClusterOptions> {
        self.cluster.or_else(|| {
            self.read_server.as_ref().map(|r| ClusterOptions {
                read_from: r.read_from,
                ..ClusterOptions::default()
            })
        })
    }

    /// Reads `--config` if given, lays the command line over it, applies defaults
    /// and validates everything.
    pub fn from_args(cli: Args) -> Result<Config, UsageError> {
        let merged = match &cli.config {
            Some(path) => merge(read_config_file(path)?, cli)?,
            None => cli,
        };
        build(merged)
    }
}

fn build(a: Args) -> Result<Config, UsageError> {
    memtier25::check_read_routing(&a)?;
    let mut a = memtier24::translate(a)?;
    // Before the key range is built: an import without --generate-keys sets it.
    let import = import::build_import(&mut a)?;
    let mut sweep = build_sweep(&a)?;
    let shard = build_shard(&a)?;
    // Slices of the key range are cut for the connections of every shard.
    let all_connections = sweep.max_connections() * shard.map_or(1, |s| s.count as usize);
    let keys = build_keys(&a, all_connections)?;
    pair::apply_size_pattern(&a, keys.range, &mut sweep.data_sizes)?;
    shard::check_prefill_slices(shard, sweep.max_connections(), keys.range, a.prefill)?;
    if a.rate_limiting.is_some() && (sweep.threads.len() > 1 || sweep.clients.len() > 1) {
        return Err(UsageError::new(
            "--rate-limiting",
            "is per connection, and the sweep changes the connection count; give the total with --rate",
        ));
    }
    let target = build_target(&a)?;
    let watches = watch::build_watches(
        a.watch.as_deref().unwrap_or_default(),
        &target,
        &tls_settings(&a)?,
    )?;
    let io_engine = io_engine::build_io_engine(a.io_engine, &target)?;
    let commands = a.command.as_ref().is_some_and(|c| !c.is_empty());
    transaction::check(&a, commands)?;
    let retry = retry::build_retry(&a, target.protocol)?;
    let failed_keys_file = retry::build_failed_keys(&a)?;
    let pair = pair::build_pair(&a, target.protocol, commands, sweep.ratios.len() > 1)?;
    let resp = !matches!(
        target.protocol,
        Protocol::MemcacheText | Protocol::MemcacheBinary
    );
    let capture = monitor::load(&a, resp)?;
    let scan = scan::build_scan(&a, target.protocol, &sweep.pipelines)?;
    let mut table = commands::build_ops(
        &a,
        &keys,
        sweep.ratios[0],
        all_connections,
        pair,
        capture.as_ref(),
    )?;
    if let Some(limit) = scan {
        table = scan::scan_table(table, limit)?;
    }
    if let Some(import) = &import {
        import::apply(import, target.protocol, a.memtier_compat, &mut table)?;
    }
    if memtier25::build_miss_tracking(&a, commands)? == memtier25::MissTracking::Off {
        for row in &mut table.rows {
            row.counts_hits = false;
            row.lookup = None;
        }
    }
    let ops = Arc::new(table);
    connection::check_workload(target.protocol, &ops, &keys)?;
    let stop = build_stop(&a)?;
    transaction::check_requests(&ops, stop)?;
    let cluster = cluster::build_cluster(&a, &target)?;
    let read_server = read_server::build_read_server(&a, &target)?;
    let start_at = build_start(&a, sweep.cell_count() > 1)?;
    let barrier_server = watch::build_barrier_server(
        a.barrier_server.as_deref(),
        start_at.as_ref().is_some_and(|s| s.barrier().is_some()),
        &target,
        &tls_settings(&a)?,
    )?;
    let host = hostname();
    let (sweep_clients, cells) = (sweep.clients.clone(), sweep.cell_count());
    let (warmup, warmup_plan) = warmup::build_warmup(&a)?;
    let output = build_output(&a, shard.map_or(0, |s| s.index), &host)?;
    let precision = precision::build(&a, &output.percentiles, &ops.rows)?;
    let mut rate = build_rate(&a, sweep.threads[0] * sweep.clients[0])?;
    // `--rate` is the total of all shards; the report shows this shard's share.
    if let (Some(rate), Some(shard), Some(_)) = (rate.as_mut(), shard, a.rate) {
        rate.total_per_sec /= f64::from(shard.count);
    }
    Ok(Config {
        target,
        threads: sweep.threads[0],
        clients: sweep.clients[0],
        pipeline: sweep.pipelines[0],
        ratio: sweep.ratios[0],
        ops,
        stop,
        run_count: precision::run_count(&a)?,
        warmup,
        warmup_plan,
        rate,
        headline: match (a.rate, a.rate_limiting) {
            (Some(_), None) => Headline::ResponseTime,
            _ => Headline::ServiceTime,
        },
        prefill: a.prefill,
        keys,
        values: sweep.data_sizes[0].clone(),
        random_data: a.random_data,
        precision,
        output,
        seed: build_seed(&a)?,
        pinning: build_pinning(&a)?,
        io_engine,
        faults: build_faults(&a)?,
        sweep,
        semantics: build_semantics(&a),
        cluster,
        read_server,
        shard,
        start_at,
        host,
        progress_interval: Some(seconds(
            "--progress-interval",
            a.progress_interval
                .unwrap_or(DEFAULT_PROGRESS_INTERVAL_SECS),
            true,
        )?)
        .filter(|d| !d.is_zero()),
        silenced_warnings: WarningKind::from_flags(a.no_warning.iter().flatten())?,
        metrics: metrics::build_metrics(&a)?,
        ramp: ramp::build_ramp(&a, &sweep_clients, cells, build_stop(&a)?)?,
        import,
        miss_rate_threshold: a.miss_rate_threshold,
        realtime_latencies: a.realtime_latencies,
        latency_window: memtier25::build_latency_window(&a)?,
        retry,
        failed_keys_file,
        // One machine samples the watched components, so that N machines
        // do not multiply the INFO load; merge carries its series to the set.
        barrier_server,
        flags: FlagSet::Run,
        clock_source: watches
            .iter()
            .find(|w| w.kind == watch::WatchKind::Redis)
            .map(|w| w.target.clone()),
        watch: if shard.is_none_or(|s| s.index == 0) {
            watches
        } else {
            Vec::new()
        },
    })
}

/// `--progress-interval` when not given: a line every 10 s keeps a log short
/// and still shows within seconds that a run is alive.
pub const DEFAULT_PROGRESS_INTERVAL_SECS: f64 = 10.0;

/// The largest seed a JSON reader (JavaScript, jq) holds exactly: 2^53 − 1.
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// The longest duration any seconds flag takes: 10^7 s, about 116 days.
pub const MAX_SECONDS: f64 = 1e7;

#[cfg(test)]
mod tests;
