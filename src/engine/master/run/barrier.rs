//! `--start-at barrier`: the shards of one run agree on their common start
//! `T` on the target server itself, with no coordinator of their own.
//!
//! Each shard checks in under its index (a second check-in of one index is
//! a reused or stale run id, refused), then counts the check-ins of indices
//! `0..--shard-count`; the shard that finds them all publishes `T` = its
//! clock on the server's time line + [`MARGIN`], written only if none is
//! there yet. The others poll for `T` with a backoff of at most
//! [`MAX_POLL`]; [`MARGIN`] is many polls long, so every shard knows `T`
//! before it comes. Each shard then converts `T` to its own clock with its
//! measured offset and takes its check-in back; the one that finds none left
//! deletes the keys, so none is left when the first phase starts. Every key
//! expires after the timeout anyway (a shard killed half-way leaves nothing
//! for ever). A shard that waited `--barrier-timeout` takes its check-in
//! back and stops (exit 4).
//!
//! The start is decided by the shards' own check-ins, never by a counter
//! (an arrivals counter gives each shard its place in the order of
//! arrival, for its report only): another client that writes a count into
//! the run's keys (or leaves one from an earlier run) starts no shard alone, and one that writes a check-in makes
//! the shard of that index refuse the run id. A `T` further ahead than
//! [`MAX_AHEAD`] is refused as not this run's.
//!
//! A shard that cannot come — it failed to connect, was stopped by a
//! signal, or timed out — posts its failure on the board (`post_failure`),
//! first failure first; the shards waiting see it at their next poll and
//! stop too (exit 4, naming that shard and why), instead of each waiting its
//! own `--barrier-timeout` and blaming late starts. A shard killed outright
//! (`SIGKILL`) posts nothing: the others still wait out the timeout.
//! `--barrier-server` keeps the board (and the clock every shard measures
//! its offset against) on one named server, so that a balancer in front of
//! several backends cannot give each shard a board of its own.
//!
//! The keys and the commands on them are chosen so as not to touch what the
//! server's evidence is compared with: no SET or GET (Redis uses one hash
//! and hash commands, memcached meta arithmetic, which counts in neither
//! `cmd_set` nor `cmd_get`), and every key ends with a letter, while every
//! benchmark key ends with its number (see the `memcached` and `redis` boards).

mod memcached;
mod redis;

use std::io;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::config::Config;
use crate::config::start_at::Barrier;
use crate::engine::interrupt::Interrupt;
use crate::error::{BarrierError, Before, RunError, UsageError};
use crate::protocol::wire::Protocol;

/// How far ahead of the last arrival `T` is published: room for every
/// other shard's next poll and its evidence before the first phase.
pub const MARGIN: Duration = Duration::from_millis(500);

/// The furthest ahead of this shard's clock a `T` it reads may be: a shard
/// of this run publishes `T` [`MARGIN`] ahead, and clock offsets are measured
/// to a millisecond; anything further was written by another client (a `T`
/// an hour ahead would make every shard wait an hour), and is refused.
pub const MAX_AHEAD: Duration = Duration::from_secs(10);

/// The longest pause between two polls for `T`.
pub const MAX_POLL: Duration = Duration::from_millis(50);

/// The first pause between two polls.
const FIRST_POLL: Duration = Duration::from_millis(2);

/// How long the keys outlive the timeout, as a safety net.
const TTL_SLACK: Duration = Duration::from_secs(60);

/// The prefix of every barrier key.
pub const KEY_PREFIX: &str = "kvbench:barrier:";

/// What a barrier is kept in: a few keys on the target server. Every
/// count is the value after the change.
pub(super) trait Board {
    /// Checks shard `index` in; false when it already was.
    fn check_in(&mut self, index: u32, ttl: Duration) -> io::Result<bool>;
    /// How many of the shards `0..count` are checked in now.
    fn present(&mut self, count: u32) -> io::Result<u64>;
    /// Counts one more arrival: this shard's place in the order of arrival,
    /// for its report only (the start is decided by [`Board::present`]).
    fn arrive(&mut self, ttl: Duration) -> io::Result<u64>;
    /// Writes `T` (µs since the epoch) unless one is there; the one there.
    fn publish(&mut self, t_us: u64, ttl: Duration) -> io::Result<u64>;
    /// `T`, once published.
    fn read_t(&mut self) -> io::Result<Option<u64>>;
    /// Takes shard `index`'s check-in back.
    fn withdraw(&mut self, index: u32) -> io::Result<()>;
    /// Deletes every key of the barrier.
    fn remove(&mut self, count: u32) -> io::Result<()>;
    /// Posts that shard `index` will not come, and `why`, unless a failure
    /// is posted already (the first one stands).
    fn post_failure(&mut self, index: u32, why: &str, ttl: Duration) -> io::Result<()>;
    /// The failure posted, if any.
    fn failure(&mut self) -> io::Result<Option<Failure>>;
}

/// A shard's posted failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The shard that will not come.
    pub index: u32,
    /// Why, where the board keeps text (memcached's counters do not).
    pub why: Option<String>,
}

/// What the barrier gave this shard.
#[derive(Debug, Clone, PartialEq)]
pub struct Met {
    /// `T` as published: the same instant, in the same number, for every
    /// shard (on the server's clock where it has one).
    pub published: SystemTime,
    /// `T` on this machine's clock.
    pub local: SystemTime,
    /// This shard's place in the order of arrival, from 1.
    pub arrival: u64,
    /// From checking in until `T` was known.
    pub waited: Duration,
}

/// Meets the other shards of `config`'s run at `barrier`; `offset_ms`
/// (server − local) converts between this machine's clock and the
/// server's, where it was measured.
pub(super) fn meet(
    config: &Config,
    barrier: &Barrier,
    offset_ms: Option<f64>,
    interrupt: &Interrupt,
) -> Result<Met, RunError> {
    let server = |why: String| BarrierError::Server {
        run_id: barrier.run_id.clone(),
        why,
    };
    let mut board = open(config, &barrier.run_id).map_err(|e| server(e.to_string()))?;
    let index = config.shard.map_or(0, |s| s.index);
    let count = config.shard_count();
    let io = |e: io::Error| server(e.to_string());
    let outcome = wait(
        &mut *board,
        Want {
            index,
            count,
            timeout: barrier.timeout,
            offset_ms: offset_ms.unwrap_or(0.0),
        },
        interrupt,
    );
    match outcome.map_err(io)? {
        Outcome::Met(met) => Ok(met),
        Outcome::Stale => Err(UsageError::new(
            "--run-id",
            format!(
                "'{}': shard {index} has already checked in under this run id, so it belongs to another run, or to one that stopped (its keys expire within --barrier-timeout + {} s); give each run its own --run-id",
                barrier.run_id,
                TTL_SLACK.as_secs()
            ),
        )
        .into()),
        Outcome::TimedOut(arrived) => Err(BarrierError::Timeout {
            arrived,
            count,
            run_id: barrier.run_id.clone(),
            timeout_s: barrier.timeout.as_secs_f64(),
        }
        .into()),
        Outcome::Interrupted => Err(RunError::Interrupted(Before::Start)),
        Outcome::ForeignStart(ahead) => Err(BarrierError::ForeignStart {
            run_id: barrier.run_id.clone(),
            ahead_s: ahead.as_secs_f64(),
            margin_s: MARGIN.as_secs_f64(),
            bound_s: MAX_AHEAD.as_secs_f64(),
        }
        .into()),
        Outcome::Failed(f) => Err(BarrierError::ShardFailed {
            run_id: barrier.run_id.clone(),
            index: f.index,
            why: f.why.unwrap_or_else(|| "see that shard's own output".into()),
        }
        .into()),
    }
}

/// The board of run `run_id`: on `--barrier-server`, else on the target.
fn open(config: &Config, run_id: &str) -> io::Result<Box<dyn Board>> {
    let target = config.barrier_server.as_ref().unwrap_or(&config.target);
    Ok(match target.protocol {
        Protocol::MemcacheText | Protocol::MemcacheBinary | Protocol::MemcacheMeta => {
            Box::new(memcached::MemcachedBoard::open(target, run_id)?)
        }
        Protocol::Redis | Protocol::Resp2 | Protocol::Resp3 => Box::new(
            redis::RedisBoard::open(target, run_id).map_err(|e| io::Error::other(e.to_string()))?,
        ),
    })
}

/// Posts on `barrier`'s board that this shard will not come, and `why`, so
/// that the shards waiting there stop now; a board that cannot be reached
/// is left alone (the others then wait out their timeout, as before).
pub(super) fn post_failure(config: &Config, barrier: &Barrier, why: &str) {
    let index = config.shard.map_or(0, |s| s.index);
    let ttl = barrier.timeout + MARGIN + TTL_SLACK;
    if let Ok(mut board) = open(config, &barrier.run_id) {
        let _ = board.post_failure(index, why, ttl);
    }
}

/// This shard's side of the barrier.
#[derive(Debug, Clone, Copy)]
pub(super) struct Want {
    pub index: u32,
    pub count: u32,
    pub timeout: Duration,
    /// Server − local, ms (0 where unknown).
    pub offset_ms: f64,
}

/// How a wait at the barrier ended.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Outcome {
    /// Every shard arrived.
    Met(Met),
    /// This shard's index had checked in already.
    Stale,
    /// The timeout passed with this many shards in.
    TimedOut(u64),
    /// A signal came.
    Interrupted,
    /// Another shard posted that it will not come.
    Failed(Failure),
    /// `T` was this far ahead, past [`MAX_AHEAD`]: not this run's.
    ForeignStart(Duration),
}

/// The barrier's steps on `board` (module docs).
pub(super) fn wait(
    board: &mut dyn Board,
    want: Want,
    interrupt: &Interrupt,
) -> io::Result<Outcome> {
    let started = Instant::now();
    let ttl = want.timeout + MARGIN + TTL_SLACK;
    if !board.check_in(want.index, ttl)? {
        return Ok(Outcome::Stale);
    }
    let arrival = board.arrive(ttl)?;
    let present = board.present(want.count)?;
    let mut t = None;
    if present < u64::from(want.count) {
        // A wait of minutes must not look like a hang.
        crate::error::note(format_args!(
            "kvbench: arrived {present} of {} at the barrier (--start-at barrier); waiting for the others, at most --barrier-timeout {:.0} s; Ctrl-C stops",
            want.count,
            want.timeout.as_secs_f64()
        ));
    }
    if present == u64::from(want.count) {
        let planned = shift(SystemTime::now() + MARGIN, want.offset_ms);
        t = Some(board.publish(micros(planned), ttl)?);
    }
    let mut pause = FIRST_POLL;
    let t_us = loop {
        if let Some(t) = t {
            break t;
        }
        if let Some(found) = board.read_t()? {
            break found;
        }
        let failed = board.failure()?;
        let timed_out = started.elapsed() >= want.timeout;
        if interrupt.stop_requested() || timed_out || failed.is_some() {
            let outcome = match failed {
                Some(f) => Outcome::Failed(f),
                None => give_up(board, want, interrupt.stop_requested(), ttl)?,
            };
            board.withdraw(want.index)?;
            // The last shard may have counted this one in just before it
            // left: then `T` is out, and the others start on it.
            if let Some(found) = board.read_t()? {
                break found;
            }
            if board.present(want.count)? == 0 {
                // No shard is left waiting: nothing to keep.
                board.remove(want.count)?;
            }
            return Ok(outcome);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(MAX_POLL);
    };
    let waited = started.elapsed();
    let now_us = micros(shift(SystemTime::now(), want.offset_ms));
    let ahead = Duration::from_micros(t_us.saturating_sub(now_us));
    if ahead > MAX_AHEAD {
        // Not this run's: its keys are left as they are (they expire).
        board.withdraw(want.index)?;
        return Ok(Outcome::ForeignStart(ahead));
    }
    // Out: `T` is read, so this check-in is no longer needed by anyone.
    board.withdraw(want.index)?;
    if board.present(want.count)? == 0 {
        board.remove(want.count)?;
    }
    let published = UNIX_EPOCH + Duration::from_micros(t_us);
    Ok(Outcome::Met(Met {
        published,
        local: shift(published, -want.offset_ms),
        arrival,
        waited,
    }))
}

/// This shard stops waiting (a signal, or its timeout): it posts why before
/// it takes its arrival back, so that every shard still waiting stops at its
/// next poll and the last one out removes the post with the keys. When
/// another shard posted first, that failure is the run's, and this shard
/// says it too.
fn give_up(
    board: &mut dyn Board,
    want: Want,
    interrupted: bool,
    ttl: Duration,
) -> io::Result<Outcome> {
    let why = if interrupted {
        "it was stopped by a signal while waiting at the barrier".to_string()
    } else {
        format!(
            "it waited its --barrier-timeout of {:.1} s for the others",
            want.timeout.as_secs_f64()
        )
    };
    // Read before the post: no shard takes its check-in back before some
    // failure is posted, so the count the first poster reads is the run's.
    let arrived = board.present(want.count)?;
    board.post_failure(want.index, &why, ttl)?;
    Ok(match board.failure()? {
        Some(f) if f.index != want.index => Outcome::Failed(f),
        _ if interrupted => Outcome::Interrupted,
        _ => Outcome::TimedOut(arrived),
    })
}

/// `at` moved by `ms` (either way).
fn shift(at: SystemTime, ms: f64) -> SystemTime {
    let by = Duration::from_secs_f64(ms.abs() / 1e3);
    if ms >= 0.0 {
        at + by
    } else {
        at.checked_sub(by).unwrap_or(at)
    }
}

/// Microseconds since the epoch.
fn micros(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

#[cfg(test)]
mod tests;
