//! kvbench's one integration-test binary: the kvbench binary against real
//! servers (redis-server, memcached, Redis Cluster, Slurm, Prometheus,
//! Chromium), scripted fake servers, and the shipped files (README, configs,
//! deploy manifests) held to what the binary accepts.
//!
//! One module per area; each says what it covers in its own `//!`. [`common`]
//! (servers, runners, report readers) and [`fake_server`] are compiled once for
//! all of them. Every test here runs in this one process, in parallel threads:
//! anything a test takes for itself (a port, a directory, a network namespace)
//! gets a name no other test can pick, and a test that measures speed takes
//! [`common::machine`]'s exclusive turn. Why one binary: docs/design.md, "Tests:
//! one binary".

mod common;
mod fake_server;

mod barrier;
mod bench_smoke;
mod capacity;
mod capacity_fleet;
mod capacity_precision;
mod capacity_unconfirmed;
mod cli_errors;
mod cli_help;
mod cluster;
mod cluster_faults;
mod cluster_latency;
mod cluster_reads;
mod cluster_setup;
mod cluster_slots;
mod cluster_without_mode;
mod commands;
mod compare;
mod compare_columns;
mod compare_latency;
mod compare_precision;
mod compare_sweep;
mod config_fuzz;
mod configs;
mod counts;
mod deploy_contract;
mod faults;
mod first_screen;
mod hdr;
mod hostile;
mod hosts;
mod html;
mod interrupts;
mod io_engine;
mod json_schema;
mod load_gap;
mod lost_connections;
mod make_targets;
mod memcached;
mod memcached_meta;
mod memcached_sasl;
mod memory;
mod memtier24;
mod memtier25;
mod memtier_compat;
mod memtier_import;
mod memtier_monitor_replay;
mod memtier_pair;
mod memtier_ramp;
mod memtier_retry;
mod memtier_scan;
mod memtier_transaction;
mod merge;
mod merge_exact;
mod merge_fleet;
mod metrics;
mod model;
mod outputs;
mod patterns;
mod placement;
mod precision;
mod progress;
mod protocol_memcached;
mod protocol_resp3;
mod rate;
mod rate_limiting;
mod read_server;
mod readme;
mod refusals;
mod reports;
mod resp3;
mod resp3_attributes;
mod safety;
mod secrets;
mod server_latency;
mod shards;
mod slowlog;
mod slurm;
mod smoke;
mod suite;
mod terminal;
mod time_serie;
mod tls;
mod tls_errors;
mod verdict;
mod warmup;
mod warnings;
mod warnings_shown;
mod warnings_true;
mod watch;
mod whitepaper;
mod wrong_type;
