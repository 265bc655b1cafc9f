//! The barrier on a Redis server: one hash, `kvbench:barrier:{<run-id>}`,
//! whose braces are a Redis Cluster hash tag (one key is on one node; a
//! `MOVED` reply is followed there). Its fields: `in:<I>` per shard
//! (`HSETNX`, counted with `HMGET`, taken back with `HDEL`), `arrivals`
//! (`HINCRBY`: the order of arrival, for the reports), `t` (`HSETNX`,
//! `HGET`), `failed` (`HSETNX`).
//! `PEXPIRE` is the safety net, `DEL` the cleanup. No SET or GET, so the
//! commandstats kvbench compares its counts with stay untouched.

use std::io;
use std::time::Duration;

use crate::config::target::Target;
use crate::engine::master::run::barrier::{Board, Failure, KEY_PREFIX};
use crate::engine::master::server::keyed::{KeyedControl, unexpected};
use crate::error::ConnectError;
use crate::protocol::value::Value;

/// The barrier's hash on a Redis server or cluster.
pub(super) struct RedisBoard {
    control: KeyedControl,
    key: String,
}

impl RedisBoard {
    /// Connects (and authenticates) to `target` for run `run_id`.
    pub(super) fn open(target: &Target, run_id: &str) -> Result<RedisBoard, ConnectError> {
        Ok(RedisBoard {
            control: KeyedControl::open(target)?,
            key: key(run_id),
        })
    }

    fn integer(&mut self, args: &[&str]) -> io::Result<i64> {
        match self.control.ask(args)? {
            Value::Integer(n) => Ok(n),
            other => Err(unexpected(args[0], &other)),
        }
    }

    fn expire(&mut self, ttl: Duration) -> io::Result<()> {
        let ms = ttl.as_millis().to_string();
        let key = self.key.clone();
        self.integer(&["PEXPIRE", &key, &ms]).map(drop)
    }
}

/// The hash of run `run_id`.
pub(super) fn key(run_id: &str) -> String {
    format!("{KEY_PREFIX}{{{run_id}}}")
}

impl Board for RedisBoard {
    fn check_in(&mut self, index: u32, ttl: Duration) -> io::Result<bool> {
        let key = self.key.clone();
        let field = format!("in:{index}");
        let new = self.integer(&["HSETNX", &key, &field, "1"])? == 1;
        self.expire(ttl)?;
        Ok(new)
    }

    fn present(&mut self, count: u32) -> io::Result<u64> {
        let key = self.key.clone();
        let fields: Vec<String> = (0..count).map(|i| format!("in:{i}")).collect();
        let mut args = vec!["HMGET", key.as_str()];
        args.extend(fields.iter().map(String::as_str));
        match self.control.ask(&args)? {
            Value::Array(values) => Ok(values.iter().filter(|v| **v != Value::Nil).count() as u64),
            other => Err(unexpected("HMGET", &other)),
        }
    }

    fn arrive(&mut self, _ttl: Duration) -> io::Result<u64> {
        let key = self.key.clone();
        let n = self.integer(&["HINCRBY", &key, "arrivals", "1"])?;
        Ok(n.max(0) as u64)
    }

    fn publish(&mut self, t_us: u64, _ttl: Duration) -> io::Result<u64> {
        let key = self.key.clone();
        self.integer(&["HSETNX", &key, "t", &t_us.to_string()])?;
        self.read_t()?
            .ok_or_else(|| unexpected("HGET", &Value::Nil))
    }

    fn read_t(&mut self) -> io::Result<Option<u64>> {
        let key = self.key.clone();
        match self.control.ask(&["HGET", &key, "t"])? {
            Value::Nil => Ok(None),
            Value::Bulk(b) => std::str::from_utf8(&b)
                .ok()
                .and_then(|t| t.parse().ok())
                .map(Some)
                .ok_or_else(|| unexpected("HGET", &Value::Bulk(b.clone()))),
            other => Err(unexpected("HGET", &other)),
        }
    }

    fn withdraw(&mut self, index: u32) -> io::Result<()> {
        let key = self.key.clone();
        let field = format!("in:{index}");
        self.integer(&["HDEL", &key, &field]).map(drop)
    }

    fn remove(&mut self, _count: u32) -> io::Result<()> {
        let key = self.key.clone();
        self.integer(&["DEL", &key]).map(drop)
    }

    fn post_failure(&mut self, index: u32, why: &str, ttl: Duration) -> io::Result<()> {
        let key = self.key.clone();
        let posted = format!("{index} {why}");
        self.integer(&["HSETNX", &key, "failed", &posted])?;
        self.expire(ttl)
    }

    fn failure(&mut self) -> io::Result<Option<Failure>> {
        let key = self.key.clone();
        match self.control.ask(&["HGET", &key, "failed"])? {
            Value::Nil => Ok(None),
            Value::Bulk(b) => {
                let text = String::from_utf8_lossy(&b);
                let (index, why) = text.split_once(' ').unwrap_or((&text, ""));
                let index = index
                    .parse()
                    .map_err(|_| unexpected("HGET", &Value::Bulk(b.clone())))?;
                Ok(Some(Failure {
                    index,
                    why: Some(why.to_string()).filter(|w| !w.is_empty()),
                }))
            }
            other => Err(unexpected("HGET", &other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_one_hash_tag() {
        assert_eq!(key("job-7"), "kvbench:barrier:{job-7}");
    }
}
