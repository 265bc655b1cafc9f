//! Where the shards of a fleet search post their step's measurements: one
//! Redis hash per try, `kvbench:barrier:{<run-id>.step-<try>}:shares`, under
//! the barrier's reserved prefix and its Redis Cluster hash tag (a `MOVED`
//! reply is followed to the node that holds it). Its fields: `s:<index>`,
//! each shard's post (`HSET`), and `read` (`HINCRBY`), the shards that read
//! every post. The cleanup follows the barrier's rules: the last shard to
//! read deletes the hash; a shard that gives up takes its own post back and
//! deletes the hash once no post is left; and `PEXPIRE` removes it anyway
//! after `--barrier-timeout` and a minute, so a shard killed half-way leaves
//! nothing for ever. Hash commands only, and the key ends with a letter, as
//! the barrier's: the server's counts of SET and GET stay the benchmark's.

use std::io;
use std::time::{Duration, Instant};

use crate::config::target::Target;
use crate::engine::interrupt::Interrupt;
use crate::engine::master::run::barrier::{KEY_PREFIX, MAX_POLL};
use crate::engine::master::server::keyed::{KeyedControl, unexpected};
use crate::protocol::value::Value;
use crate::tools::capacity::fleet::STOPPED;

/// The first pause between two reads of the posts.
const FIRST_POLL: Duration = Duration::from_millis(2);

/// How long the hash outlives the wait, as a safety net.
const TTL_SLACK: Duration = Duration::from_secs(60);

/// What the posts of one try are kept in.
pub trait Shares {
    /// Posts shard `index`'s text; the hash expires after `ttl`.
    fn post(&mut self, index: u32, text: &str, ttl: Duration) -> io::Result<()>;
    /// Every shard's post so far, by index (`None`: not posted yet).
    fn read(&mut self, count: u32) -> io::Result<Vec<Option<String>>>;
    /// Counts this shard as one that read every post; the count after.
    fn done(&mut self) -> io::Result<u64>;
    /// Takes shard `index`'s post back.
    fn withdraw(&mut self, index: u32) -> io::Result<()>;
    /// Deletes the hash.
    fn remove(&mut self) -> io::Result<()>;
}

/// How a wait for the posts ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gathered {
    /// Every shard's post, by index.
    All(Vec<String>),
    /// Some shard posted nothing in time, or posted that it stopped.
    Missing {
        /// Shards that posted nothing.
        missing: Vec<u32>,
        /// Shards that posted that their step stopped.
        stopped: Vec<u32>,
    },
    /// A signal came while waiting.
    Interrupted,
}

/// Posts that shard `index`'s try stopped, and leaves at once: the post
/// stays, for the others to see, until the hash expires or the last of them
/// deletes it.
pub fn post_stopped(board: &mut dyn Shares, index: u32, timeout: Duration) -> io::Result<()> {
    board.post(index, STOPPED, timeout + TTL_SLACK)
}

/// Posts `text` as shard `index` of `count`, and waits at most `timeout`
/// for the others' (module docs for the cleanup).
pub fn gather(
    board: &mut dyn Shares,
    index: u32,
    count: u32,
    text: &str,
    timeout: Duration,
    interrupt: &Interrupt,
) -> io::Result<Gathered> {
    let started = Instant::now();
    board.post(index, text, timeout + TTL_SLACK)?;
    let mut pause = FIRST_POLL;
    // Every shard whose post was read once: a shard that gave up before
    // this one takes its post back, and is still no shard that never posted.
    let mut ever_posted = vec![false; count as usize];
    loop {
        let posts = board.read(count)?;
        for (s, p) in ever_posted.iter_mut().zip(&posts) {
            *s |= p.is_some();
        }
        let stopped = indexes(&posts, |p| p.as_deref() == Some(STOPPED));
        if stopped.is_empty() && posts.iter().all(Option::is_some) {
            if board.done()? >= u64::from(count) {
                board.remove()?;
            }
            return Ok(Gathered::All(posts.into_iter().flatten().collect()));
        }
        let gave_up = started.elapsed() >= timeout || !stopped.is_empty();
        if gave_up || interrupt.stop_requested() {
            board.withdraw(index)?;
            // The last post taken back takes the hash with it, a stopped
            // shard's among them once every other shard has seen it.
            let left = board.read(count)?;
            let seen = |p: &Option<String>| p.is_none() || p.as_deref() == Some(STOPPED);
            if left.iter().all(seen) {
                board.remove()?;
            }
            if !gave_up {
                return Ok(Gathered::Interrupted);
            }
            let missing = (0u32..)
                .zip(&ever_posted)
                .filter(|(_, s)| !**s)
                .map(|(i, _)| i)
                .collect();
            return Ok(Gathered::Missing { missing, stopped });
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(MAX_POLL);
    }
}

fn indexes(posts: &[Option<String>], pick: impl Fn(&Option<String>) -> bool) -> Vec<u32> {
    (0u32..)
        .zip(posts)
        .filter(|(_, p)| pick(p))
        .map(|(i, _)| i)
        .collect()
}

/// The posts' hash of one try on a Redis server or cluster.
pub struct RedisShares {
    control: KeyedControl,
    key: String,
}

/// The hash of try run id `run_id` (`<run-id>.step-<try>`).
pub fn key(run_id: &str) -> String {
    format!("{KEY_PREFIX}{{{run_id}}}:shares")
}

impl RedisShares {
    /// Connects (and authenticates) to `target` for the try `run_id`.
    pub fn open(target: &Target, run_id: &str) -> io::Result<RedisShares> {
        let control = KeyedControl::open(target).map_err(|e| io::Error::other(e.to_string()))?;
        Ok(RedisShares {
            control,
            key: key(run_id),
        })
    }
}

impl Shares for RedisShares {
    fn post(&mut self, index: u32, text: &str, ttl: Duration) -> io::Result<()> {
        let key = self.key.clone();
        let field = format!("s:{index}");
        self.control.ask(&["HSET", &key, &field, text])?;
        let ms = ttl.as_millis().to_string();
        self.control.ask(&["PEXPIRE", &key, &ms]).map(drop)
    }

    fn read(&mut self, count: u32) -> io::Result<Vec<Option<String>>> {
        let key = self.key.clone();
        let fields: Vec<String> = (0..count).map(|i| format!("s:{i}")).collect();
        let mut args: Vec<&str> = vec!["HMGET", &key];
        args.extend(fields.iter().map(String::as_str));
        match self.control.ask(&args)? {
            Value::Array(values) if values.len() == count as usize => values
                .iter()
                .map(|v| match v {
                    Value::Nil => Ok(None),
                    Value::Bulk(b) => Ok(Some(String::from_utf8_lossy(b).into_owned())),
                    other => Err(unexpected("HMGET", other)),
                })
                .collect(),
            other => Err(unexpected("HMGET", &other)),
        }
    }

    fn done(&mut self) -> io::Result<u64> {
        let key = self.key.clone();
        match self.control.ask(&["HINCRBY", &key, "read", "1"])? {
            Value::Integer(n) => Ok(n.max(0) as u64),
            other => Err(unexpected("HINCRBY", &other)),
        }
    }

    fn withdraw(&mut self, index: u32) -> io::Result<()> {
        let key = self.key.clone();
        let field = format!("s:{index}");
        self.control.ask(&["HDEL", &key, &field]).map(drop)
    }

    fn remove(&mut self) -> io::Result<()> {
        let key = self.key.clone();
        self.control.ask(&["DEL", &key]).map(drop)
    }
}

#[cfg(test)]
#[path = "fleet_board_tests.rs"]
mod tests;
