//! `--watch URI`: the components that stand behind the target endpoint
//! (the shards behind a proxy, the proxy's host, the proxy's own
//! statistics), validated into [`Watch`]es before any connection opens.
//!
//! | URI | what is read |
//! |---|---|
//! | `redis://[user:pass@]host:port`, `rediss://…` | a backend's INFO, as the target's |
//! | `memcached://host:port` | a backend's `stats` |
//! | `node://host:port` | a Prometheus node exporter's `/metrics` |
//! | `twemproxy://host:port` | twemproxy's stats port (JSON) |
//!
//! A backend without credentials in its URI logs in with the target's
//! (`-a`, `KVBENCH_AUTH`, `--auth-file`). Every address shown in a report is
//! `host:port`: a password never leaves this module but in the [`Target`].

use percent_encoding::percent_decode_str;
use url::Url;

use crate::config::target::{AddressFamily, Auth, Endpoint, Target, redact_uri};
use crate::config::tls::{TlsClient, TlsSettings};
use crate::error::UsageError;
use crate::protocol::wire::Protocol;

/// What a watched component is, and so how it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchKind {
    /// A Redis server (or anything answering INFO): a shard.
    Redis,
    /// A memcached server: a shard.
    Memcached,
    /// A Prometheus node exporter: the host it runs on.
    Node,
    /// twemproxy's stats port: the proxy.
    Twemproxy,
}

impl WatchKind {
    /// The URI scheme, and the report's `kind`.
    pub fn name(self) -> &'static str {
        match self {
            WatchKind::Redis => "redis",
            WatchKind::Memcached => "memcached",
            WatchKind::Node => "node",
            WatchKind::Twemproxy => "twemproxy",
        }
    }
}

/// One `--watch`.
#[derive(Debug, Clone)]
pub struct Watch {
    /// How it is read.
    pub kind: WatchKind,
    /// `host:port`, as reports show it (never with credentials).
    pub address: String,
    /// Where to connect: for a shard, with its credentials and protocol.
    pub target: Target,
}

/// The `--watch` URIs of a run; `main` is the target, whose credentials,
/// timeout and TLS files a backend without its own uses.
pub(super) fn build_watches(
    uris: &[String],
    main: &Target,
    tls: &TlsSettings,
) -> Result<Vec<Watch>, UsageError> {
    let mut watches: Vec<Watch> = Vec::with_capacity(uris.len());
    for uri in uris {
        let watch = parse(uri, main, tls)?;
        if watches
            .iter()
            .any(|w| w.kind == watch.kind && w.address == watch.address)
        {
            return Err(UsageError::new(
                "--watch",
                format!(
                    "{}://{} is given twice; watch each component once",
                    watch.kind.name(),
                    watch.address
                ),
            ));
        }
        watches.push(watch);
    }
    Ok(watches)
}

/// `--barrier-server URI`: one server the shards of a barrier run meet on
/// (a `redis://`, `rediss://` or `memcached://` URI, read as a watch's);
/// `None` without the flag. It needs `--start-at barrier`.
pub(super) fn build_barrier_server(
    uri: Option<&str>,
    barrier: bool,
    main: &Target,
    tls: &TlsSettings,
) -> Result<Option<Target>, UsageError> {
    let Some(uri) = uri else {
        return Ok(None);
    };
    if !barrier {
        return Err(UsageError::new(
            "--barrier-server",
            "only applies with --start-at barrier; add it or remove this flag",
        ));
    }
    let server =
        parse(uri, main, tls).map_err(|e| UsageError::new("--barrier-server", e.message))?;
    match server.kind {
        WatchKind::Redis | WatchKind::Memcached => Ok(Some(server.target)),
        other => Err(UsageError::new(
            "--barrier-server",
            format!(
                "a barrier is kept on a Redis or memcached server, not on {}://; give redis://host:port or memcached://host:port",
                other.name()
            ),
        )),
    }
}

const FORMS: &str = "use redis://[user:pass@]host:port, rediss://…, memcached://host:port, node://host:port or twemproxy://host:port";

fn parse(uri: &str, main: &Target, tls: &TlsSettings) -> Result<Watch, UsageError> {
    let fail = |why: String| UsageError::new("--watch", why);
    let shown = redact_uri(uri);
    let url =
        Url::parse(uri).map_err(|e| fail(format!("cannot parse '{shown}' ({e}); {FORMS}")))?;
    let kind = match url.scheme() {
        "redis" | "rediss" => WatchKind::Redis,
        "memcached" => WatchKind::Memcached,
        "node" => WatchKind::Node,
        "twemproxy" => WatchKind::Twemproxy,
        other => {
            return Err(fail(format!(
                "scheme '{other}' of '{shown}' is not one kvbench reads; {FORMS}"
            )));
        }
    };
    let host = url
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or_else(|| fail(format!("'{shown}' has no host; {FORMS}")))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    // Each component's port is its own (a node exporter's 9100, twemproxy's
    // 22222, a shard's anything): no default would be right for all.
    let port = url
        .port()
        .ok_or_else(|| fail(format!("'{shown}' has no port; give host:port")))?;
    if !matches!(url.path(), "" | "/") {
        return Err(fail(format!(
            "'{shown}' has a path; a watch is host:port only (a shard's database does not change its counters)"
        )));
    }
    let decode = |s: &str| percent_decode_str(s).decode_utf8_lossy().into_owned();
    let auth = url.password().map(|password| Auth {
        user: Some(url.username()).filter(|u| !u.is_empty()).map(decode),
        password: decode(password),
    });
    if auth.is_some() && kind != WatchKind::Redis {
        return Err(fail(format!(
            "'{shown}' carries credentials, which only redis:// and rediss:// use"
        )));
    }
    let endpoint = Endpoint::Tcp {
        host: host.clone(),
        port,
        family: AddressFamily::Any,
    };
    let address = endpoint.to_string();
    let tls = match url.scheme() {
        "rediss" => Some(TlsClient::new(tls.clone(), &host)?),
        _ => None,
    };
    let target = Target {
        endpoint,
        auth: match kind {
            WatchKind::Redis => auth.or_else(|| main.auth.clone()),
            _ => None,
        },
        db: 0,
        connect_timeout: main.connect_timeout,
        tls,
        protocol: match kind {
            WatchKind::Memcached => Protocol::MemcacheText,
            _ => Protocol::Redis,
        },
    };
    Ok(Watch {
        kind,
        address,
        target,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn main_target() -> Target {
        Target {
            endpoint: Endpoint::Tcp {
                host: "127.0.0.1".into(),
                port: 22121,
                family: AddressFamily::Any,
            },
            auth: Auth::parse("fromtarget"),
            db: 0,
            connect_timeout: std::time::Duration::from_secs(3),
            tls: None,
            protocol: Protocol::Redis,
        }
    }

    fn watches(uris: &[&str]) -> Result<Vec<Watch>, UsageError> {
        let uris: Vec<String> = uris.iter().map(|u| u.to_string()).collect();
        build_watches(&uris, &main_target(), &TlsSettings::default())
    }

    #[test]
    fn each_scheme_gives_its_kind_and_an_address_without_credentials() {
        let w = watches(&[
            "redis://u:secret@127.0.0.1:7001",
            "memcached://127.0.0.1:11211",
            "node://127.0.0.1:9100",
            "twemproxy://[::1]:22222",
        ])
        .unwrap();
        let kinds: Vec<WatchKind> = w.iter().map(|w| w.kind).collect();
        assert_eq!(
            kinds,
            [
                WatchKind::Redis,
                WatchKind::Memcached,
                WatchKind::Node,
                WatchKind::Twemproxy
            ]
        );
        assert_eq!(w[0].address, "127.0.0.1:7001");
        assert_eq!(w[3].address, "[::1]:22222");
        assert_eq!(w[0].target.auth.as_ref().unwrap().password, "secret");
        assert_eq!(w[1].target.protocol, Protocol::MemcacheText);
        assert!(w[2].target.auth.is_none());
    }

    #[test]
    fn a_shard_without_credentials_logs_in_with_the_targets() {
        let w = watches(&["redis://127.0.0.1:7001"]).unwrap();
        assert_eq!(w[0].target.auth.as_ref().unwrap().password, "fromtarget");
    }

    #[test]
    fn bad_uris_name_the_flag_and_never_the_password() {
        for (uri, says) in [
            ("ftp://127.0.0.1:1", "not one kvbench reads"),
            ("redis://", "no host"),
            ("node://127.0.0.1", "no port"),
            ("redis://127.0.0.1:7001/3", "has a path"),
            ("memcached://u:hunter2@127.0.0.1:1", "carries credentials"),
            ("not a uri", "cannot parse"),
        ] {
            let e = watches(&[uri]).unwrap_err();
            assert_eq!(e.flag, "--watch", "{uri}");
            assert!(e.message.contains(says), "{uri}: {}", e.message);
            assert!(!e.message.contains("hunter2"), "{}", e.message);
        }
    }

    #[test]
    fn a_barrier_server_is_a_redis_or_memcached_uri_with_a_barrier() {
        let build = |uri: &str, barrier: bool| {
            build_barrier_server(Some(uri), barrier, &main_target(), &TlsSettings::default())
        };
        let t = build("redis://127.0.0.1:7001", true).unwrap().unwrap();
        assert_eq!(t.endpoint.to_string(), "127.0.0.1:7001");
        assert_eq!(t.auth.as_ref().unwrap().password, "fromtarget");
        for (uri, barrier, says) in [
            (
                "redis://127.0.0.1:7001",
                false,
                "only applies with --start-at barrier",
            ),
            ("node://127.0.0.1:9100", true, "not on node://"),
            ("redis://127.0.0.1", true, "no port"),
        ] {
            let e = build(uri, barrier).unwrap_err();
            assert_eq!(e.flag, "--barrier-server");
            assert!(e.message.contains(says), "{uri}: {}", e.message);
        }
    }

    #[test]
    fn the_same_component_twice_is_refused() {
        let e = watches(&["node://127.0.0.1:9100", "node://127.0.0.1:9100"]).unwrap_err();
        assert!(e.message.contains("given twice"), "{}", e.message);
    }
}
