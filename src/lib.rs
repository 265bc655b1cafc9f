//! kvbench: a load generator for Redis-protocol servers, with memtier_benchmark's
//! command line and reports that existing dashboards read, built so that its
//! numbers can be trusted.
//!
//! # Layout
//! What the user typed, and what was built from it:
//! - [`cli`]: the command line (clap), also the shape of a `--config` file.
//! - [`config`]: the validated [`config::Config`], sweeps expanded into cells;
//!   every usage error names its flag. Also the subcommands' options
//!   ([`config::CompareOptions`], [`config::ReportOptions`], [`config::SuitePlan`]):
//!   outside `cli`, `config` and `main` only [`merge`] still takes clap's struct.
//! - [`target`]: server address, credentials (redacted everywhere), URI parsing.
//! - [`error`]: the errors that reach the user: [`error::UsageError`] (the flag and
//!   the fix, exit 2), [`error::RunError`] (the server and the advice), the
//!   connection's and the cluster discovery's errors turned into that advice
//!   ([`error::connect_advice`]), and [`error::OutputError`] for a report that could
//!   not be written; its docs say which errors stay in their modules.
//!
//! The wire and the workload (pure, no I/O):
//! - [`protocol`]: one folder per protocol family, [`protocol::resp`] (RESP2/RESP3)
//!   and [`protocol::memcache`] (text/binary), each with its codecs (`Ok(None)` =
//!   incomplete), request encoding, handshake, control-connection counters and the
//!   settings it refuses; [`protocol::wire::Protocol`] (`-P`) dispatches to them with
//!   one exhaustive `match` per concern, every reply reduced to one protocol-neutral
//!   outcome; [`protocol::template`] encodes a command template once and fills it per
//!   request.
//! - [`cluster`]: Redis Cluster's key slots, hash tags, slot map and redirects (pure).
//! - [`command`]: commands as text (`--command`, redis-benchmark's suite) parsed into
//!   arguments of literal parts and placeholders.
//! - [`workload`]: the op table ([`workload::ops`]: SET/GET or `--command` lines, each
//!   a template, key pattern, weight and stats row), the mix cycle, key patterns, value
//!   sizes; generators take `&mut impl Rng`.
//! - [`request`]: one connection's request stream for a phase, and seed derivation.
//! - [`schedule`]: open-loop intended send times (`--rate`).
//!
//! Running:
//! - [`net`]: connecting, TLS (`--tls`, rustls), and driving the protocol's handshake
//!   (blocking, before the clock starts).
//! - [`conn`]: one connection's state machine, buffers, in-flight queue, per-reply timing.
//! - [`client`]: one client's request stream and schedule, routed to one connection
//!   per node ([`client::route`]: one server, or a cluster's slot map), and the
//!   redirects it follows.
//! - [`worker`]: one thread: mio `Poll`, its connections, timerfd wake-ups,
//!   reconnects, per-second reports to the master.
//! - [`timer`]: the timerfd, and a thread's CPU time.
//! - [`crew`]: spawning and pinning the workers.
//! - [`run`]: the master: preflight, phases (prefill, warm-up, runs), evidence, error budget;
//!   [`run::start`]: `--start-at`'s aligned phases; [`run::clock`]: the offset against the
//!   server's `TIME` (docs/scale-out.md).
//! - [`sweep`]: running every cell of a sweep.
//! - [`suite`]: `kvbench suite`, redis-benchmark's tests each as its own benchmark.
//! - [`interrupt`]: SIGINT/SIGTERM and the `--max-errors` stop.
//! - [`server`]: the control connection's socket and what it reads into `Info`: INFO,
//!   CONFIG GET, SLOWLOG; memcached's `stats`.
//! - [`sysinfo`]: this machine: its addresses, memory, open-file limit.
//!
//! Results and reports:
//! - [`stats`]: counters and HdrHistograms per row of the op table, merged with `+=`;
//!   per-second series.
//! - [`results`]: finished phases, best/worst/aggregate views.
//! - [`variance`]: run-to-run spread of `-x` runs.
//! - [`warnings`]: what the reader must know before trusting a result.
//! - [`report`]: text, JSON and HdrHistogram exporters, progress line, atomic writes;
//!   [`report::model`], the typed report that JSON files are read back into.
//! - [`metrics`]: live metrics while a run goes: the `--metrics-listen`
//!   Prometheus / OpenMetrics endpoint and memtier's StatsD feed.
//! - [`compare`]: `kvbench compare`, reports side by side.
//! - [`merge`]: `kvbench merge`, the exact merge of several machines' reports.
//! - [`html`]: `kvbench report` and `--html-out-file`, a self-contained HTML page of SVG charts.

pub mod cli;
pub mod config;
pub mod engine;
pub mod error;
pub mod protocol;
pub mod report;
pub mod tools;
pub mod workload;
