//! memtier 2.4's `TLS` object: the protocol version and cipher suite the
//! connections negotiated, by OpenSSL's names; written only with `--tls`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The top-level `TLS` object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "tlsNegotiated")]
pub struct TlsNegotiated {
    /// `TLSv1.2` or `TLSv1.3`.
    pub negotiated_version: String,
    /// OpenSSL's name of the cipher suite, e.g. `TLS_AES_256_GCM_SHA384`.
    pub negotiated_cipher: String,
}
