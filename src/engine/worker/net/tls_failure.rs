//! What a failed TLS handshake tells the user: the rustls error turned into the
//! flag to change (`--cacert`, `--sni`, `--cert`, `--tls-protocols`, `--tls`)
//! and the fix, so that every certificate problem is one line and exit 2.
//! A certificate outside its validity period is named with its dates, since
//! the fix (renewing it, or setting a clock) is on the server, not in a flag.

use rustls::pki_types::UnixTime;
use rustls::{AlertDescription, CertificateError, OtherError};

use crate::config::tls::TlsClient;
use crate::error::TlsFailure;

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
        E::InvalidCertificate(CertificateError::Other(other)) if self_signed(other) => (
            "--cacert",
            "the server's certificate is self-signed (a CA certificate serving as the server's own), so it is not signed by a CA kvbench trusts, and rustls refuses it even as --cacert; sign the server's certificate with a CA and give that CA with --cacert FILE, or --tls-skip-verify for a test server".to_string(),
        ),
        E::InvalidCertificate(CertificateError::ExpiredContext { time, not_after }) => (
            "--tls",
            format!(
                "the server's certificate expired on {} (it is now {}); renew it on the server, or accept it with --tls-skip-verify for a test server",
                utc(*not_after),
                utc(*time)
            ),
        ),
        E::InvalidCertificate(CertificateError::NotValidYetContext { time, not_before }) => (
            "--tls",
            format!(
                "the server's certificate is not valid before {} (it is now {}); check the clocks of the server's CA and of this machine, or accept it with --tls-skip-verify for a test server",
                utc(*not_before),
                utc(*time)
            ),
        ),
        E::InvalidCertificate(CertificateError::Expired | CertificateError::NotValidYet) => (
            "--tls",
            format!(
                "the server's certificate is outside its validity period ({error}); renew it on the server, or accept it with --tls-skip-verify for a test server"
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

/// webpki's `CaUsedAsEndEntity`: the server presented a CA certificate as its
/// own, which is what `openssl req -x509` makes of a self-signed certificate.
/// rustls passes this webpki error on only as an opaque [`OtherError`], whose
/// text is the variant's name.
fn self_signed(other: &OtherError) -> bool {
    other.to_string() == "CaUsedAsEndEntity"
}

/// `2020-01-02 00:00:00 UTC` (the proleptic Gregorian calendar of Howard
/// Hinnant's `civil_from_days`).
fn utc(time: UnixTime) -> String {
    let secs = time.as_secs();
    let (days, of_day) = (secs / 86_400, secs % 86_400);
    let z = days + 719_468;
    let (era, day_of_era) = (z / 146_097, z % 146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    format!(
        "{year}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    )
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
    use crate::config::tls::TlsSettings;
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
                "--tls",
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
    fn a_certificate_outside_its_dates_is_named_with_them_and_the_fix() {
        let at = UnixTime::since_unix_epoch;
        let expired = rustls::Error::InvalidCertificate(CertificateError::ExpiredContext {
            time: at(std::time::Duration::from_secs(1_796_163_663)),
            not_after: at(std::time::Duration::from_secs(1_577_923_200)),
        });
        let failure = explain(&expired, &client(false));
        assert_eq!(failure.flag, "--tls");
        assert!(
            failure
                .message
                .contains("expired on 2020-01-02 00:00:00 UTC (it is now 2026-12-01 22:21:03 UTC)"),
            "{}",
            failure.message
        );
        assert!(failure.message.contains("renew it"), "{}", failure.message);
        let early = rustls::Error::InvalidCertificate(CertificateError::NotValidYetContext {
            time: at(std::time::Duration::from_secs(951_782_400)),
            not_before: at(std::time::Duration::from_secs(951_868_799)),
        });
        let message = explain(&early, &client(false)).message;
        assert!(
            message.contains(
                "not valid before 2000-02-29 23:59:59 UTC (it is now 2000-02-29 00:00:00 UTC)"
            ),
            "{message}"
        );
    }

    /// An error whose text is webpki's for a CA certificate used as a server's own.
    #[derive(Debug)]
    struct CaUsedAsEndEntity;

    impl std::fmt::Display for CaUsedAsEndEntity {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("CaUsedAsEndEntity")
        }
    }

    impl std::error::Error for CaUsedAsEndEntity {}

    #[test]
    fn a_self_signed_certificate_is_named_for_what_it_is() {
        let other = OtherError(std::sync::Arc::new(CaUsedAsEndEntity));
        let error = rustls::Error::InvalidCertificate(CertificateError::Other(other));
        let failure = explain(&error, &client(false));
        assert_eq!(failure.flag, "--cacert");
        assert!(
            failure.message.contains("self-signed"),
            "{}",
            failure.message
        );
        assert!(
            !failure.message.contains("speaks TLS"),
            "{}",
            failure.message
        );
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
