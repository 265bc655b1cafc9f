//! TLS settings: memtier's `--tls`, `--cert`, `--key`, `--cacert`,
//! `--tls-skip-verify`, `--sni` and `--tls-protocols` turned into one rustls [`ClientConfig`],
//! built once while the configuration is validated. The sockets that use it
//! are `engine::worker::net`'s.
//!
//! What a failed handshake means for the user (a message that names the flag
//! to change) is `engine/worker/net/tls_failure.rs`.
//!
//! Everything here can fail only before the first connection: a file that does
//! not read or parse, a certificate without its key, a key that does not match.
//! The config is shared (`Arc`) by every connection of every thread, so its
//! session cache lets a reconnect resume the TLS session where the server
//! offers it.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    ClientConfig, ClientConnection, DigitallySignedStruct, RootCertStore, SignatureScheme,
};

use crate::error::UsageError;

/// What the user asked for, kept for reports (paths, not contents).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsSettings {
    /// `--cert`: the client certificate chain (PEM), for mutual TLS.
    pub cert: Option<PathBuf>,
    /// `--key`: the client certificate's private key (PEM).
    pub key: Option<PathBuf>,
    /// `--cacert`: the CA certificates (PEM) that sign the server's certificate;
    /// without it the system's CA store is used.
    pub cacert: Option<PathBuf>,
    /// `--tls-skip-verify`: accept any server certificate.
    pub skip_verify: bool,
    /// `--sni`: the server name sent in the handshake and checked against the
    /// certificate; without it, the host name (or address) connected to.
    pub sni: Option<String>,
    /// `--tls-protocols`: the versions offered; empty offers both.
    pub protocols: Vec<TlsVersion>,
}

/// A TLS version rustls can speak (TLS 1.0 and 1.1 are deprecated by RFC 8996
/// and not implemented by rustls).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsVersion {
    /// TLS 1.2.
    Tls12,
    /// TLS 1.3.
    Tls13,
}

impl TlsVersion {
    /// Parses memtier's `--tls-protocols` list (`TLSv1.2,TLSv1.3`).
    pub fn parse_list(list: &str) -> Result<Vec<TlsVersion>, UsageError> {
        let mut versions = Vec::new();
        for name in list.split([',', ' ']).filter(|n| !n.is_empty()) {
            let version = match name {
                "TLSv1.2" => TlsVersion::Tls12,
                "TLSv1.3" => TlsVersion::Tls13,
                "TLSv1" | "TLSv1.0" | "TLSv1.1" => {
                    return Err(UsageError::new(
                        "--tls-protocols",
                        format!(
                            "{name} is deprecated (RFC 8996) and rustls does not speak it; use TLSv1.2 and/or TLSv1.3"
                        ),
                    ));
                }
                other => {
                    return Err(UsageError::new(
                        "--tls-protocols",
                        format!(
                            "unknown version '{other}'; give TLSv1.2 and/or TLSv1.3, comma-separated"
                        ),
                    ));
                }
            };
            if !versions.contains(&version) {
                versions.push(version);
            }
        }
        if versions.is_empty() {
            return Err(UsageError::new(
                "--tls-protocols",
                "is empty; give TLSv1.2 and/or TLSv1.3, comma-separated",
            ));
        }
        Ok(versions)
    }

    /// memtier's name of the version.
    pub fn name(self) -> &'static str {
        match self {
            TlsVersion::Tls12 => "TLSv1.2",
            TlsVersion::Tls13 => "TLSv1.3",
        }
    }

    fn rustls(self) -> &'static rustls::SupportedProtocolVersion {
        match self {
            TlsVersion::Tls12 => &rustls::version::TLS12,
            TlsVersion::Tls13 => &rustls::version::TLS13,
        }
    }
}

/// A ready TLS client: the shared rustls config and the server name.
#[derive(Clone)]
pub struct TlsClient {
    config: Arc<ClientConfig>,
    server_name: ServerName<'static>,
    /// What the config was built from.
    pub settings: TlsSettings,
}

// rustls's config prints every key-exchange group and cipher suite; a report
// or an error chain needs only what the user chose.
impl fmt::Debug for TlsClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsClient")
            .field("server_name", &self.server_name)
            .field("settings", &self.settings)
            .finish()
    }
}

impl TlsClient {
    /// Reads the files and builds the config; `host` is the name or address
    /// connected to, the server name unless `--sni` gives one. Every error names
    /// the flag whose value is at fault.
    pub fn new(settings: TlsSettings, host: &str) -> Result<TlsClient, UsageError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let versions: Vec<_> = if settings.protocols.is_empty() {
            rustls::DEFAULT_VERSIONS.to_vec()
        } else {
            settings.protocols.iter().map(|v| v.rustls()).collect()
        };
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(&versions)
            .map_err(|e| UsageError::new("--tls-protocols", format!("cannot set up TLS: {e}")))?;
        let builder = if settings.skip_verify {
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(AcceptAnyCertificate {
                    algorithms: provider.signature_verification_algorithms,
                }))
        } else {
            builder.with_root_certificates(root_store(settings.cacert.as_deref())?)
        };
        let config = match (&settings.cert, &settings.key) {
            (Some(cert), Some(key)) => {
                let chain = read_certificates("--cert", cert)?;
                let key_der = super::tls_key::load_key(key, &provider)?;
                builder
                    .with_client_auth_cert(chain, key_der)
                    .map_err(|e| match e {
                        rustls::Error::InconsistentKeys(_) => UsageError::new(
                            "--key",
                            format!(
                                "{} is not the key of the certificate of --cert {}: {e}",
                                key.display(),
                                cert.display()
                            ),
                        ),
                        _ => UsageError::new(
                            "--cert",
                            format!(
                                "{} cannot serve as a client certificate ({e}); TLS needs an X.509 v3 certificate",
                                cert.display()
                            ),
                        ),
                    })?
            }
            (Some(_), None) => {
                return Err(UsageError::new(
                    "--cert",
                    "needs its private key: add --key FILE",
                ));
            }
            (None, Some(_)) => {
                return Err(UsageError::new(
                    "--key",
                    "needs the certificate it belongs to: add --cert FILE",
                ));
            }
            (None, None) => builder.with_no_client_auth(),
        };
        let name = settings.sni.clone().unwrap_or_else(|| host.to_string());
        let flag = if settings.sni.is_some() {
            "--sni"
        } else {
            "--server"
        };
        let server_name = ServerName::try_from(name.clone()).map_err(|_| {
            UsageError::new(
                flag,
                format!("'{name}' is neither a DNS name nor an IP address, so TLS cannot check the server's certificate against it"),
            )
        })?;
        Ok(TlsClient {
            config: Arc::new(config),
            server_name,
            settings,
        })
    }

    /// A new client-side TLS session, its ClientHello already queued.
    pub fn connection(&self) -> Result<ClientConnection, rustls::Error> {
        ClientConnection::new(self.config.clone(), self.server_name.clone())
    }

    /// The name the server's certificate is checked against.
    pub fn server_name(&self) -> String {
        self.server_name.to_str().into_owned()
    }
}

/// `--cacert`'s certificates, or the system's CA store when it is not given.
fn root_store(cacert: Option<&Path>) -> Result<RootCertStore, UsageError> {
    let mut roots = RootCertStore::empty();
    match cacert {
        Some(path) => {
            // A directory (redis-benchmark's --cacertdir) holds one or more
            // PEM files: every certificate of each is trusted.
            let certs = if path.is_dir() {
                certificates_of_dir(path)?
            } else {
                read_certificates("--cacert", path)?
            };
            for cert in certs {
                roots.add(cert).map_err(|e| {
                    UsageError::new(
                        "--cacert",
                        format!("{} holds a certificate that is no CA: {e}", path.display()),
                    )
                })?;
            }
        }
        None => {
            // Unreadable entries of the system store are skipped, as OpenSSL does.
            let found = rustls_native_certs::load_native_certs();
            let (added, _) = roots.add_parsable_certificates(found.certs);
            if added == 0 {
                return Err(UsageError::new(
                    "--cacert",
                    "no CA certificates were found on this machine: give the CA of the server's certificate with --cacert FILE, or --tls-skip-verify for a test server",
                ));
            }
        }
    }
    Ok(roots)
}

/// Every PEM certificate of the files in `dir` (a file that holds none, a
/// key say, is skipped); none at all is an error of `--cacertdir`.
fn certificates_of_dir(dir: &Path) -> Result<Vec<CertificateDer<'static>>, UsageError> {
    let bad = |e: &dyn fmt::Display| {
        UsageError::new(
            "--cacertdir",
            format!("cannot read the directory {}: {e}", dir.display()),
        )
    };
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| bad(&e))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_file())
        .collect();
    // In name order, so the same directory gives the same store.
    files.sort();
    let mut certs = Vec::new();
    for file in files {
        if let Ok(found) = read_certificates("--cacertdir", &file) {
            certs.extend(found);
        }
    }
    if certs.is_empty() {
        return Err(bad(&"no file in it holds a CERTIFICATE block"));
    }
    Ok(certs)
}

/// Every PEM certificate of `path`; none at all is an error of `flag`.
fn read_certificates(flag: &str, path: &Path) -> Result<Vec<CertificateDer<'static>>, UsageError> {
    let bad = |e: &dyn fmt::Display| {
        UsageError::new(
            flag,
            format!("cannot read PEM certificates from {}: {e}", path.display()),
        )
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| bad(&e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(&e))?;
    if certs.is_empty() {
        return Err(bad(&"the file holds no CERTIFICATE block"));
    }
    Ok(certs)
}

/// `--tls-skip-verify`: accepts any certificate for any name, as memtier does
/// with this flag. It still checks that the server holds the key of the
/// certificate it sent (the handshake signatures), so the session is encrypted
/// to whoever answered, but nothing proves who that is: for test servers only.
#[derive(Debug)]
struct AcceptAnyCertificate {
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for AcceptAnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_protocols_reads_memtiers_list_once_per_version() {
        use TlsVersion::{Tls12, Tls13};
        assert_eq!(
            TlsVersion::parse_list("TLSv1.2,TLSv1.3").unwrap(),
            [Tls12, Tls13]
        );
        assert_eq!(TlsVersion::parse_list("TLSv1.3 TLSv1.3").unwrap(), [Tls13]);
        for (list, text) in [
            ("TLSv1.1", "RFC 8996"),
            ("TLSv1", "RFC 8996"),
            ("tls1.2", "unknown version"),
            (",", "is empty"),
        ] {
            let e = TlsVersion::parse_list(list).unwrap_err();
            assert_eq!(e.flag, "--tls-protocols");
            assert!(e.message.contains(text), "{list}: {}", e.message);
        }
    }

    #[test]
    fn the_server_name_is_the_host_unless_sni_is_given() {
        let skip = TlsSettings {
            skip_verify: true,
            ..TlsSettings::default()
        };
        assert_eq!(
            TlsClient::new(skip.clone(), "127.0.0.1")
                .unwrap()
                .server_name(),
            "127.0.0.1"
        );
        let sni = TlsSettings {
            sni: Some("cache.example".into()),
            ..skip.clone()
        };
        assert_eq!(
            TlsClient::new(sni, "127.0.0.1").unwrap().server_name(),
            "cache.example"
        );
        let e = TlsClient::new(skip, "bad host").unwrap_err();
        assert_eq!(e.flag, "--server");
    }
}
