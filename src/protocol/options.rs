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

impl Protocol {
    /// Why this protocol refuses `setting`; `None` when it honours it.
    #[must_use]
    pub fn refuses(self, setting: Setting<'_>) -> Option<Unsupported> {
        match self {
            Protocol::Redis | Protocol::Resp2 | Protocol::Resp3 => resp::options::refuses(setting),
            Protocol::MemcacheText | Protocol::MemcacheMeta => {
                memcache::options::refuses(self, false, setting)
            }
            Protocol::MemcacheBinary => memcache::options::refuses(self, true, setting),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Setting;
    use crate::protocol::wire::Protocol;

    const EVERY: [Setting<'static>; 7] = [
        Setting::Auth { user: false },
        Setting::Auth { user: true },
        Setting::Database,
        Setting::Slowlog,
        Setting::Cluster,
        Setting::Commands,
        Setting::Keys {
            prefix: "memtier-",
            longest: 18,
        },
    ];

    #[test]
    fn resp_honours_every_setting() {
        for p in [Protocol::Redis, Protocol::Resp2, Protocol::Resp3] {
            for s in EVERY {
                assert_eq!(p.refuses(s), None, "{p:?} {s:?}");
            }
        }
    }

    #[test]
    fn memcached_refuses_what_it_has_not_and_names_the_flag() {
        let flag = |p: Protocol, s| p.refuses(s).map(|u| u.flag);
        let text = EVERY.map(|s| flag(Protocol::MemcacheText, s));
        let binary = EVERY.map(|s| flag(Protocol::MemcacheBinary, s));
        let refused = [
            "--authenticate",
            "--authenticate",
            "--select-db",
            "--slowlog",
        ];
        let rest = [Some("--cluster-mode"), Some("--command"), None];
        assert_eq!(text[..4], refused.map(Some));
        assert_eq!(text[4..], rest);
        // The binary protocol's SASL PLAIN logs in with a user, never without.
        assert_eq!(binary[..2], [Some("--authenticate"), None]);
        assert_eq!(binary[2..], text[2..]);
        let long = Setting::Keys {
            prefix: "k",
            longest: 251,
        };
        let spaced = Setting::Keys {
            prefix: "a b",
            longest: 4,
        };
        assert_eq!(flag(Protocol::MemcacheText, long), Some("--key-prefix"));
        assert_eq!(flag(Protocol::MemcacheBinary, spaced), Some("--key-prefix"));
    }
}
