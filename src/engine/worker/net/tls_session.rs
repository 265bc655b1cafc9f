//! The TLS session a connection negotiated, named as OpenSSL names it: what
//! memtier 2.4 prints once ("TLS connection established: protocol TLSv1.3,
//! cipher TLS_AES_256_GCM_SHA384") and writes as the JSON's `TLS` object.
//! rustls names suites by IANA (`TLS13_AES_256_GCM_SHA384`,
//! `TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`); memtier's readers expect
//! OpenSSL's, so every suite rustls offers is translated here.

use rustls::{CipherSuite, ClientConnection, ProtocolVersion};

/// The protocol version and cipher suite of a completed handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSession {
    /// `TLSv1.2` or `TLSv1.3`.
    pub version: String,
    /// OpenSSL's name of the suite, e.g. `TLS_AES_256_GCM_SHA384`.
    pub cipher: String,
}

impl TlsSession {
    /// The session of `conn`; `None` before its handshake completes.
    pub fn of(conn: &ClientConnection) -> Option<TlsSession> {
        Some(TlsSession {
            version: version_name(conn.protocol_version()?),
            cipher: cipher_name(conn.negotiated_cipher_suite()?.suite()),
        })
    }
}

fn version_name(v: ProtocolVersion) -> String {
    match v {
        ProtocolVersion::TLSv1_2 => "TLSv1.2".into(),
        ProtocolVersion::TLSv1_3 => "TLSv1.3".into(),
        other => format!("{other:?}"),
    }
}

/// OpenSSL's name of `suite`; rustls's own for one it does not offer.
pub fn cipher_name(suite: CipherSuite) -> String {
    let name = match suite {
        CipherSuite::TLS13_AES_256_GCM_SHA384 => "TLS_AES_256_GCM_SHA384",
        CipherSuite::TLS13_AES_128_GCM_SHA256 => "TLS_AES_128_GCM_SHA256",
        CipherSuite::TLS13_CHACHA20_POLY1305_SHA256 => "TLS_CHACHA20_POLY1305_SHA256",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 => "ECDHE-ECDSA-AES256-GCM-SHA384",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 => "ECDHE-ECDSA-AES128-GCM-SHA256",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 => {
            "ECDHE-ECDSA-CHACHA20-POLY1305"
        }
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 => "ECDHE-RSA-AES256-GCM-SHA384",
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 => "ECDHE-RSA-AES128-GCM-SHA256",
        CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 => "ECDHE-RSA-CHACHA20-POLY1305",
        other => return format!("{other:?}"),
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suites_take_openssls_names() {
        assert_eq!(
            cipher_name(CipherSuite::TLS13_AES_256_GCM_SHA384),
            "TLS_AES_256_GCM_SHA384"
        );
        assert_eq!(
            cipher_name(CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256),
            "ECDHE-RSA-AES128-GCM-SHA256"
        );
        assert_eq!(version_name(ProtocolVersion::TLSv1_3), "TLSv1.3");
        assert_eq!(version_name(ProtocolVersion::TLSv1_2), "TLSv1.2");
    }
}
