//! TLS settings: memtier's `--tls`, `--cert`, `--key`, `--cacert`,
//! `--tls-skip-verify` and `--sni` turned into one rustls [`ClientConfig`],
//! built once while the configuration is validated, and the translation of a
//! failed TLS handshake into a message that names the flag to change.
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
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{
    AlertDescription, CertificateError, ClientConfig, ClientConnection, DigitallySignedStruct,
    RootCertStore, SignatureScheme,
};

use crate::config::UsageError;

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
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| UsageError::new("--tls", format!("cannot set up TLS: {e}")))?;
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
                let key_der = PrivateKeyDer::from_pem_file(key).map_err(|e| {
                    UsageError::new(
                        "--key",
                        format!(
                            "cannot read a PEM private key from {}: {e}; give the key of --cert",
                            key.display()
                        ),
                    )
                })?;
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
            for cert in read_certificates("--cacert", path)? {
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

/// A TLS failure explained: the flag to change and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFailure {
    /// The flag at fault.
    pub flag: &'static str,
    /// What went wrong and the fix.
    pub message: String,
}

/// Explains a rustls error met while connecting with `tls`.
pub fn explain(error: &rustls::Error, tls: &TlsClient) -> TlsFailure {
    use rustls::Error as E;
    let name = tls.server_name();
    let (flag, message) = match error {
        E::InvalidCertificate(CertificateError::UnknownIssuer | CertificateError::BadSignature) => (
            "--cacert",
            format!(
                "the server's certificate is not signed by a CA kvbench trusts ({error}); give the CA that signed it with --cacert FILE, or --tls-skip-verify for a test server"
            ),
        ),
        E::InvalidCertificate(
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
        ) => (
            "--sni",
            format!(
                "the server's certificate is not valid for '{name}'; give a name it holds with --sni NAME"
            ),
        ),
        E::InvalidCertificate(
            CertificateError::Expired
            | CertificateError::ExpiredContext { .. }
            | CertificateError::NotValidYet
            | CertificateError::NotValidYetContext { .. },
        ) => (
            "--tls-skip-verify",
            format!(
                "the server's certificate is outside its validity period ({error}); renew it on the server, or accept it with --tls-skip-verify"
            ),
        ),
        E::AlertReceived(AlertDescription::CertificateRequired | AlertDescription::HandshakeFailure)
            if tls.settings.cert.is_none() =>
        {
            (
                "--cert",
                "the server wants a client certificate (tls-auth-clients); give one with --cert FILE --key FILE".to_string(),
            )
        }
        E::AlertReceived(alert) if tls.settings.cert.is_some() && is_client_cert_alert(*alert) => (
            "--cert",
            format!(
                "the server refused the client certificate ({error}); give one signed by a CA the server trusts with --cert and --key"
            ),
        ),
        E::InvalidMessage(_) => (
            "--tls",
            format!(
                "the server did not answer in TLS ({error}); is this port a TLS port? drop --tls for a plain one"
            ),
        ),
        _ => ("--tls", format!("the TLS handshake failed: {error}")),
    };
    TlsFailure { flag, message }
}

fn is_client_cert_alert(alert: AlertDescription) -> bool {
    matches!(
        alert,
        AlertDescription::BadCertificate
            | AlertDescription::UnknownCA
            | AlertDescription::CertificateUnknown
            | AlertDescription::DecryptError
            | AlertDescription::CertificateRequired
            | AlertDescription::HandshakeFailure
    )
}

/// The rustls error inside an I/O error, where rustls put one (its streams
/// report TLS failures as `InvalidData` wrapping the rustls error).
pub fn rustls_error(e: &std::io::Error) -> Option<&rustls::Error> {
    e.get_ref()?.downcast_ref::<rustls::Error>()
}
