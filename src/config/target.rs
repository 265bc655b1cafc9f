//! Where to connect and how to log in: the validated target of a run.
//!
//! Built from `-s/-p/-S/-4/-6/-u/-a/--select-db` by [`crate::config`]. The password
//! lives only here; everything that prints a target goes through
//! [`Target::display_redacted`] or [`Auth::redacted`], so it cannot leak into a
//! report, the JSON or an error message.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use percent_encoding::percent_decode_str;
use url::Url;

use crate::config::tls::TlsClient;
use crate::protocol::wire::Protocol;

/// Which address family to use when the server is given as a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressFamily {
    /// Whatever the resolver returns first.
    Any,
    /// `-4`
    V4,
    /// `-6`
    V6,
}

/// The server's address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A host name or IP address and a TCP port.
    Tcp {
        /// Name or literal address.
        host: String,
        /// TCP port.
        port: u16,
        /// `-4` / `-6`.
        family: AddressFamily,
    },
    /// A UNIX domain socket path (`-S`).
    Unix(PathBuf),
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Endpoint::Tcp { host, port, .. } if host.contains(':') => write!(f, "[{host}]:{port}"),
            Endpoint::Tcp { host, port, .. } => write!(f, "{host}:{port}"),
            Endpoint::Unix(path) => write!(f, "unix:{}", path.display()),
        }
    }
}

/// Credentials for `AUTH`: a password, or an ACL user and password.
#[derive(Clone, PartialEq, Eq)]
pub struct Auth {
    /// ACL user name; `None` authenticates as the default user.
    pub user: Option<String>,
    /// The secret. Never printed.
    pub password: String,
}

impl Auth {
    /// Parses memtier's `-a` form: `password`, or `user:password` split at the
    /// first colon (so a default-user password containing a colon is written
    /// `default:pa:ss`).
    pub fn parse(credentials: &str) -> Option<Auth> {
        if credentials.is_empty() {
            return None;
        }
        Some(match credentials.split_once(':') {
            Some((user, password)) if !user.is_empty() => Auth {
                user: Some(user.to_string()),
                password: password.to_string(),
            },
            _ => Auth {
                user: None,
                password: credentials.to_string(),
            },
        })
    }

    /// What reports show instead of the credentials.
    pub fn redacted(&self) -> String {
        match &self.user {
            Some(user) => format!("{user}:<redacted>"),
            None => "<redacted>".to_string(),
        }
    }
}

// A hand-written Debug keeps the password out of `{:?}` output, which ends up in
// panics and error chains.
impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.redacted())
    }
}

/// Everything needed to open and prepare one connection.
#[derive(Debug, Clone)]
pub struct Target {
    /// The server's address.
    pub endpoint: Endpoint,
    /// Credentials for AUTH, if any.
    pub auth: Option<Auth>,
    /// Database to SELECT; 0 sends no SELECT.
    pub db: u32,
    /// Bound on connect plus handshake.
    pub connect_timeout: Duration,
    /// `--tls`: the TLS client every TCP connection runs through.
    pub tls: Option<TlsClient>,
    /// `-P/--protocol`: the wire every connection speaks, which also decides
    /// the handshake and how the server's evidence is read.
    pub protocol: Protocol,
}

impl Target {
    /// The endpoint plus a redacted user, for reports.
    pub fn display_redacted(&self) -> String {
        match &self.auth {
            Some(auth) => format!("{} (auth {})", self.endpoint, auth.redacted()),
            None => self.endpoint.to_string(),
        }
    }
}

/// The parts of a `redis://user:password@host:port/db` URI.
#[derive(Debug, PartialEq, Eq)]
pub struct UriParts {
    /// Host name or address.
    pub host: String,
    /// Port, when the URI gives one.
    pub port: Option<u16>,
    /// Credentials, when the URI gives a password.
    pub auth: Option<Auth>,
    /// Database number, when the URI has a path.
    pub db: Option<u32>,
    /// `rediss://`: connect over TLS, as `--tls` does.
    pub tls: bool,
}

/// `uri` as an error message may show it: the password of its user info
/// (`redis://user:secret@host`) replaced by `***`, however malformed the rest
/// is, since the URI could not be parsed to find it.
pub fn redact_uri(uri: &str) -> String {
    // The user info follows the scheme's `://`, or its `:` alone in a form
    // such as `redis:user:pw@host`, which the URL parser takes for a path.
    let Some(scheme_end) = uri
        .find("://")
        .map(|i| i + 3)
        .or_else(|| uri.find(':').map(|i| i + 1))
    else {
        return uri.to_string();
    };
    let rest = &uri[scheme_end..];
    // The user info ends at the last '@' before the path; a password may
    // itself hold '@' or '/' when not percent-encoded, so take the last '@'.
    let Some(at) = rest.rfind('@') else {
        return uri.to_string();
    };
    let userinfo = &rest[..at];
    let shown = match userinfo.find(':') {
        Some(colon) => format!("{}:***", &userinfo[..colon]),
        None => "***".to_string(),
    };
    format!("{}{shown}{}", &uri[..scheme_end], &rest[at..])
}

/// Why a `-u/--uri` could not be read; `config` adds the flag. Each says
/// what a valid URI looks like, and none holds the URI's password: `shown`
/// is the URI with its password masked ([`redact_uri`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UriError {
    /// Not a URL at all.
    #[error("cannot parse '{shown}' ({reason}); expected redis://[user:password@]host[:port][/db]")]
    Unparsable {
        /// The URI, password masked.
        shown: String,
        /// What the URL parser said.
        reason: url::ParseError,
    },
    /// A scheme other than `redis` and `rediss`.
    #[error("scheme '{0}' is not supported; use redis://, or rediss:// for TLS")]
    Scheme(String),
    /// No host between `//` and the port or path.
    #[error("'{shown}' has no host; expected redis://host[:port][/db]")]
    NoHost {
        /// The URI, password masked.
        shown: String,
    },
    /// A path that is not a database number.
    #[error("the database in '{shown}' is not a number; expected /0, /1, ...")]
    Database {
        /// The URI, password masked.
        shown: String,
    },
}

/// Parses `-u/--uri`. The error says what is wrong and what a valid URI
/// looks like, and never shows the URI's password.
pub fn parse_uri(uri: &str) -> Result<UriParts, UriError> {
    let shown = || redact_uri(uri);
    let url = Url::parse(uri).map_err(|reason| UriError::Unparsable {
        shown: shown(),
        reason,
    })?;
    match url.scheme() {
        "redis" | "rediss" => {}
        other => return Err(UriError::Scheme(other.to_string())),
    }
    let host = url
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or_else(|| UriError::NoHost { shown: shown() })?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    // User names and passwords arrive percent-encoded in a URI (`p%40ss` for `p@ss`).
    let decode = |s: &str| percent_decode_str(s).decode_utf8_lossy().into_owned();
    let auth = url.password().map(|password| Auth {
        user: Some(url.username()).filter(|u| !u.is_empty()).map(decode),
        password: decode(password),
    });
    let db = match url.path().trim_start_matches('/') {
        "" => None,
        // The path is shown only as part of the redacted URI: a password
        // holding '/' ends the URL's authority early, leaving its tail here.
        path => Some(
            path.parse::<u32>()
                .map_err(|_| UriError::Database { shown: shown() })?,
        ),
    };
    Ok(UriParts {
        host,
        port: url.port(),
        auth,
        db,
        tls: url.scheme() == "rediss",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auth_splits_user_at_the_first_colon() {
        let a = Auth::parse("alice:se:cret").unwrap();
        assert_eq!(a.user.as_deref(), Some("alice"));
        assert_eq!(a.password, "se:cret");
        let b = Auth::parse("secret").unwrap();
        assert_eq!(b.user, None);
        assert_eq!(b.password, "secret");
        assert!(Auth::parse("").is_none());
    }

    #[test]
    fn auth_debug_and_display_never_show_the_password() {
        let a = Auth::parse("alice:topsecret").unwrap();
        assert!(!format!("{a:?}").contains("topsecret"));
        assert!(!a.redacted().contains("topsecret"));
    }

    #[test]
    fn no_uri_error_shows_the_password() {
        // Each malformed in its own way, each with the password in its user info.
        for uri in [
            "redis://bob:CANARY-7f3@127.0.0.1:notaport",
            "redis://bob:CANARY-7f3@/0",
            "redis://bob:CANARY-7f3@127.0.0.1:6379/db",
            "redis://:CANARY-7f3@[::1",
            "redis://bob:CANARY@7f3@127.0.0.1:99999",
            // No `//`: the URL parser reads the user info as a path.
            "redis:bob:CANARY-7f3@127.0.0.1",
            // A '/' in the password ends the authority: its tail is the path.
            "redis://bob:12/CANARY-7f3@127.0.0.1/0",
        ] {
            let e = parse_uri(uri).unwrap_err().to_string();
            assert!(!e.contains("CANARY"), "{uri}: {e}");
            assert!(!e.contains("7f3"), "{uri}: {e}");
        }
        // What is shown keeps the rest, so the user sees what to fix.
        assert_eq!(
            redact_uri("redis://bob:pw@host:1/2"),
            "redis://bob:***@host:1/2"
        );
        assert_eq!(redact_uri("redis://token@host"), "redis://***@host");
        assert_eq!(redact_uri("redis://host:1"), "redis://host:1");
    }

    #[test]
    fn uri_gives_host_port_auth_and_db() {
        let p = parse_uri("redis://bob:pw@127.0.0.1:7000/3").unwrap();
        assert_eq!(p.host, "127.0.0.1");
        assert_eq!(p.port, Some(7000));
        assert_eq!(p.db, Some(3));
        let auth = p.auth.unwrap();
        assert_eq!(auth.user.as_deref(), Some("bob"));
        assert_eq!(auth.password, "pw");
    }

    #[test]
    fn uri_without_user_authenticates_as_default() {
        let p = parse_uri("redis://:pw@localhost").unwrap();
        assert_eq!(p.auth.unwrap().user, None);
        assert_eq!(p.port, None);
        assert_eq!(p.db, None);
    }

    #[test]
    fn uri_with_ipv6_host_drops_brackets() {
        assert_eq!(parse_uri("redis://[::1]:6380").unwrap().host, "::1");
    }

    #[test]
    fn uri_errors_explain_the_fix() {
        assert!(parse_uri("rediss://h").unwrap().tls);
        assert!(!parse_uri("redis://h").unwrap().tls);
        assert!(
            parse_uri("http://h")
                .unwrap_err()
                .to_string()
                .contains("redis://")
        );
        assert!(
            parse_uri("redis://h/x")
                .unwrap_err()
                .to_string()
                .contains("database")
        );
        assert!(
            parse_uri("nonsense")
                .unwrap_err()
                .to_string()
                .contains("redis://")
        );
    }
}
