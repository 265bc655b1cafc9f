//! Validation of where to connect and how to log in: `-s/-p/-S/-4/-6/-u`,
//! `-a`, `KVBENCH_AUTH`, `--auth-file`, `--select-db`, `--protocol`,
//! `--connection-timeout`, and the TLS flags `--tls`, `--cert`, `--key`,
//! `--cacert`, `--tls-skip-verify`, `--sni`, `--tls-protocols`.

use crate::cli::Args;
use crate::config::compat::connect_timeout_secs;
use crate::config::target::{AddressFamily, Auth, Endpoint, Target, parse_uri};
use crate::config::tls::{TlsClient, TlsSettings, TlsVersion};
use crate::config::{KeySpace, NO_CONNECT_TIMEOUT, seconds};
use crate::error::UsageError;
use crate::protocol::options::{Setting, Unsupported};
use crate::protocol::wire::Protocol;
use crate::workload::ops::OpTable;

pub(super) fn build_target(a: &Args) -> Result<Target, UsageError> {
    if a.ipv4 && a.ipv6 {
        return Err(UsageError::new(
            "-4/-6",
            "choose one address family, not both",
        ));
    }
    let family = match (a.ipv4, a.ipv6) {
        (true, _) => AddressFamily::V4,
        (_, true) => AddressFamily::V6,
        _ => AddressFamily::Any,
    };
    let mut host = a.server.clone().unwrap_or_else(|| "127.0.0.1".to_string());
    let mut port = a.port.unwrap_or(6379);
    let from_file = read_auth_file(a)?;
    let mut auth = match from_file.as_deref().or(a.authenticate.as_deref()) {
        Some(text) => Some(Auth::parse(text).ok_or_else(|| {
            UsageError::new(
                "--authenticate",
                "is empty; give PASSWORD or USER:PASSWORD, or unset KVBENCH_AUTH",
            )
        })?),
        None => None,
    };
    let mut db = a.select_db.unwrap_or(0);
    let mut tls = a.tls;
    if let Some(uri) = &a.uri {
        let parts = parse_uri(uri).map_err(|e| UsageError::new("--uri", e.to_string()))?;
        host = parts.host;
        port = parts.port.unwrap_or(port);
        auth = parts.auth.or(auth);
        db = parts.db.unwrap_or(db);
        tls |= parts.tls;
    }
    let protocol = build_protocol(a)?;
    let asked = [
        auth.as_ref().map(|auth| Setting::Auth {
            user: auth.user.is_some(),
        }),
        (db != 0).then_some(Setting::Database),
        a.slowlog.then_some(Setting::Slowlog),
    ];
    refused(protocol, asked.into_iter().flatten())?;
    let endpoint = match &a.unix_socket {
        Some(_) if a.server.is_some() || a.uri.is_some() => {
            return Err(UsageError::new(
                "--unix-socket",
                "give either a UNIX socket or --server/--uri, not both",
            ));
        }
        Some(path) => Endpoint::Unix(path.clone()),
        None => Endpoint::Tcp { host, port, family },
    };
    let tls = build_tls(a, tls, &endpoint)?;
    Ok(Target {
        endpoint,
        auth,
        db,
        connect_timeout: match connect_timeout_secs(a) {
            Some(secs) => seconds("--connection-timeout", secs, false)?,
            None => NO_CONNECT_TIMEOUT,
        },
        tls,
        protocol,
    })
}

/// `-P/--protocol`, by memtier's names.
fn build_protocol(a: &Args) -> Result<Protocol, UsageError> {
    let text = a.protocol.as_deref().unwrap_or("redis");
    Protocol::parse(text).ok_or_else(|| {
        let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.name()).collect();
        UsageError::new(
            "--protocol",
            format!("unknown protocol '{text}'; use one of {}", names.join(", ")),
        )
    })
}

/// The first of the `asked` settings that `protocol` refuses, as the usage
/// error that names its flag.
pub(super) fn refused<'a>(
    protocol: Protocol,
    asked: impl IntoIterator<Item = Setting<'a>>,
) -> Result<(), UsageError> {
    match asked
        .into_iter()
        .find_map(|setting| protocol.refuses(setting))
    {
        Some(Unsupported { flag, message }) => Err(UsageError::new(flag, message)),
        None => Ok(()),
    }
}

/// `--tls` (or a `rediss://` URI, passed as `tls`) and its files: read and checked here, once, so a bad file is a usage
/// error before any connection. A TLS option without `--tls` is refused rather
/// than ignored, because the run would silently go out in plain text.
fn build_tls(a: &Args, tls: bool, endpoint: &Endpoint) -> Result<Option<TlsClient>, UsageError> {
    let settings = tls_settings(a)?;
    if !tls {
        let given = [
            ("--cert", settings.cert.is_some()),
            ("--key", settings.key.is_some()),
            ("--cacert", settings.cacert.is_some()),
            ("--tls-skip-verify", settings.skip_verify),
            ("--sni", settings.sni.is_some()),
            ("--tls-protocols", a.tls_protocols.is_some()),
        ];
        return match given.iter().find(|(_, set)| *set) {
            Some((flag, _)) => Err(UsageError::new(
                flag,
                "is a TLS option: add --tls (or use rediss://), or drop it to connect in plain text",
            )),
            None => Ok(None),
        };
    }
    match endpoint {
        Endpoint::Tcp { host, .. } => TlsClient::new(settings, host).map(Some),
        Endpoint::Unix(_) => Err(UsageError::new(
            "--tls",
            "runs over TCP only; drop --unix-socket and give --server/--port",
        )),
    }
}

/// The TLS files and options as given: the target's, and a `rediss://`
/// `--watch`'s.
pub(super) fn tls_settings(a: &Args) -> Result<TlsSettings, UsageError> {
    Ok(TlsSettings {
        cert: a.cert.clone(),
        key: a.key.clone(),
        cacert: a.cacert.clone(),
        skip_verify: a.tls_skip_verify,
        sni: a.sni.clone(),
        protocols: match &a.tls_protocols {
            Some(list) => TlsVersion::parse_list(list)?,
            None => Vec::new(),
        },
    })
}

/// `--auth-file`: the credentials on its first line, kept out of `ps` and history.
fn read_auth_file(a: &Args) -> Result<Option<String>, UsageError> {
    let Some(path) = &a.auth_file else {
        return Ok(None);
    };
    if a.authenticate.is_some() && std::env::var_os("KVBENCH_AUTH").is_none() {
        return Err(UsageError::new(
            "--auth-file",
            "give the credentials once: --auth-file or -a, not both",
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| {
        UsageError::new(
            "--auth-file",
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    let line = text.lines().next().unwrap_or_default().trim().to_string();
    if line.is_empty() {
        return Err(UsageError::new(
            "--auth-file",
            blank_first_line(path, &text),
        ));
    }
    Ok(Some(line))
}

/// Why a file whose first line holds no credentials is refused: empty, only
/// blank lines, or text further down (named by its line number, never shown,
/// since it may be the password).
fn blank_first_line(path: &std::path::Path, text: &str) -> String {
    let file = path.display();
    let fix = "put PASSWORD or USER:PASSWORD on its first line";
    if text.is_empty() {
        return format!("{file} is empty; {fix}");
    }
    match text.lines().position(|l| !l.trim().is_empty()) {
        Some(index) => format!(
            "{file}: its first line is blank, and only the first line is read (line {} has text); {fix}",
            index + 1
        ),
        None => format!("{file} has no line with text (its first line is blank); {fix}"),
    }
}

/// What the protocol cannot be sent: `--command` lines (memcached's
/// commands are not RESP templates) and keys it does not accept.
pub(super) fn check_workload(
    protocol: Protocol,
    ops: &OpTable,
    keys: &KeySpace,
) -> Result<(), UsageError> {
    let longest = keys.prefix.len() + itoa::Buffer::new().format(keys.range.max).len();
    let asked = [
        (!ops.default_pair).then_some(Setting::Commands),
        Some(Setting::Keys {
            prefix: &keys.prefix,
            longest,
        }),
    ];
    refused(protocol, asked.into_iter().flatten())
}
