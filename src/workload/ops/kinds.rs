//! What a command's name says of its replies and its route: whether a nil
//! reply is a miss, which reply shape tells found from missing keys, and
//! whether a replica may serve it.

use crate::protocol::command::CommandSpec;
use crate::protocol::resp::found::Lookup;

/// Commands whose nil reply means "no such key" and whose value is a hit:
/// memtier's Hits/sec and Misses/sec, and the hit-rate checks, count them.
pub(super) const HIT_COMMANDS: [&str; 6] = ["GET", "HGET", "GETEX", "GETDEL", "LINDEX", "GETRANGE"];

/// The reply shape that tells found from missing keys, for the commands
/// whose reply is not one value or nil (memtier 2.5's reply shapes): `spec`'s
/// key count is what an `EXISTS` asks.
pub(super) fn lookup_of(spec: &CommandSpec) -> Option<Lookup> {
    match spec.name().as_str() {
        "MGET" | "HMGET" | "ZMSCORE" => Some(Lookup::PerElement),
        "SMEMBERS" | "LRANGE" | "HGETALL" | "HKEYS" | "HVALS" | "ZRANGE" => {
            Some(Lookup::Collection)
        }
        "EXISTS" => Some(Lookup::Membership(
            u8::try_from(spec.args.len().saturating_sub(1))
                .unwrap_or(u8::MAX)
                .max(1),
        )),
        "SISMEMBER" | "HEXISTS" => Some(Lookup::Membership(1)),
        _ => None,
    }
}

/// Commands that only read, which `--read-from replica|any` may send to a
/// replica (after `READONLY`); every other command goes to the master.
pub(super) const READ_COMMANDS: [&str; 24] = [
    "GET",
    "HGET",
    "GETRANGE",
    "LINDEX",
    "MGET",
    "EXISTS",
    "STRLEN",
    "TTL",
    "PTTL",
    "TYPE",
    "HGETALL",
    "HMGET",
    "HLEN",
    "HEXISTS",
    "LRANGE",
    "LLEN",
    "SMEMBERS",
    "SISMEMBER",
    "SCARD",
    "ZRANGE",
    "ZSCORE",
    "ZCARD",
    "ZRANK",
    "XRANGE",
];

/// True for a command that only reads (upper case), which a replica may serve.
pub fn is_read_command(name: &str) -> bool {
    READ_COMMANDS.contains(&name)
}
