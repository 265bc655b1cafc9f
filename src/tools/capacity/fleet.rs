//! The capacity search on a fleet (docs/capacity.md, "On a fleet"): with
//! `--shard-count` above 1 and `--start-at barrier`, every shard runs the
//! same step at once with its share of the rate, then posts what it
//! measured (its [`Share`]: counts, seconds, and the histograms in
//! HdrHistogram's V2 deflate encoding, base64) on the target server, reads
//! every other shard's ([`gather`]), merges them and judges the step on the
//! merged histogram with the same [`crate::tools::capacity::step::judge_step`].
//! Every shard reads the same posts and merges them in the order of the
//! shard index, so every shard computes the same decision, with no
//! coordinator: the search, a pure state machine, then takes the same path
//! on every machine.
//!
//! Each try of a step (a repeat, a confirmation) is numbered the same way
//! on every shard, and meets at its own barrier, under the run id with
//! `.step-<try>`, so a shard still leaving one try's barrier never counts in
//! the next.

use hdrhistogram::Histogram;

use crate::config::capacity::CapacityPlan;
use crate::config::start_at::{Barrier, StartAt, StartPoint};
use crate::config::target::Target;
use crate::engine::interrupt::Interrupt;
use crate::engine::stats::OpStats;
use crate::engine::stats::precision::Batches;
use crate::error::{BarrierError, RunError, UsageError};
use crate::report::model::histogram::{CompressedHistogram, HistogramError};
use crate::tools::capacity::fleet_board::{Gathered, RedisShares, gather, post_stopped};
use crate::tools::capacity::step::Pooled;

/// What a post starts with: the layout's version, so that shards of two
/// kvbench versions refuse each other's posts rather than misread them.
/// The search's own settings follow it ([`plan_tag`]).
const SHARE_TAG: &str = "kvbench-share-2";

/// What a shard posts when its step stopped (a signal, `--max-errors`): the
/// others end at once instead of waiting out `--barrier-timeout`.
pub const STOPPED: &str = "stopped";

/// This shard's place in a fleet search.
#[derive(Debug, Clone)]
pub struct Fleet {
    target: Target,
    /// The first word of every post: the layout and the search's settings.
    tag: String,
    start: StartAt,
    barrier: Barrier,
    index: u32,
    count: u32,
    /// Tries begun so far, on every shard alike.
    tries: u32,
}

/// One try of a step on the fleet: its number, and so its barrier and posts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Try(pub u32);

impl Fleet {
    /// The fleet of `plan`, when it is one: several shards meeting at a
    /// barrier ([`crate::config::capacity`] refuses a fleet without one).
    pub fn of(plan: &CapacityPlan) -> Option<Fleet> {
        let base = &plan.base;
        let shard = base.shard.filter(|s| s.count > 1)?;
        let start = base.start_at.clone()?;
        let barrier = start.barrier()?.clone();
        Some(Fleet {
            target: base.target.clone(),
            tag: plan_tag(plan),
            start,
            barrier,
            index: shard.index,
            count: shard.count,
            tries: 0,
        })
    }

    /// Begins the next try: the start at which this shard meets the others,
    /// at the try's own barrier.
    pub fn begin(&mut self) -> (StartAt, Try) {
        self.tries += 1;
        let mut start = self.start.clone();
        if let StartPoint::Barrier(b) = &mut start.point {
            b.run_id = try_run_id(&self.barrier.run_id, Try(self.tries));
        }
        (start, Try(self.tries))
    }

    /// Posts `mine` for `at`, waits (at most `--barrier-timeout`) for every
    /// other shard's post, and returns the fleet's merged measurements.
    pub fn merge(&self, at: Try, mine: &Pooled, interrupt: &Interrupt) -> Result<Pooled, RunError> {
        let posts = self.exchange(at, &encode(&self.tag, mine), interrupt)?;
        let shares = posts
            .iter()
            .enumerate()
            .map(|(i, p)| decode(&self.tag, p).map_err(|why| self.refused(i, why)))
            .collect::<Result<Vec<_>, _>>()?;
        merge(&shares).map_err(|why| self.server(why.to_string()))
    }

    /// Tells the other shards that this one's try `at` stopped, so that
    /// they end without waiting; the stop itself is this shard's to report,
    /// so a failure to post is not one.
    pub fn stopped(&self, at: Try) {
        let run_id = try_run_id(&self.barrier.run_id, at);
        if let Ok(mut board) = RedisShares::open(&self.target, &run_id) {
            let _ = post_stopped(&mut board, self.index, self.barrier.timeout);
        }
    }

    fn exchange(
        &self,
        at: Try,
        post: &str,
        interrupt: &Interrupt,
    ) -> Result<Vec<String>, RunError> {
        let run_id = try_run_id(&self.barrier.run_id, at);
        let mut board =
            RedisShares::open(&self.target, &run_id).map_err(|e| self.server(e.to_string()))?;
        let timeout = self.barrier.timeout;
        let gathered = gather(&mut board, self.index, self.count, post, timeout, interrupt)
            .map_err(|e| self.server(e.to_string()))?;
        match gathered {
            Gathered::All(posts) => Ok(posts),
            Gathered::Missing { missing, stopped } => Err(BarrierError::Shares {
                run_id,
                missing: list(&missing),
                stopped: list(&stopped),
                count: self.count,
                timeout_s: self.barrier.timeout.as_secs_f64(),
            }
            .into()),
            Gathered::Interrupted => Err(RunError::Interrupted(crate::error::Before::Start)),
        }
    }

    /// Shard `index`'s post did not read back: other search flags are the
    /// user's to fix (exit 2); anything else is the server's keeping.
    fn refused(&self, index: usize, why: PostError) -> RunError {
        match why {
            PostError::Version { .. } => UsageError::new(
                "kvbench capacity",
                format!(
                    "shard {index} of the run id '{}' searches differently: {why}",
                    self.barrier.run_id
                ),
            )
            .into(),
            why => self.server(format!("shard {index}'s post: {why}")),
        }
    }

    fn server(&self, why: String) -> RunError {
        BarrierError::Server {
            run_id: self.barrier.run_id.clone(),
            why,
        }
        .into()
    }
}

/// `0, 2`: shard indexes as a message lists them; `-` for none.
fn list(indexes: &[u32]) -> String {
    if indexes.is_empty() {
        return "-".to_string();
    }
    let words: Vec<String> = indexes.iter().map(u32::to_string).collect();
    words.join(", ")
}

/// The run id of try `at`: its barrier's and its posts'.
pub fn try_run_id(run_id: &str, at: Try) -> String {
    format!("{run_id}.step-{}", at.0)
}

/// What one shard measured in a try, as it is posted.
#[derive(Debug, Clone)]
pub struct Share {
    /// Runs pooled in the step so far.
    pub runs: u32,
    /// Replies received.
    pub replies: u64,
    /// Requests due that were never sent.
    pub never_sent: u64,
    /// Error replies and requests lost.
    pub errors: u64,
    /// Measured seconds.
    pub seconds: f64,
    /// Every reply's response time, µs.
    pub latency_us: Histogram<u64>,
    /// Every request never sent, with its least wait, µs.
    pub never_sent_us: Histogram<u64>,
    /// Its every-op seconds, all runs one after the other.
    pub batches: Batches,
}

/// The first word of a post: the layout's version and every setting the
/// judging and the search depend on, so that shards started with other
/// search flags refuse each other rather than decide apart.
pub fn plan_tag(plan: &CapacityPlan) -> String {
    let slos: Vec<String> = plan
        .slos
        .iter()
        .map(|s| format!("p{}={}us", s.percentile, s.limit_us))
        .collect();
    format!(
        "{SHARE_TAG}/{}/res={}/start={}/steps={}/repeats={}/errors={}",
        slos.join(","),
        plan.resolution,
        plan.start_rate,
        plan.max_steps,
        plan.max_repeats,
        plan.base.faults.max_error_share
    )
}

/// `mine` as it is posted under `tag`: one line of words, the histograms
/// as base64, the seconds last ([`Batches::encode`]).
pub fn encode(tag: &str, mine: &Pooled) -> String {
    let t = &mine.totals;
    let histogram = |h: Option<&Histogram<u64>>| match h {
        Some(h) if !h.is_empty() => crate::report::json::compressed(h),
        // An empty histogram is written as a dash: nothing to decode.
        _ => "-".to_string(),
    };
    format!(
        "{tag} {} {} {} {} {} {} {} {}",
        mine.runs,
        t.count,
        t.never_sent,
        mine.errors,
        // Display of an f64 is the shortest text that reads back exactly.
        mine.seconds,
        histogram(Some(&t.latency_us)),
        histogram(t.never_sent_us.as_ref()),
        mine.batches.encode(),
    )
}

/// Why a post did not read back.
#[derive(Debug, thiserror::Error)]
pub enum PostError {
    /// Not the nine words of a post.
    #[error("{0} words, not 9")]
    Words(usize),
    /// Another layout or other search settings.
    #[error(
        "it was posted under '{got}', this shard's is '{want}': every shard must run the same kvbench with the same search flags (--slo, --resolution, --start-rate, --max-steps, --max-repeats, --max-error-share)"
    )]
    Version {
        /// The post's first word.
        got: String,
        /// This shard's.
        want: String,
    },
    /// A count or the seconds are not a number.
    #[error("{what} '{text}' is not a number")]
    Number {
        /// Which word.
        what: &'static str,
        /// What it held.
        text: String,
    },
    /// A histogram did not decode.
    #[error(transparent)]
    Histogram(#[from] HistogramError),
    /// The seconds did not decode.
    #[error("its seconds are not a series of encoded histograms")]
    Seconds,
    /// A histogram's values do not fit the latency histogram's range.
    #[error("a histogram does not fit the latency range: {0:?}")]
    Range(hdrhistogram::AdditionError),
    /// The latency histogram could not be created.
    #[error("cannot create a histogram: {0:?}")]
    Creation(hdrhistogram::CreationError),
}

/// A post read back, refused unless it was posted under `tag`.
pub fn decode(tag: &str, post: &str) -> Result<Share, PostError> {
    let words: Vec<&str> = post.split(' ').collect();
    let [
        got,
        runs,
        replies,
        never_sent,
        errors,
        seconds,
        latency,
        never,
        batches,
    ] = words[..]
    else {
        return Err(PostError::Words(words.len()));
    };
    if got != tag {
        return Err(PostError::Version {
            got: got.to_string(),
            want: tag.to_string(),
        });
    }
    let bad = |what: &'static str, text: &str| PostError::Number {
        what,
        text: text.to_string(),
    };
    let number = |w: &str, what: &'static str| w.parse::<u64>().map_err(|_| bad(what, w));
    let histogram = |w: &str| -> Result<Histogram<u64>, PostError> {
        let mut h = crate::engine::stats::latency_histogram().map_err(PostError::Creation)?;
        if w != "-" {
            let read = CompressedHistogram(w.to_string()).decode()?;
            h.add(&read).map_err(PostError::Range)?;
        }
        Ok(h)
    };
    Ok(Share {
        runs: runs.parse().map_err(|_| bad("runs", runs))?,
        replies: number(replies, "replies")?,
        never_sent: number(never_sent, "never sent")?,
        errors: number(errors, "errors")?,
        seconds: seconds.parse().map_err(|_| bad("seconds", seconds))?,
        latency_us: histogram(latency)?,
        never_sent_us: histogram(never)?,
        batches: Batches::decode(batches).ok_or(PostError::Seconds)?,
    })
}

/// The fleet's measurements: counts and histograms added in the order of
/// the shard index; the seconds are the shards' mean, since every shard ran
/// the same planned window, so replies per second are the fleet's over it.
pub fn merge(shares: &[Share]) -> Result<Pooled, PostError> {
    let mut totals = OpStats::new_open_loop().map_err(PostError::Creation)?;
    let (mut seconds, mut errors, mut runs) = (0.0, 0, 0);
    let mut batches: Option<Batches> = None;
    for s in shares {
        match batches.as_mut() {
            // The shards ran the same window: their seconds add up.
            Some(b) => b.add(&s.batches),
            None => batches = Some(s.batches.clone()),
        }
        totals.count += s.replies;
        totals.never_sent += s.never_sent;
        // Both auto-resize, so adding cannot run out of range.
        let _ = totals.latency_us.add(&s.latency_us);
        if let Some(h) = totals.never_sent_us.as_mut() {
            let _ = h.add(&s.never_sent_us);
        }
        seconds += s.seconds;
        errors += s.errors;
        runs = runs.max(s.runs);
    }
    Ok(Pooled {
        totals,
        seconds: seconds / shares.len().max(1) as f64,
        errors,
        runs,
        batches: batches.unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::{Try, decode, encode, merge, try_run_id};
    use crate::engine::stats::OpStats;
    use crate::engine::stats::precision::Batches;
    use crate::tools::capacity::step::Pooled;

    const TAG: &str = "kvbench-share-1/p99=5000us";

    fn pooled(latencies: &[u64], never_sent: &[u64], seconds: f64) -> Pooled {
        let mut totals = OpStats::new_open_loop().unwrap();
        for &l in latencies {
            totals.record_open_loop(l, l / 2);
        }
        for &w in never_sent {
            totals.never_sent += 1;
            totals.never_sent_us.as_mut().unwrap().record(w).unwrap();
        }
        Pooled {
            totals,
            seconds,
            errors: 3,
            runs: 2,
            batches: Batches::new(),
        }
    }

    #[test]
    fn a_post_reads_back_to_the_same_counts_and_histograms() {
        let mine = pooled(&[100, 250, 4000, 90_000], &[7000], 2.000_123_456_789);
        let share = decode(TAG, &encode(TAG, &mine)).unwrap();
        assert_eq!((share.runs, share.replies, share.never_sent), (2, 4, 1));
        assert_eq!((share.errors, share.seconds), (3, 2.000_123_456_789));
        assert_eq!(share.latency_us, mine.totals.latency_us);
        assert_eq!(
            &share.never_sent_us,
            mine.totals.never_sent_us.as_ref().unwrap()
        );
        // Nothing never sent: a dash, read back as an empty histogram.
        let none = decode(TAG, &encode(TAG, &pooled(&[100], &[], 1.0))).unwrap();
        assert!(none.never_sent_us.is_empty());
    }

    #[test]
    fn a_bad_post_is_refused_with_its_reason() {
        assert!(
            decode(TAG, "stopped")
                .unwrap_err()
                .to_string()
                .contains("words")
        );
        let other = encode(TAG, &pooled(&[1], &[], 1.0)).replace(TAG, "kvbench-share-1/p99=4000us");
        assert!(
            decode(TAG, &other)
                .unwrap_err()
                .to_string()
                .contains("same search flags")
        );
        let bad = encode(TAG, &pooled(&[1], &[], 1.0)).replace(" 2 ", " x ");
        assert!(decode(TAG, &bad).is_err());
    }

    #[test]
    fn the_merge_adds_counts_and_histograms_and_averages_the_seconds() {
        let a = decode(TAG, &encode(TAG, &pooled(&[100, 200], &[], 2.0))).unwrap();
        let b = decode(TAG, &encode(TAG, &pooled(&[300, 400, 500], &[9000], 2.2))).unwrap();
        let m = merge(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(
            (m.totals.count, m.totals.never_sent, m.errors, m.runs),
            (5, 1, 6, 2)
        );
        assert!((m.seconds - 2.1).abs() < 1e-12);
        assert_eq!(m.totals.latency_us.len(), 5);
        assert_eq!(m.judged_histogram().len(), 6);
        // The replies per second of the fleet over the common window.
        assert!((m.ops_per_sec() - 5.0 / 2.1).abs() < 1e-9);
        // The same posts in the same order give the same bits.
        let again = merge(&[a, b]).unwrap();
        assert_eq!(again.seconds.to_bits(), m.seconds.to_bits());
        assert_eq!(again.judged_histogram(), m.judged_histogram());
    }

    #[test]
    fn every_try_has_its_own_run_id() {
        assert_eq!(try_run_id("bench-1", Try(12)), "bench-1.step-12");
        assert!(try_run_id("r", Try(99_999)).len() - 1 <= crate::config::capacity::STEP_SUFFIX_MAX);
    }

    #[test]
    fn each_shards_seconds_travel_in_its_post_and_add_up_second_by_second() {
        let series = |count: u64, us: u64| {
            let mut s = crate::engine::stats::Stats::new(1).unwrap();
            for _ in 0..count {
                s.ops[0].record(us);
            }
            let mut b = Batches::new();
            for i in 0..12 {
                b.second(i, &s);
            }
            b.finish(12);
            b.totals()
        };
        let mut one = pooled(&[100], &[], 12.0);
        one.batches = series(100, 1000);
        let mut two = pooled(&[100], &[], 12.0);
        two.batches = series(300, 3000);
        let shares = [&one, &two].map(|p| decode(TAG, &encode(TAG, p)).unwrap());
        assert_eq!(shares[1].batches.seconds(), 12);
        let m = merge(&shares).unwrap();
        assert_eq!(m.batches.seconds(), 12);
        // 400 replies each second, every second alike: a nil interval.
        let rate = m.batches.rate(400.0).expect("twelve seconds");
        assert_eq!((rate.value, rate.half_width), (400.0, 0.0));
        // The fleet's p90 is the second shard's latency, in every second.
        // Every second alike: the interval is its floor, half the compact
        // histograms' bucket at 3 ms (16 µs wide).
        let p90 = m.batches.latency(0, 90.0, 3000.0).expect("twelve seconds");
        assert_eq!(p90.half_width, 8.0);
        let garbled = encode(TAG, &one).replace(";100,", ";x,");
        assert!(
            decode(TAG, &garbled)
                .unwrap_err()
                .to_string()
                .contains("seconds")
        );
    }
}
