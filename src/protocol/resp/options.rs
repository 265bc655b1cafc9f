//! What each setting means to RESP: every one of them is honoured, by the
//! handshake ([`super::handshake`]), the control connection
//! ([`super::control`]) or the command templates.

use crate::protocol::options::{Setting, Unsupported};

/// RESP refuses no setting; the arms say what each becomes.
pub(in crate::protocol) fn refuses(setting: Setting<'_>) -> Option<Unsupported> {
    match setting {
        // AUTH, or HELLO's AUTH (user `default` without a user).
        Setting::Auth { .. } => None,
        // SELECT in the handshake.
        Setting::Database => None,
        // SLOWLOG RESET / GET on the control connection.
        Setting::Slowlog => None,
        // CLUSTER SLOTS, redirects, READONLY.
        Setting::Cluster => None,
        // `--command` templates are RESP.
        Setting::Commands => None,
        // A RESP key is a bulk string: any bytes, any length.
        Setting::Keys { .. } => None,
    }
}
