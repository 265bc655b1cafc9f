//! The barrier on a memcached server, in meta arithmetic (`ma`) on its own
//! text-protocol connection: `ma` with `N` creates a missing counter
//! (`J` its first value) and, unlike `add` or `get`, counts in neither
//! `cmd_set` nor `cmd_get`, so the stats kvbench compares its counts with
//! stay untouched. `T` is a counter too, read with a delta of 0. Keys:
//! `kvbench:barrier:<run-id>:` + `shard-<I>-in` (counted with a delta of
//! 0, taken back with `md`), `arrivals` (the order of arrival, for the
//! reports), `t`, and `failed` (the first failing shard's index + 1: counters hold no text,
//! so the others name the shard without its reason); `md` deletes them. A `--sasl` server speaks binary only and has no meta
//! commands: the barrier is refused there.

use std::io;
use std::time::Duration;

use crate::config::target::Target;
use crate::engine::master::run::barrier::{Board, Failure, KEY_PREFIX};
use crate::engine::master::server::Control;
use crate::protocol::wire::Protocol;

/// The barrier's counters on a memcached server.
pub(super) struct MemcachedBoard {
    control: Control,
    /// `kvbench:barrier:<run-id>:`.
    base: String,
}

/// What `ma` answered.
#[derive(Debug, PartialEq, Eq)]
enum Reply {
    /// `VA`: the counter's value after the command.
    Value(u64),
    /// `NF`: no such counter.
    NotFound,
    /// `HD`, `NS`, `EX`: done without a value.
    Done,
}

impl MemcachedBoard {
    /// Connects to `target` in the text protocol for run `run_id`.
    pub(super) fn open(target: &Target, run_id: &str) -> io::Result<MemcachedBoard> {
        if target.auth.is_some() {
            return Err(io::Error::other(
                "a memcached server with SASL speaks the binary protocol only, which has no meta commands",
            ));
        }
        let mut text = target.clone();
        text.protocol = Protocol::MemcacheText;
        Ok(MemcachedBoard {
            control: Control::open(&text).map_err(|e| io::Error::other(e.to_string()))?,
            base: format!("{KEY_PREFIX}{run_id}:"),
        })
    }

    fn ma(&mut self, name: &str, flags: &str) -> io::Result<Reply> {
        let request = format!("ma {}{name} {flags}\r\n", self.base);
        let reply = self.control.exchange(request.as_bytes(), reply_len)?;
        parse(&reply)
    }

    fn counter(&mut self, name: &str, flags: &str) -> io::Result<u64> {
        match self.ma(name, flags)? {
            Reply::Value(n) => Ok(n),
            other => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("ma {name} answered {other:?}"),
            )),
        }
    }

    fn delete(&mut self, name: &str) -> io::Result<()> {
        let request = format!("md {}{name} q\r\nmn\r\n", self.base);
        // `q` answers only failures other than NF; `mn` ends the batch.
        self.control.exchange(request.as_bytes(), |b| {
            let end = b.windows(4).position(|w| w == b"MN\r\n")?;
            Some(end + 4)
        })?;
        Ok(())
    }
}

/// The length of the first whole reply in `buf`: one line, or `VA <n>`'s
/// line and its `n` bytes of value.
fn reply_len(buf: &[u8]) -> Option<usize> {
    let line = buf.windows(2).position(|w| w == b"\r\n")? + 2;
    if !buf.starts_with(b"VA ") {
        return Some(line);
    }
    let size: usize = std::str::from_utf8(&buf[3..line - 2])
        .ok()?
        .split(' ')
        .next()?
        .parse()
        .ok()?;
    let whole = line + size + 2;
    (buf.len() >= whole).then_some(whole)
}

fn parse(reply: &[u8]) -> io::Result<Reply> {
    let text = String::from_utf8_lossy(reply);
    let mut lines = text.split("\r\n");
    let head = lines.next().unwrap_or_default();
    let bad = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the server answered '{}' to a meta command", head.trim()),
        )
    };
    match head.split(' ').next() {
        Some("VA") => lines
            .next()
            .and_then(|v| v.trim().parse().ok())
            .map(Reply::Value)
            .ok_or_else(bad),
        Some("NF") => Ok(Reply::NotFound),
        Some("HD" | "NS" | "EX") => Ok(Reply::Done),
        _ => Err(bad()),
    }
}

impl Board for MemcachedBoard {
    fn check_in(&mut self, index: u32, ttl: Duration) -> io::Result<bool> {
        let flags = format!("N{} J1 v", ttl.as_secs());
        Ok(self.counter(&format!("shard-{index}-in"), &flags)? == 1)
    }

    fn present(&mut self, count: u32) -> io::Result<u64> {
        let mut n = 0;
        for index in 0..count {
            if let Reply::Value(_) = self.ma(&format!("shard-{index}-in"), "D0 v")? {
                n += 1;
            }
        }
        Ok(n)
    }

    fn arrive(&mut self, ttl: Duration) -> io::Result<u64> {
        self.counter("arrivals", &format!("N{} J1 v", ttl.as_secs()))
    }

    fn publish(&mut self, t_us: u64, ttl: Duration) -> io::Result<u64> {
        self.counter("t", &format!("N{} J{t_us} D0 v", ttl.as_secs()))
    }

    fn read_t(&mut self) -> io::Result<Option<u64>> {
        match self.ma("t", "D0 v")? {
            Reply::Value(t) => Ok(Some(t)),
            _ => Ok(None),
        }
    }

    fn withdraw(&mut self, index: u32) -> io::Result<()> {
        self.delete(&format!("shard-{index}-in"))
    }

    fn remove(&mut self, count: u32) -> io::Result<()> {
        for name in ["arrivals", "t", "failed"] {
            self.delete(name)?;
        }
        for index in 0..count {
            self.delete(&format!("shard-{index}-in"))?;
        }
        Ok(())
    }

    fn post_failure(&mut self, index: u32, _why: &str, ttl: Duration) -> io::Result<()> {
        // Created with this index + 1 unless there; a delta of 0 leaves the
        // first failure's.
        let flags = format!("N{} J{} D0 v", ttl.as_secs(), u64::from(index) + 1);
        self.counter("failed", &flags).map(drop)
    }

    fn failure(&mut self) -> io::Result<Option<Failure>> {
        Ok(match self.ma("failed", "D0 v")? {
            Reply::Value(n) if n > 0 => Some(Failure {
                index: (n - 1) as u32,
                why: None,
            }),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_replies_are_read_whole_and_only_whole() {
        let va = b"VA 2 \r\n17\r\n";
        for cut in 0..va.len() {
            assert_eq!(reply_len(&va[..cut]), None, "{cut}");
        }
        let mut junk = va.to_vec();
        junk.extend_from_slice(b"HD\r\n");
        assert_eq!(reply_len(&junk), Some(va.len()));
        assert_eq!(parse(va).unwrap(), Reply::Value(17));
        assert_eq!(reply_len(b"NF\r\nxx"), Some(4));
        assert_eq!(parse(b"NF\r\n").unwrap(), Reply::NotFound);
        assert!(parse(b"CLIENT_ERROR bad command line format\r\n").is_err());
    }
}
