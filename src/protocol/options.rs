//! What a run's settings mean to each protocol, and which ones a protocol
//! refuses: a flag that would need what the server cannot do is refused
//! rather than silently dropped, since the run would not be the one asked
//! for. [`crate::config`] asks; each family answers ([`super::resp::options`],
//! [`super::memcache::options`]).

use super::memcache;
use super::resp;
use super::wire::Protocol;

/// A setting the user asked for that not every protocol can honour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting<'a> {
    /// `-a/--authenticate` (or `--auth-file`, `KVBENCH_AUTH`); `user` says
    /// whether a user was named.
    Auth {
        /// `-a user:password` rather than `-a password`.
        user: bool,
    },
    /// `--select-db` other than 0.
    Database,
    /// `--slowlog`.
    Slowlog,
    /// `--cluster-mode`.
    Cluster,
    /// `--command` lines instead of the SET/GET pair.
    Commands,
    /// The keys: `--key-prefix`, and the longest key it makes with
    /// `--key-maximum`, in bytes.
    Keys {
        /// `--key-prefix`.
        prefix: &'a str,
        /// The longest key, prefix and number together.
        longest: usize,
    },
}

/// Why a protocol refuses a setting: the flag, and a message that says the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// The flag to change.
    pub flag: &'static str,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl Unsupported {
    pub(super) fn new(flag: &'static str, message: String) -> Unsupported {
        Unsupported { flag, message }
    }
}

impl Protocol {
    /// Why this protocol refuses `setting`; `None` when it honours it.
    #[must_use]
    pub fn refuses(self, setting: Setting<'_>) -> Option<Unsupported> {
        match self {
            Protocol::Redis | Protocol::Resp2 | Protocol::Resp3 => resp::options::refuses(setting),
            Protocol::MemcacheText => memcache::options::refuses(self, false, setting),
            Protocol::MemcacheBinary => memcache::options::refuses(self, true, setting),
        }
    }
}
