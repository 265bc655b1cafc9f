//! Why `--start-at barrier` could not give this shard a common start.

/// A barrier that did not open (docs/scale-out.md, "Barrier start").
#[derive(Debug, thiserror::Error)]
pub enum BarrierError {
    /// Not every shard arrived within `--barrier-timeout` (exit code 4, like
    /// a shard that reached its planned start too late).
    #[error(
        "--start-at barrier: {arrived} of {count} shards arrived under run id '{run_id}' within --barrier-timeout {timeout_s:.1} s, so no shard started; start the missing shards sooner, or raise --barrier-timeout"
    )]
    Timeout {
        /// Shards that had arrived when this one gave up.
        arrived: u64,
        /// `--shard-count`.
        count: u32,
        /// The run id.
        run_id: String,
        /// `--barrier-timeout`, seconds.
        timeout_s: f64,
    },
    /// `kvbench capacity` on a fleet: some shard posted no measurements of
    /// a step within `--barrier-timeout`, or posted that it stopped, so no
    /// shard can judge the step on the fleet's histogram (exit code 4).
    #[error(
        "kvbench capacity on {count} shards: shards {missing} posted no measurements of the step under run id '{run_id}' within --barrier-timeout {timeout_s:.1} s (shards {stopped} stopped), so no shard can judge the step on the fleet's histogram and the search ends here; see the missing shards' own errors, or raise --barrier-timeout"
    )]
    Shares {
        /// The try's run id.
        run_id: String,
        /// Shards that posted nothing, as a list (`-` for none).
        missing: String,
        /// Shards that posted that they stopped (`-` for none).
        stopped: String,
        /// `--shard-count`.
        count: u32,
        /// `--barrier-timeout`, seconds.
        timeout_s: f64,
    },
    /// Another shard posted that it will not come (exit code 4): every
    /// shard stops at once instead of waiting out its timeout.
    #[error(
        "--start-at barrier: shard {index} of run id '{run_id}' will not come: {why}; so no shard started; fix that shard and start the run again"
    )]
    ShardFailed {
        /// The run id.
        run_id: String,
        /// The shard that posted.
        index: u32,
        /// What it posted.
        why: String,
    },
    /// The start `T` on the board is further ahead than a shard of this run
    /// publishes it (exit code 4): another client wrote it.
    #[error(
        "--start-at barrier: the start on the board of run id '{run_id}' is {ahead_s:.1} s ahead, but a shard of this run publishes it {margin_s:.1} s ahead of the last arrival (at most {bound_s:.1} s with clocks apart): it was written by another client, not a shard of this run, so no shard started; give this run its own --run-id, or delete the barrier's key (docs/scale-out.md)"
    )]
    ForeignStart {
        /// The run id.
        run_id: String,
        /// How far ahead of this shard's clock `T` was, seconds.
        ahead_s: f64,
        /// How far ahead a shard publishes `T`, seconds.
        margin_s: f64,
        /// The most this shard accepts, seconds.
        bound_s: f64,
    },
    /// The server refused or broke a barrier command.
    #[error(
        "--start-at barrier: the server could not keep the barrier of run id '{run_id}': {why}; check that this user may run the barrier's commands (docs/scale-out.md), or give --start-at T instead"
    )]
    Server {
        /// The run id.
        run_id: String,
        /// What failed.
        why: String,
    },
}
