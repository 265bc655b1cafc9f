//! A failed TLS handshake explained as the flag to change and the fix; the
//! explaining (from rustls's error) is `engine::worker::net`'s, which builds these.

/// A TLS failure explained: the flag to change and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFailure {
    /// The flag at fault.
    pub flag: &'static str,
    /// What went wrong and the fix.
    pub message: String,
}
