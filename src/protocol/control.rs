//! What the control connection says to the server, per protocol: which
//! protocol it speaks, how it asks for the server's own counters and how it
//! knows the answer is whole, and whether it can send Redis commands
//! (`CONFIG GET`, `SLOWLOG`). The blocking socket is [`crate::engine::master::server`]'s,
//! which also reads each form of [`Counters`] into its `Info`.

use super::memcache;
use super::resp;
use super::wire::Protocol;
use crate::protocol::wire::WireError;

/// The server's own counters as the control connection received them, in
/// the form they came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Counters {
    /// Redis `INFO all`: `# Section` headers and `name:value` lines.
    Info(String),
    /// memcached `stats`: `STAT name value` lines.
    Stats(String),
}

/// A protocol without the control connection's commands (CONFIG, SLOWLOG,
/// TIME): memcached answers a RESP command with `ERROR`, never a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("memcached answers no Redis commands")]
pub struct NoControlCommands;

impl Protocol {
    /// The protocol the control connection speaks: the run's, except that
    /// under `-P resp3` it says `HELLO 2`: its replies are read by the RESP2
    /// [`super::value`] parser, and `HELLO 2` needs the same server (Redis
    /// 6+) and checks the same credentials as `HELLO 3`.
    #[must_use]
    pub const fn control(self) -> Protocol {
        match self {
            Protocol::Resp3 => Protocol::Resp2,
            Protocol::Redis
            | Protocol::Resp2
            | Protocol::MemcacheText
            | Protocol::MemcacheBinary
            | Protocol::MemcacheMeta => self,
        }
    }

    /// Appends `args` as one command of the control connection.
    ///
    /// # Errors
    ///
    /// Why the protocol has no such commands (memcached answers a RESP
    /// command with `ERROR`, never a value).
    pub fn encode_control_command(
        self,
        out: &mut Vec<u8>,
        args: &[&[u8]],
    ) -> Result<(), NoControlCommands> {
        match self {
            Protocol::Redis | Protocol::Resp2 | Protocol::Resp3 => {
                resp::encode_command(out, args);
                Ok(())
            }
            Protocol::MemcacheText | Protocol::MemcacheBinary | Protocol::MemcacheMeta => {
                Err(NoControlCommands)
            }
        }
    }

    /// Appends the request for the server's counters: memcached's binary
    /// protocol asks in binary (a binary-only server, one with SASL, reads
    /// nothing else), its text and meta protocols in text.
    pub fn encode_counters_request(self, out: &mut Vec<u8>) {
        match self {
            Protocol::Redis | Protocol::Resp2 | Protocol::Resp3 => {
                resp::control::encode_counters_request(out);
            }
            // The control connection is its own, and memcached reads text
            // and meta commands on the same connection alike.
            Protocol::MemcacheText | Protocol::MemcacheMeta => {
                memcache::control::encode_counters_request(false, out);
            }
            // In the benchmark's own protocol, so that a server that does
            // not speak it (memcached -B ascii) is found before the run.
            Protocol::MemcacheBinary => memcache::control::encode_counters_request(true, out),
        }
    }

    /// Reads the reply to [`Self::encode_counters_request`] at the start of
    /// `buf`: `Ok(None)` while it is incomplete, `Ok(Some(None))` when the
    /// server answered with an error instead (some proxies answer no INFO).
    ///
    /// # Errors
    ///
    /// Why the bytes are no such reply.
    pub fn decode_counters(self, buf: &[u8]) -> Result<Option<Option<Counters>>, WireError> {
        match self {
            Protocol::Redis | Protocol::Resp2 | Protocol::Resp3 => {
                resp::control::decode_counters(buf)
            }
            Protocol::MemcacheText | Protocol::MemcacheMeta => {
                memcache::control::decode_counters(false, buf)
            }
            Protocol::MemcacheBinary => memcache::control::decode_counters(true, buf),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Counters;
    use crate::protocol::wire::Protocol;

    fn read(protocol: Protocol, wire: &[u8]) -> Option<Option<Counters>> {
        protocol.decode_counters(wire).unwrap()
    }

    #[test]
    fn resp_asks_info_all_and_reads_its_bulk_or_an_error() {
        let mut out = Vec::new();
        Protocol::Resp3.encode_counters_request(&mut out);
        assert_eq!(out, b"*2\r\n$4\r\nINFO\r\n$3\r\nall\r\n");
        let info = b"$15\r\n# Server\r\na:1\r\n\r\n";
        let text = "# Server\r\na:1\r\n".to_string();
        assert_eq!(
            read(Protocol::Redis, info),
            Some(Some(Counters::Info(text)))
        );
        assert_eq!(read(Protocol::Redis, &info[..9]), None);
        // A proxy that answers no INFO gives no counters, and is no failure.
        assert_eq!(read(Protocol::Resp2, b"-ERR unknown\r\n"), Some(None));
        assert_eq!(Protocol::Resp3.control(), Protocol::Resp2);
    }

    #[test]
    fn memcached_asks_stats_in_the_runs_own_protocol() {
        let mut out = Vec::new();
        Protocol::MemcacheMeta.encode_counters_request(&mut out);
        assert_eq!(out, b"stats\r\n");
        out.clear();
        Protocol::MemcacheBinary.encode_counters_request(&mut out);
        assert_eq!(&out[..2], &[0x80, 0x10], "a binary STAT");
        let stats = b"STAT pid 1\r\nEND\r\n";
        let text = String::from_utf8_lossy(stats).into_owned();
        assert_eq!(
            read(Protocol::MemcacheText, stats),
            Some(Some(Counters::Stats(text)))
        );
        assert_eq!(read(Protocol::MemcacheText, &stats[..12]), None);
        assert_eq!(read(Protocol::MemcacheText, b"ERROR\r\n"), Some(None));
    }

    #[test]
    fn memcached_takes_no_redis_commands() {
        let mut out = Vec::new();
        assert!(
            Protocol::MemcacheText
                .encode_control_command(&mut out, &[b"SLOWLOG"])
                .is_err()
        );
        assert!(out.is_empty());
        Protocol::Redis
            .encode_control_command(&mut out, &[b"PING"])
            .unwrap();
        assert_eq!(out, b"*1\r\n$4\r\nPING\r\n");
    }
}
