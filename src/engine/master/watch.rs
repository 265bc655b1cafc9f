//! `--watch`: the components behind the target, read by the master around
//! and during each phase, as the target's own evidence is
//! ([`crate::engine::master::server`]).
//!
//! - A shard (`redis://`, `memcached://`) has its own control connection:
//!   INFO before and after the phase for exact deltas (read where the
//!   target's is, before the workers start and after the last reply), and a
//!   [`ServerSampler`] each second for its CPU, network and commands.
//! - A host (`node://`) is scraped at the phase's start, each second and at
//!   its end ([`node`]).
//! - A proxy (`twemproxy://`) is read at the start and the end ([`twemproxy`]).
//!
//! A component that stops answering is not asked again that phase (each
//! read is bounded by `--connection-timeout`, or 2 s), so a dead agent
//! costs one timeout, not one per second; the phase's entry says why its
//! figures are missing.

pub mod node;
pub mod twemproxy;

use std::net::TcpStream;
use std::time::Duration;

use crate::config::target::Endpoint;
use crate::config::watch::{Watch, WatchKind};
use crate::engine::master::server::sample::{ServerSampler, ServerSeries};
use crate::engine::master::server::{ControlLink, Info, PhaseEvidence};
use crate::error::UsageError;

use node::{NodeReading, NodeUse};
use twemproxy::ProxyReading;

/// The bound on one read of a host or proxy agent when
/// `--connection-timeout` does not give one.
const AGENT_TIMEOUT: Duration = Duration::from_secs(2);

/// A TCP connection to `endpoint` with every step bounded by `timeout`.
pub(crate) fn connect(endpoint: &Endpoint, timeout: Duration) -> std::io::Result<TcpStream> {
    let Endpoint::Tcp { host, port, family } = endpoint else {
        return Err(std::io::Error::other("a watch is reached over TCP"));
    };
    let address = crate::engine::worker::net::resolve(host, *port, *family)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let stream = TcpStream::connect_timeout(&address, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    Ok(stream)
}

/// Why a host's or a proxy's agent gave no reading.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The connection or the read failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// It answered, but not as the agent named would.
    #[error("{0}")]
    Unexpected(String),
}

/// What one watched component did during one phase.
#[derive(Debug, Clone)]
pub struct WatchedPhase {
    /// How it was read.
    pub kind: WatchKind,
    /// `host:port`.
    pub address: String,
    /// Why some or all of its figures are missing.
    pub error: Option<String>,
    /// What was read.
    pub found: Found,
}

/// The readings of one component over a phase.
#[derive(Debug, Clone)]
pub enum Found {
    /// A shard: INFO around the phase and its seconds.
    Server {
        /// INFO before and after; `None` when either failed.
        evidence: Option<PhaseEvidence>,
        /// Its CPU, network and commands each second.
        series: Option<ServerSeries>,
    },
    /// A host: the whole phase and each second.
    Host {
        /// From the first scrape to the last.
        whole: Option<NodeUse>,
        /// Each second.
        per_second: Vec<NodeUse>,
    },
    /// A proxy: each backend's share of the phase.
    Proxy {
        /// The growth from the first reading to the last.
        phase: Option<ProxyReading>,
        /// Seconds between them.
        seconds: f64,
    },
}

/// One component's connection and the phase in progress.
#[allow(
    clippy::large_enum_variant,
    reason = "one per --watch, held for the whole run: boxing saves nothing that matters"
)]
enum Watcher {
    Server {
        link: ControlLink,
        before: Option<Info>,
        sampler: Option<ServerSampler>,
    },
    Host {
        first: Option<NodeReading>,
        last: Option<NodeReading>,
        per_second: Vec<NodeUse>,
    },
    Proxy {
        first: Option<ProxyReading>,
    },
}

/// Every `--watch` of the run, read by the master.
pub struct Watchers {
    watched: Vec<(Watch, Watcher, Option<String>)>,
    timeout: Duration,
}

impl Watchers {
    /// Opens every watch once before the load, so that a wrong address or
    /// password is a usage error naming it, not a run without its figures.
    pub fn open(watches: &[Watch]) -> Result<Watchers, UsageError> {
        let mut watched = Vec::with_capacity(watches.len());
        let mut timeout = AGENT_TIMEOUT;
        for w in watches {
            if w.target.connect_timeout < crate::config::NO_CONNECT_TIMEOUT {
                timeout = w.target.connect_timeout;
            }
            let unreachable = |why: String| {
                UsageError::new(
                    "--watch",
                    format!(
                        "{}://{} did not answer: {why}; check its address (and credentials), or drop the watch",
                        w.kind.name(),
                        w.address
                    ),
                )
            };
            let watcher = match w.kind {
                WatchKind::Redis | WatchKind::Memcached => {
                    let mut link = ControlLink::open(&w.target);
                    if link.info().is_none() {
                        let why = link
                            .take_lost()
                            .unwrap_or_else(|| "it does not answer INFO (stats)".into());
                        return Err(unreachable(why));
                    }
                    Watcher::Server {
                        link,
                        before: None,
                        sampler: None,
                    }
                }
                WatchKind::Node => {
                    node::scrape(&w.target.endpoint, timeout)
                        .map_err(|e| unreachable(e.to_string()))?;
                    Watcher::Host {
                        first: None,
                        last: None,
                        per_second: Vec::new(),
                    }
                }
                WatchKind::Twemproxy => {
                    twemproxy::read(&w.target.endpoint, timeout)
                        .map_err(|e| unreachable(e.to_string()))?;
                    Watcher::Proxy { first: None }
                }
            };
            watched.push((w.clone(), watcher, None));
        }
        Ok(Watchers { watched, timeout })
    }

    /// The phase is about to start: INFO before it, the first scrapes.
    pub fn before_phase(&mut self) {
        let timeout = self.timeout;
        for (w, watcher, error) in &mut self.watched {
            *error = None;
            match watcher {
                Watcher::Server { link, before, .. } => {
                    let _ = link.take_lost();
                    *before = link.info();
                }
                Watcher::Host {
                    first,
                    last,
                    per_second,
                } => {
                    per_second.clear();
                    *first = node::scrape(&w.target.endpoint, timeout)
                        .map_err(|e| *error = Some(e.to_string()))
                        .ok();
                    *last = first.clone();
                }
                Watcher::Proxy { first } => {
                    *first = twemproxy::read(&w.target.endpoint, timeout)
                        .map_err(|e| *error = Some(e.to_string()))
                        .ok();
                }
            }
        }
    }

    /// The workers started: each shard's first reading of its seconds.
    pub fn start_seconds(&mut self) {
        for (_, watcher, _) in &mut self.watched {
            if let Watcher::Server { link, sampler, .. } = watcher {
                *sampler = Some(ServerSampler::start(Some(link)));
            }
        }
    }

    /// A second completed: one more reading of every shard and host.
    pub fn second(&mut self) {
        let timeout = self.timeout;
        for (w, watcher, error) in &mut self.watched {
            match watcher {
                Watcher::Server { link, sampler, .. } => {
                    if let Some(s) = sampler {
                        s.second(link);
                    }
                }
                // A host that failed is not asked again this phase.
                Watcher::Host {
                    last: last @ Some(_),
                    per_second,
                    ..
                } => match node::scrape(&w.target.endpoint, timeout) {
                    Ok(now) => {
                        if let Some(then) = last.as_ref() {
                            per_second.push(now.since(then));
                        }
                        *last = Some(now);
                    }
                    Err(e) => {
                        *error = Some(e.to_string());
                        *last = None;
                    }
                },
                Watcher::Host { .. } | Watcher::Proxy { .. } => {}
            }
        }
    }

    /// The phase ended: INFO after it, the last scrapes, and what each
    /// component did.
    pub fn after_phase(&mut self) -> Vec<WatchedPhase> {
        let timeout = self.timeout;
        let mut out = Vec::with_capacity(self.watched.len());
        for (w, watcher, error) in &mut self.watched {
            let found = match watcher {
                Watcher::Server {
                    link,
                    before,
                    sampler,
                } => {
                    let after = link.info();
                    let evidence = before
                        .take()
                        .zip(after)
                        .map(|(before, after)| PhaseEvidence {
                            before,
                            after,
                            slowlog: None,
                        });
                    if evidence.is_none() {
                        *error = Some(
                            link.take_lost()
                                .unwrap_or_else(|| "it did not answer INFO (stats)".into()),
                        );
                    }
                    Found::Server {
                        evidence,
                        series: sampler.take().and_then(ServerSampler::finish),
                    }
                }
                Watcher::Host {
                    first,
                    last,
                    per_second,
                } => {
                    let end = match node::scrape(&w.target.endpoint, timeout) {
                        Ok(end) => Some(end),
                        Err(e) => {
                            error.get_or_insert(e.to_string());
                            last.take()
                        }
                    };
                    Found::Host {
                        whole: first.take().zip(end).map(|(a, b)| b.since(&a)),
                        per_second: std::mem::take(per_second),
                    }
                }
                Watcher::Proxy { first } => {
                    let end = twemproxy::read(&w.target.endpoint, timeout)
                        .map_err(|e| *error = Some(e.to_string()))
                        .ok();
                    let (phase, seconds) = match (first.take(), end) {
                        (Some(a), Some(b)) => {
                            let seconds = b.at.saturating_duration_since(a.at).as_secs_f64();
                            (Some(b.since(&a)), seconds)
                        }
                        _ => (None, 0.0),
                    };
                    Found::Proxy { phase, seconds }
                }
            };
            out.push(WatchedPhase {
                kind: w.kind,
                address: w.address.clone(),
                error: error.take(),
                found,
            });
        }
        out
    }

    /// True when nothing is watched.
    pub fn is_empty(&self) -> bool {
        self.watched.is_empty()
    }
}
