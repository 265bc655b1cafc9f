//! Building a worker on the master's thread: [`WorkerBuilder::build`] opens,
//! prepares and registers every connection of the thread (and its router,
//! values, encoders and stats) before any clock starts, so that
//! [`super::Worker::run`] cannot fail half-way; and the connection helpers a
//! reconnect uses too.

use std::collections::BinaryHeap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::SmallRng;

use super::{Handshakes, Link, Worker, WorkerBuilder, gaps, net, ramp};
use crate::config::Config;
use crate::config::target::{Endpoint, Target};
use crate::engine::stats::{NodeStats, Stats};
use crate::engine::worker::client::{Client, Router};
use crate::engine::worker::conn::Conn;
use crate::engine::worker::reactor::Reactor;
use crate::engine::worker::recorder::{Book, Rules};
use crate::engine::worker::request::pair_encoder;
use crate::engine::worker::retry::FailedKeysLog;
use crate::error::ConnectError;
use crate::workload::seed::derive_seed;
use crate::workload::values::ValuePool;

impl WorkerBuilder {
    /// Opens and registers every connection of this thread.
    pub fn build(self) -> Result<Worker, ConnectError> {
        // Failures of this machine, not of the server: they must not be
        // reported with advice about the server's address.
        let local = |what| move |source| ConnectError::Local { what, source };
        let config = self.config;
        let io = local(match config.io_engine {
            crate::config::io_engine::IoEngine::Epoll => "the event loop (epoll)",
            crate::config::io_engine::IoEngine::Uring => "the event loop (io_uring)",
        });
        let reactor = Reactor::new(config.io_engine, config.connections()).map_err(io)?;
        let router = match (self.cluster, config.routing()) {
            (Some(cluster), Some(options)) => {
                Router::cluster(cluster, options, config.keys.prefix.as_bytes())
            }
            _ => Router::single(config.keys.prefix.as_bytes()),
        };
        let max_request = max_request_bytes(&config);
        let mut stats = Stats::for_config(&config)
            .map_err(|e| local("the latency histograms")(std::io::Error::other(e)))?;
        let mut worker_conns = Vec::new();
        let mut links = Vec::new();
        let mut clients = Vec::with_capacity(config.clients);
        // One server: node 0 is the target. A cluster: every master; with
        // --read-server, the read endpoint too.
        let nodes = if router.is_routed() {
            router.first_nodes()
        } else {
            vec![0]
        };
        let initial = ramp::initial_clients(&config);
        let mut jitter_rng = SmallRng::seed_from_u64(derive_seed(
            config.seed,
            &[self.thread as u64, u64::MAX - 1],
        ));
        for c in 0..config.clients {
            let mut client = Client::new(c, Arc::clone(&config.ops), max_request);
            if c >= initial {
                // The staircase opens it when its step comes.
                clients.push(client);
                continue;
            }
            if c > 0 {
                ramp::pause_between_connections(config.ramp.jitter, &mut jitter_rng);
            }
            for &node in &nodes {
                let target = node_target(&config, &router, node);
                let (stream, unsolicited) =
                    net::connect(&target).map_err(|e| router.blame(node, e))?;
                let index = worker_conns.len();
                let stream = reactor
                    .attach(stream, index)
                    .map_err(local(reactor.what()))?;
                let mut conn = new_conn(&config, stream);
                conn.unsolicited = unsolicited;
                worker_conns.push(conn);
                let book = match router.is_routed() {
                    true => Book::new(&config, Some(node), router.is_replica(node)),
                    false => Book::new(&config, None, false),
                };
                links.push(Link {
                    client: c,
                    addr: tcp_addr(&target)?,
                    reconnect_attempts: 0,
                    reconnect_queued: false,
                    readonly: false,
                    book,
                });
                client.link(node, index);
                ramp::debug(
                    &config,
                    format_args!(
                        "thread {} client {c}: connected to {}",
                        self.thread, target.endpoint
                    ),
                );
            }
            clients.push(client);
        }
        sync_node_stats(&router, &mut stats);
        let mut rng =
            SmallRng::seed_from_u64(derive_seed(config.seed, &[self.thread as u64, u64::MAX]));
        let values = ValuePool::new(&config.values, config.random_data, &mut rng);
        let handshake = net::handshake_for(&config.target);
        Ok(Worker {
            handshakes: Handshakes {
                readonly: handshake.with_readonly(),
                plain: handshake,
            },
            touched: Vec::with_capacity(worker_conns.len()),
            touched_clients: Vec::with_capacity(config.clients),
            active: initial,
            next_step: None,
            phase_started: Instant::now(),
            series: ramp::series_for(&config),
            measured_run: None,
            failed_keys: self.failed_keys.map(FailedKeysLog::new),
            gaps: gaps::GapMeter::new(Instant::now(), worker_conns.len()),
            pipeline: config.pipeline,
            interrupt: self.interrupt,
            early_end: self.early_end,
            wakeups: BinaryHeap::new(),
            thread: self.thread,
            ready: Vec::with_capacity(worker_conns.len()),
            reactor,
            conns: worker_conns,
            links,
            clients,
            router,
            values,
            pair: pair_encoder(&config),
            rules: Rules::for_config(&config),
            stats,
            commands: self.commands,
            reports: self.reports,
            config,
        })
    }
}

/// A connection of this run's shape around `stream`.
pub(super) fn new_conn(config: &Config, stream: net::Stream) -> Conn {
    Conn::new(
        stream,
        config.pipeline,
        request_size_hint(config),
        max_request_bytes(config),
        max_reply_bytes(config),
        config.faults.reconnect_interval,
    )
    .with_protocol(config.target.protocol)
    .with_key_prefix(config.keys.prefix.as_bytes())
}

/// The target of node `node`: the configured one for a single server, its
/// address with the configured credentials and TLS for a cluster node.
pub(super) fn node_target(config: &Config, router: &Router, node: usize) -> Target {
    let mut target = config.target.clone();
    if let (Some(n), Endpoint::Tcp { family, .. }) =
        (router.nodes().get(node), &config.target.endpoint)
    {
        target.endpoint = Endpoint::Tcp {
            host: n.host.clone(),
            port: n.port,
            family: *family,
        };
    }
    target
}

/// The resolved address of a TCP target (`None` for a Unix socket).
pub(super) fn tcp_addr(target: &Target) -> Result<Option<SocketAddr>, ConnectError> {
    match &target.endpoint {
        Endpoint::Tcp { host, port, family } => Ok(Some(net::resolve(host, *port, *family)?)),
        Endpoint::Unix(_) => Ok(None),
    }
}

/// One counter set per node the router knows, in its order.
pub(super) fn sync_node_stats(router: &Router, stats: &mut Stats) {
    if !router.is_routed() {
        return;
    }
    for node in &router.nodes()[stats.nodes.len().min(router.nodes().len())..] {
        if let Ok(n) = NodeStats::new(node.address()) {
            stats.nodes.push(n);
        }
    }
}

/// The largest reply a connection accepts: room for the largest value kvbench
/// writes, with generous slack, and never less than 64 MiB. Anything larger is a
/// protocol error, which bounds memory whatever the server sends.
pub(super) fn max_reply_bytes(config: &Config) -> usize {
    (2 * config.values.max_size() + 1024 * 1024).max(64 * 1024 * 1024)
}

/// The most bytes one encoded request can take: the largest op of the table
/// with every key at 20 digits, every value at its largest, and the RESP
/// framing around them; never less than a SET of the largest value, which the
/// prefill sends whatever the table.
pub(super) fn max_request_bytes(config: &Config) -> usize {
    let set = config.keys.prefix.len() + 20 + config.values.max_size() + 64;
    let table = config
        .ops
        .max_request_bytes(config.keys.prefix.len(), config.values.max_size());
    set.max(table)
}

/// Typical bytes of one request or reply, to size connection buffers.
pub(super) fn request_size_hint(config: &Config) -> usize {
    config.keys.prefix.len() + config.values.mean_size() as usize + 64
}
