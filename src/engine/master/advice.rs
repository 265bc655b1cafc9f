//! What a failure to connect or to set up tells the user: the flag to change
//! when the server or the command line is at fault, and no advice about the
//! server when this machine is.

use std::io;

use crate::config::target::{Endpoint, Target};
use crate::config::{Config, FlagSet};
use crate::engine::master::server::{Control, Info};
use crate::error::{ConnectError, DiscoverError, RunError, UsageError};
use crate::protocol::sniff::Spoken;
use crate::protocol::wire::Protocol;

/// Refuses a run whose server answered the preflight in another protocol
/// than `-P` (what `reply`, its first bytes, are in), naming what it speaks:
/// otherwise every connection would reconnect until the run ends.
pub fn wrong_protocol(target: &Target, reply: &[u8]) -> Result<(), UsageError> {
    let Some(spoken) = Spoken::of(reply) else {
        return Ok(());
    };
    if spoken.speaks(target.protocol) || spoken.speaks(target.protocol.control()) {
        return Ok(());
    }
    let (what, flag) = spoken.describe();
    Err(UsageError::new(
        "--protocol",
        format!(
            "the server at {} answers {what}, not {}: use -P {flag}",
            target.endpoint,
            target.protocol.name()
        ),
    ))
}

/// Refuses a run without `--cluster-mode` whose server says in the
/// preflight's INFO that it is a Redis Cluster node (`cluster_enabled:1`),
/// before any load: every request for a key of another node's slots would
/// be answered MOVED, and only the report after the whole run would say so.
/// `--memtier-compat` keeps memtier's way (it runs, and counts each MOVED as
/// an error reply); `kvbench suite` has no such flag, so its message names none.
pub fn cluster_node_without_mode(config: &Config, info: &Info) -> Result<(), UsageError> {
    if config.cluster.is_some()
        || config.semantics.memtier_compat
        || info.u64("cluster_enabled") != Some(1)
    {
        return Ok(());
    }
    let otherwise = match config.flags {
        FlagSet::Run => {
            " (or --memtier-compat to run as memtier does, counting each MOVED as an error)"
        }
        FlagSet::Suite => "",
    };
    Err(UsageError::new(
        "--cluster-mode",
        format!(
            "the server at {} is a Redis Cluster node (its INFO says cluster_enabled:1): without this flag every request for a key in another node's slots is answered MOVED; add it to route each key to the master of its slot{otherwise}",
            config.target.endpoint
        ),
    ))
}

/// Refuses a memcached run whose server answered the preflight's `stats`
/// with nothing at all within `--connection-timeout`, when a new
/// connection asking in memcached's other protocol gets an answer that
/// names what it speaks: memcached started with `-B binary` waits for a
/// whole binary header and never answers a text line, one started with
/// `-B ascii` (or Redis) waits for a line end that a binary request never
/// sends, so every connection of the run would go unanswered. A server
/// silent in both is left to the run, whose load gap then says so.
pub fn memcached_silent(
    target: &Target,
    error: &io::Error,
    reply: &[u8],
) -> Result<(), UsageError> {
    if error.kind() != io::ErrorKind::TimedOut || !reply.is_empty() {
        return Ok(());
    }
    let mut other = target.clone();
    other.protocol = match target.protocol {
        Protocol::MemcacheBinary => Protocol::MemcacheText,
        Protocol::MemcacheText | Protocol::MemcacheMeta => Protocol::MemcacheBinary,
        Protocol::Redis | Protocol::Resp2 | Protocol::Resp3 => return Ok(()),
    };
    let mut request = Vec::new();
    other.protocol.encode_counters_request(&mut request);
    let Ok(mut probe) = Control::open(&other) else {
        return Ok(());
    };
    // Any bytes at all: the first read is enough to tell the protocol.
    let _ = probe.exchange(&request, |b| (!b.is_empty()).then_some(b.len()));
    wrong_protocol(target, probe.last_bytes())
}

/// Turns a connection failure into advice that names the flag to change; a
/// failure of this machine (no event loop, no timer) is no usage error and gets
/// no advice about the server.
pub fn connect_advice(e: ConnectError, endpoint: &Endpoint) -> RunError {
    let place = match endpoint {
        Endpoint::Unix(_) => "--unix-socket",
        Endpoint::Tcp { .. } => "--server/--port",
    };
    let usage = match &e {
        ConnectError::ClusterNode { .. } | ConnectError::ReadServer { .. } => {
            return node_advice(e, endpoint);
        }
        ConnectError::Local { .. } => return RunError::ThisMachine(e),
        // A TLS port drops a plain client at its first bytes.
        ConnectError::Io { source, .. }
            if matches!(
                source.kind(),
                io::ErrorKind::ConnectionReset | io::ErrorKind::UnexpectedEof
            ) =>
        {
            UsageError::new(
                place,
                format!(
                    "{e}; the server dropped the connection at once: if that port speaks TLS, add --tls; else check {place}"
                ),
            )
        }
        ConnectError::Resolve(_) | ConnectError::Io { .. } => UsageError::new(
            place,
            format!("{e}; is the server running there? check {place}"),
        ),
        ConnectError::Auth(_) | ConnectError::AuthRequired(_) => UsageError::new(
            "--authenticate",
            format!("{e}; check -a/--authenticate (PASSWORD or USER:PASSWORD) or KVBENCH_AUTH"),
        ),
        ConnectError::Select(_) => UsageError::new(
            "--select-db",
            format!("{e}; choose a database the server has"),
        ),
        ConnectError::Refused(_) => UsageError::new(
            "--clients",
            format!(
                "{e}; the server may limit connections (maxclients): lower --threads or --clients"
            ),
        ),
        ConnectError::TimedOut { .. } => UsageError::new(
            "--connection-timeout",
            format!(
                "{e}; is the server up and reachable? raise --connection-timeout if it is slow to answer"
            ),
        ),
        ConnectError::Tls { failure, .. } => UsageError::new(failure.flag, e.to_string()),
        ConnectError::HelloRefused(_) => UsageError::new(
            "--protocol",
            format!(
                "{e}; -P resp2 and -P resp3 need Redis 6 or later: use -P redis for an older server"
            ),
        ),
        ConnectError::Protocol(_) => UsageError::new(
            "--protocol",
            format!("{e}; is {endpoint} a Redis-protocol server? kvbench speaks --protocol redis"),
        ),
    };
    RunError::Usage(usage)
}

/// A cluster node the seed named, or the `--read-server` endpoint, failed:
/// unreachable, a cluster node is named with the seed that announced it (no
/// flag of the command line points at it) and the endpoint with its flag;
/// any other failure (a password, a certificate) keeps its flag and names
/// the node.
fn node_advice(e: ConnectError, seed: &Endpoint) -> RunError {
    let (node, source, read_server) = match e {
        ConnectError::ClusterNode { node, source } => (node, source, false),
        ConnectError::ReadServer { node, source } => (node, source, true),
        other => return connect_advice(other, seed),
    };
    let unreachable = matches!(
        *source,
        ConnectError::Io { .. } | ConnectError::Resolve(_) | ConnectError::TimedOut { .. }
    );
    if unreachable && read_server {
        return RunError::Usage(UsageError::new(
            "--read-server",
            format!(
                "cannot reach the read server {node} ({source}); is it up and reachable from this machine? check --read-server HOST:PORT"
            ),
        ));
    }
    if unreachable {
        return RunError::Usage(UsageError::new(
            "--cluster-mode",
            format!(
                "cannot reach the cluster node {node}, which the seed {seed} named in its slot map ({source}); is that node up and reachable from this machine? a node behind NAT must announce its public address (cluster-announce-ip, cluster-announce-port)"
            ),
        ));
    }
    let whose = if read_server {
        "the read server"
    } else {
        "the cluster node"
    };
    match connect_advice(*source, seed) {
        RunError::Usage(usage) => RunError::Usage(UsageError::new(
            &usage.flag,
            format!("{whose} {node}: {}", usage.message),
        )),
        other => other,
    }
}

impl DiscoverError {
    /// The run's error: exit 2 with a message naming `--cluster-mode` (or the
    /// connection flag at fault) for what the user can fix.
    pub fn into_run_error(self, seed: &Endpoint) -> RunError {
        match self {
            DiscoverError::Connect(e) => connect_advice(e, seed),
            DiscoverError::Io { .. } => RunError::Topology(self),
            _ => RunError::Usage(UsageError::new("--cluster-mode", self.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_setup_failure_gets_no_advice_about_the_server() {
        let endpoint = Endpoint::Unix("/tmp/kvbench-test.sock".into());
        let local = ConnectError::Local {
            what: "the timer (timerfd)",
            source: std::io::Error::from_raw_os_error(24),
        };
        let failure = connect_advice(local, &endpoint);
        assert!(
            matches!(failure, RunError::ThisMachine(_)),
            "a local failure was made a usage error"
        );
        let message = failure.to_string();
        assert!(message.contains("timerfd"), "{message}");
        assert!(message.contains("this machine"), "{message}");
        assert!(!message.contains("server running"), "{message}");
        // A failure to reach the server still gets the advice.
        let remote = ConnectError::Io {
            endpoint: "127.0.0.1:1".into(),
            source: std::io::Error::from(std::io::ErrorKind::ConnectionRefused),
        };
        let RunError::Usage(usage) = connect_advice(remote, &endpoint) else {
            panic!("an unreachable server is a usage error");
        };
        assert!(usage.to_string().contains("server running"), "{usage}");
    }

    #[test]
    fn a_cluster_node_that_fails_is_named_with_the_seed_that_announced_it() {
        let seed = Endpoint::Tcp {
            host: "127.0.0.1".into(),
            port: 7000,
            family: crate::config::target::AddressFamily::Any,
        };
        let refused = ConnectError::ClusterNode {
            node: "10.0.0.9:7005".into(),
            source: Box::new(ConnectError::Io {
                endpoint: "10.0.0.9:7005".into(),
                source: std::io::Error::from(std::io::ErrorKind::ConnectionRefused),
            }),
        };
        let RunError::Usage(usage) = connect_advice(refused, &seed) else {
            panic!("an unreachable node is a usage error");
        };
        assert_eq!(usage.flag, "--cluster-mode");
        assert!(usage.message.contains("node 10.0.0.9:7005"), "{usage}");
        assert!(usage.message.contains("seed 127.0.0.1:7000"), "{usage}");
        assert!(!usage.message.contains("--server/--port"), "{usage}");
        // A wrong password on a node is still the password's.
        let auth = ConnectError::ClusterNode {
            node: "10.0.0.9:7005".into(),
            source: Box::new(ConnectError::Auth("WRONGPASS".into())),
        };
        let RunError::Usage(usage) = connect_advice(auth, &seed) else {
            panic!("a refused password is a usage error");
        };
        assert_eq!(usage.flag, "--authenticate");
        assert!(
            usage
                .message
                .starts_with("the cluster node 10.0.0.9:7005: "),
            "{usage}"
        );
    }
}
