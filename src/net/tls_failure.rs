//! What a failed TLS handshake tells the user: the rustls error turned into the
//! flag to change (`--cacert`, `--sni`, `--cert`, `--tls-protocols`, `--tls`)
//! and the fix, so that every certificate problem is one line and exit 2.

use rustls::{AlertDescription, CertificateError};

use crate::net::tls::TlsClient;

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
        E::AlertReceived(AlertDescription::ProtocolVersion)
        | E::PeerIncompatible(rustls::PeerIncompatible::ServerDoesNotSupportTls12Or13) => (
            "--tls-protocols",
            format!(
                "the server speaks none of the TLS versions offered ({error}); give --tls-protocols the versions the server has, or leave it out to offer TLSv1.2 and TLSv1.3"
            ),
        ),
        E::InvalidMessage(_) => (
            "--tls",
            format!(
                "the server did not answer in TLS ({error}); is this port a TLS port? drop --tls for a plain one"
            ),
        ),
        _ => (
            "--tls",
            format!(
                "the TLS handshake failed ({error}); check that this port speaks TLS, or drop --tls for a plain one"
            ),
        ),
    };
    TlsFailure { flag, message }
}

/// A TLS connection the server closed without an alert: the advice for a
/// plain connection ("add --tls") would be wrong here.
pub fn closed(e: &std::io::Error) -> Option<TlsFailure> {
    use std::io::ErrorKind;
    matches!(e.kind(), ErrorKind::UnexpectedEof | ErrorKind::ConnectionReset).then(|| TlsFailure {
        flag: "--tls",
        message: format!(
            "the server closed the TLS connection ({e}); is this a TLS port, and do its TLS settings (tls-protocols, tls-auth-clients) accept this client? drop --tls for a plain port"
        ),
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::tls::TlsSettings;
    use rustls::InvalidMessage;

    fn client(with_cert: bool) -> TlsClient {
        let mut tls = TlsClient::new(
            TlsSettings {
                skip_verify: true,
                ..TlsSettings::default()
            },
            "127.0.0.1",
        )
        .unwrap();
        // Only the settings matter to the explanation; no file is read here.
        tls.settings.cert = with_cert.then(|| "client.crt".into());
        tls
    }

    #[test]
    fn each_certificate_problem_names_the_flag_that_fixes_it() {
        let cases = [
            (
                rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer),
                false,
                "--cacert",
            ),
            (
                rustls::Error::InvalidCertificate(CertificateError::NotValidForName),
                false,
                "--sni",
            ),
            (
                rustls::Error::InvalidCertificate(CertificateError::Expired),
                false,
                "--tls-skip-verify",
            ),
            (
                rustls::Error::AlertReceived(AlertDescription::CertificateRequired),
                false,
                "--cert",
            ),
            (
                rustls::Error::AlertReceived(AlertDescription::UnknownCA),
                true,
                "--cert",
            ),
            (
                rustls::Error::AlertReceived(AlertDescription::ProtocolVersion),
                false,
                "--tls-protocols",
            ),
            (
                rustls::Error::InvalidMessage(InvalidMessage::InvalidContentType),
                false,
                "--tls",
            ),
            (rustls::Error::HandshakeNotComplete, false, "--tls"),
        ];
        for (error, with_cert, flag) in cases {
            let failure = explain(&error, &client(with_cert));
            assert_eq!(failure.flag, flag, "{error:?}: {}", failure.message);
            assert!(
                failure.message.contains("--"),
                "{error:?}: no fix in {}",
                failure.message
            );
        }
        // Without a client certificate, an unknown-CA alert is about the server's CA
        // list, not about a certificate kvbench sent.
        let unknown_ca = rustls::Error::AlertReceived(AlertDescription::UnknownCA);
        assert_eq!(explain(&unknown_ca, &client(false)).flag, "--tls");
    }

    #[test]
    fn the_rustls_error_is_found_inside_an_io_error() {
        let io = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer),
        );
        assert!(matches!(
            rustls_error(&io),
            Some(rustls::Error::InvalidCertificate(_))
        ));
        assert!(rustls_error(&std::io::Error::other("plain")).is_none());
    }
}
