//! kvbench: a load generator for Redis-protocol servers, with memtier_benchmark's
//! command line and reports that existing dashboards read, built so that its
//! numbers can be trusted.
//!
//! # Layout
//! Eight top-level modules in layers, listed from the bottom. A module uses only
//! the modules listed before it here, never one after it (`main.rs` and this
//! file may use any; test code may build its inputs from any layer). `make lint`
//! runs `scripts/check-layout.py`, which fails on any import cycle between them.
//!
//! 0. [`error`]: the errors that reach the user: [`error::UsageError`] (the flag
//!    and the fix, exit 2), [`error::RunError`] (the server and the advice),
//!    [`error::OutputError`] for a report that could not be written, and the small
//!    errors they carry ([`error::TlsFailure`], [`error::MapError`],
//!    [`error::ModelError`]); [`error::note`], the one
//!    stderr printer, and [`error::terminal`] (a stream's terminal width,
//!    prose wrapped to it). It imports nothing from the crate.
//! 1. [`protocol`]: the wire, pure, no I/O. One folder per protocol family,
//!    [`protocol::resp`] (RESP2/RESP3) and [`protocol::memcache`] (text/binary/meta),
//!    each with its codecs (`Ok(None)` = incomplete), request encoding, handshake,
//!    control-connection counters and the settings it refuses;
//!    [`protocol::wire::Protocol`] (`-P`) dispatches to them with one exhaustive
//!    `match` per concern; [`protocol::command`]: commands as text (`--command`,
//!    redis-benchmark's suite) parsed into literal parts and placeholders;
//!    [`protocol::template`] encodes one once and fills it per request.
//! 2. [`workload`]: what to send, pure: the op table ([`workload::ops`]), the mix
//!    cycle, key patterns, value sizes, and [`workload::seed`] (one master seed
//!    made into one per thread and client); generators take `&mut impl Rng`.
//! 3. [`cli`]: the command line (clap), also the shape of a `--config` file.
//! 4. [`config`]: what was built from it: the validated [`config::Config`], sweeps
//!    expanded into cells, every usage error naming its flag; the subcommands'
//!    options; [`config::target`] (server address, credentials redacted
//!    everywhere, URI parsing), [`config::tls`] (the TLS settings made into one
//!    rustls client config) and the limits and names that validation checks
//!    ([`config::MAX_PIPELINE`], [`config::WarningKind`] for `--no-warning`).
//! 5. [`engine`]: running a benchmark, in two sides. The master
//!    ([`engine::master`]: [`engine::master::run`] for preflight, phases,
//!    evidence and error budget, [`engine::master::sweep`], the crew and CPU
//!    placement of the workers, the warm-up's end, the control connection
//!    [`engine::master::server`], the watched components, this machine, the
//!    advice a connection failure gets, the result data
//!    [`engine::master::results`] and the live events of
//!    [`engine::master::sink::Sink`], which the outputs observe). The workers
//!    ([`engine::worker`]: the worker thread, its reactor and timer, and its
//!    connections and clients: [`engine::worker::net`],
//!    [`engine::worker::conn`], [`engine::worker::client`],
//!    [`engine::worker::request`], [`engine::worker::schedule`]). Shared by
//!    both: counters and histograms ([`engine::stats`]), Redis Cluster routing
//!    ([`engine::cluster`], which also routes a `--read-server` run's reads to
//!    its endpoint) and signals ([`engine::interrupt`]). The engine knows no
//!    output: whoever starts a run adds them to its sinks.
//! 6. [`report`]: what results become: the text, JSON, HdrHistogram, HTML
//!    ([`report::html`]), md/csv exporters behind one manager
//!    ([`report::export`]), the typed report ([`report::model`]'s
//!    [`report::model::Document`]: a report, a sweep or a suite, built once per
//!    save from the results by [`report::build`], the sweep's and the suite's
//!    builders; every JSON file is its serialization and the HTML page draws
//!    the same value; `compare`, `merge` and `kvbench report` read files back
//!    into it), kvbench's own text tables stacked to fit a terminal
//!    ([`report::table`]), the progress line, live metrics ([`report::metrics`]), the verdict
//!    ([`report::verdict`]), the warnings ([`report::warnings`]) and the suite's
//!    outputs ([`report::suite`]).
//! 7. [`tools`]: the commands built on all of it, each end to end:
//!    [`tools::benchmark`] (kvbench without a subcommand: a run or a sweep with
//!    its outputs), [`tools::suite`] (running a redis-benchmark plan),
//!    [`tools::compare`], [`tools::merge`] and [`tools::capacity`] (the search
//!    for the most throughput under an SLO), each ending in a
//!    [`tools::exit::Exit`]: the exit-code policy, in one place. `main.rs` is
//!    the outline: parse, validate, run, export, exit.

pub mod cli;
pub mod config;
pub mod engine;
pub mod error;
pub mod protocol;
pub mod report;
pub mod tools;
pub mod workload;
