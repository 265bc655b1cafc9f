//! `--read-server HOST:PORT` (memtier 2.5): a standalone read endpoint, such
//! as a replica or a cloud "reader endpoint". Without `--cluster-mode`,
//! writes go to `--server`/`--port` and reads to this endpoint, as
//! `--read-from` (or memtier's `--read-preference`) says; and the checks that
//! refuse it where it cannot work, before any connection opens.
//!
//! The engine drives it as a cluster of one shard whose master is the
//! target and whose replica is the read endpoint, through the cluster
//! router (docs/cluster.md "A standalone read endpoint").

use crate::cli::Args;
use crate::config::cluster::ReadFrom;
use crate::config::target::{Endpoint, Target};
use crate::error::UsageError;
use crate::protocol::wire::Protocol;

const FLAG: &str = "--read-server";

/// `--read-server`: where reads go, and how they are spread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadServer {
    /// Host name or literal address (IPv6 without brackets).
    pub host: String,
    /// TCP port.
    pub port: u16,
    /// `--read-from` (or `--read-preference`): `replica` unless given;
    /// never `primary`, which would leave the endpoint unused.
    pub read_from: ReadFrom,
}

impl ReadServer {
    /// `host:port`, IPv6 bracketed, as the per-node rows name it.
    pub fn address(&self) -> String {
        Endpoint::Tcp {
            host: self.host.clone(),
            port: self.port,
            family: crate::config::target::AddressFamily::Any,
        }
        .to_string()
    }
}

/// `HOST:PORT`, the host an IPv6 literal in brackets; `None` when malformed.
fn parse_address(text: &str) -> Option<(String, u16)> {
    let (host, port) = text.rsplit_once(':')?;
    let host = match host.strip_prefix('[') {
        Some(inner) => inner.strip_suffix(']')?,
        // An unbracketed IPv6 address would be split at its last colon.
        None if host.contains(':') => return None,
        None => host,
    };
    let port: u16 = port.parse().ok().filter(|&p| p > 0)?;
    (!host.is_empty() && !host.contains(char::is_whitespace)).then(|| (host.to_string(), port))
}

/// `--read-server`, checked against the target and the other flags: `None`
/// without it, and with `--memtier-compat` but no `--read-preference`
/// (memtier's `primary`). `--read-from` applies to it (replica, any or
/// nearest).
pub(super) fn build_read_server(
    a: &Args,
    target: &Target,
) -> Result<Option<ReadServer>, UsageError> {
    let given = a.read_server.as_deref().unwrap_or_default();
    let Some(text) = given.first() else {
        return Ok(None);
    };
    let fail = |why: String| Err(UsageError::new(FLAG, why));
    if given.len() > 1 {
        return fail(format!(
            "is given {} times; give one read endpoint, as memtier takes",
            given.len()
        ));
    }
    let Some((host, port)) = parse_address(text) else {
        return fail(format!(
            "`{text}` is not HOST:PORT; give e.g. --read-server 10.0.0.2:6379 (an IPv6 address in brackets: [::1]:6380)"
        ));
    };
    if a.cluster_mode {
        return fail(
            "is memtier's standalone read endpoint, and --cluster-mode finds the replicas itself; drop --read-server (use --read-from replica) or drop --cluster-mode".into(),
        );
    }
    if matches!(
        target.protocol,
        Protocol::MemcacheText | Protocol::MemcacheBinary | Protocol::MemcacheMeta
    ) {
        return fail(format!(
            "sends reads to a Redis replica, and -P {} has none; use -P redis, resp2 or resp3, or drop it",
            target.protocol.name()
        ));
    }
    if let Endpoint::Unix(path) = &target.endpoint {
        return fail(format!(
            "needs the writes over TCP too, and they go to a Unix socket ({}); give the write server with --server/--port",
            path.display()
        ));
    }
    if a.scan_incremental_iteration {
        return fail(
            "cannot go with --scan-incremental-iteration: each SCAN follows the cursor of the server that answered the one before; drop one".into(),
        );
    }
    let read_from = match a.read_from.as_deref() {
        // memtier's default preference is `primary`: every read goes to
        // --server and the endpoint carries nothing.
        None if a.memtier_compat => return Ok(None),
        None => ReadFrom::Replica,
        Some(text) => ReadFrom::parse(text).ok_or_else(|| {
            UsageError::new(
                "--read-from",
                format!("'{text}' is not a choice; use replica, any or nearest"),
            )
        })?,
    };
    if read_from == ReadFrom::Primary {
        return Err(UsageError::new(
            "--read-from",
            "primary sends every read to --server, leaving --read-server unused; drop --read-server, or use replica, any or nearest",
        ));
    }
    Ok(Some(ReadServer {
        host,
        port,
        read_from,
    }))
}

#[cfg(test)]
mod tests {
    use super::parse_address;

    #[test]
    fn host_port_with_ipv6_in_brackets_and_nothing_malformed() {
        assert_eq!(
            parse_address("10.0.0.2:6380"),
            Some(("10.0.0.2".into(), 6380))
        );
        assert_eq!(
            parse_address("reader.example:1"),
            Some(("reader.example".into(), 1))
        );
        assert_eq!(parse_address("[::1]:6380"), Some(("::1".into(), 6380)));
        for bad in [
            "",
            "6380",
            "host",
            "host:",
            ":6380",
            "host:0",
            "host:65536",
            "host:x",
            "::1:6380",
            "[::1:6380",
            "a b:1",
        ] {
            assert_eq!(parse_address(bad), None, "{bad}");
        }
    }
}
