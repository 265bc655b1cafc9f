//! What each setting means to memcached: it has no AUTH (only the binary
//! protocol's SASL, which names a user), no databases, no slow log, no
//! cluster, no RESP commands, and keys of at most [`MAX_KEY_LEN`] bytes
//! without spaces or control characters.

use crate::protocol::options::{Setting, Unsupported};
use crate::protocol::wire::Protocol;

/// memcached's longest key, in bytes (`KEY_MAX_LENGTH` in its source).
pub const MAX_KEY_LEN: usize = 250;

/// Why `protocol` (`binary`: memcached's binary protocol) refuses `setting`.
pub(in crate::protocol) fn refuses(
    protocol: Protocol,
    binary: bool,
    setting: Setting<'_>,
) -> Option<Unsupported> {
    let p = protocol.name();
    let (flag, message) = match setting {
        // The binary protocol authenticates with SASL PLAIN, which names a user.
        Setting::Auth { user: true } if binary => return None,
        Setting::Auth { user: false } if binary => (
            "--authenticate",
            format!("with -P {p} is SASL PLAIN and needs a user: use -a user:password"),
        ),
        Setting::Auth { .. } => (
            "--authenticate",
            format!(
                "is not supported with -P {p} (memcached has no AUTH); drop -a/--authenticate, --auth-file and KVBENCH_AUTH"
            ),
        ),
        Setting::Database => (
            "--select-db",
            format!("is not supported with -P {p} (memcached has no databases); drop --select-db"),
        ),
        Setting::Slowlog => (
            "--slowlog",
            format!("is not supported with -P {p} (memcached has no slow log); drop --slowlog"),
        ),
        Setting::Cluster => (
            "--cluster-mode",
            format!(
                "is for Redis Cluster and cannot be used with -P {p}; drop --cluster-mode, or use -P redis|resp2|resp3"
            ),
        ),
        Setting::Commands => (
            "--command",
            format!(
                "is not supported with -P {p}: memcached runs the SET/GET pair; drop --command (and --command-ratio/--command-key-pattern)"
            ),
        ),
        Setting::Keys { longest, .. } if longest > MAX_KEY_LEN => (
            "--key-prefix",
            format!(
                "makes keys of up to {longest} bytes, and memcached takes at most {MAX_KEY_LEN}; shorten --key-prefix (or lower --key-maximum)"
            ),
        ),
        Setting::Keys { prefix, .. } if prefix.bytes().any(|b| b <= b' ' || b == 0x7f) => (
            "--key-prefix",
            format!(
                "has a space or control character, which memcached keys may not contain; remove it for -P {p}"
            ),
        ),
        Setting::Keys { .. } => return None,
    };
    Some(Unsupported { flag, message })
}
