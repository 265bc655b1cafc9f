//! The checks that raise [`Warning`]s, from the configuration, the results and
//! the server's evidence. Thresholds are named constants, so the docs and the
//! tests can cite them.

use crate::config::{Config, FlagSet, Headline, Stop};
use crate::engine::master::placement::Placement;
use crate::engine::master::results::variance::Variance;
use crate::engine::master::results::{PhaseResult, Results, ServerContext};
use crate::engine::master::server::info::Software;
use crate::engine::master::sysinfo;
use crate::engine::stats::percentile_us;
use crate::protocol::resp::ServerErrorKind;
use crate::report::hit_rate_percent;
use crate::report::warnings::{MemoryLimit, MissFix, RateLimit, SATURATED_CPU_PERCENT, Warning};
use crate::workload::keys::KeyRange;
use crate::workload::ops::RandInt;

/// An open-loop run met its rate if it completed at least this share of it.
pub const RATE_MET_FRACTION: f64 = 0.95;
/// A backlog worth more than this many seconds of the schedule at the end of a
/// run means the client fell behind for good, not in a passing stall.
pub const BACKLOG_BEHIND_SECS: f64 = 0.05;
/// Requests left unsent at the deadline that are still timing noise: a request
/// due microseconds before the deadline may meet a loop that has just stopped
/// sending. Up to one per connection, or 0.1 % of the schedule, is noise.
pub const UNSENT_NOISE_FRACTION: f64 = 0.001;
/// Fewer keys than this make a hot-key benchmark.
pub const MIN_KEYS: u64 = 1000;
/// More requests per key than this in the measured runs: every key is hot.
pub const MAX_REQUESTS_PER_KEY: u64 = 10_000;
/// Without `--prefill`, a GET hit rate below this (%) means the GETs measure misses.
pub const MIN_HIT_RATE: f64 = 90.0;
/// Runs shorter than this (seconds) are dominated by start-up and noise.
pub const MIN_RUN_SECS: f64 = 10.0;
/// A server/client count difference above this share of the client's count.
pub const MISMATCH_FRACTION: f64 = 0.001;
/// Error replies above this share of all replies make a run that measures how
/// fast the server refuses, not how fast it works.
pub const MAX_ERROR_SHARE: f64 = 0.01;
/// A paced run's p99 response time above this multiple of its p99 service
/// time means requests queued before being sent (a passing jitter stays below).
pub const DIVERGE_FACTOR: f64 = 2.0;
/// ... and above it by at least this many ms, so that microsecond-scale noise
/// on an idle loopback server is not reported.
pub const DIVERGE_MIN_MS: f64 = 1.0;
/// Bytes a Redis key costs beyond its name and value (dict entry, object header,
/// string headers, allocator rounding), for the dataset estimate.
pub const PER_KEY_OVERHEAD: u64 = 64;

/// Every warning about these results, in report order.
pub fn collect(config: &Config, results: &Results) -> Vec<Warning> {
    let mut out = Vec::new();
    for run in &results.runs {
        run_warnings(config, run, &mut out);
    }
    if let Some(w) = error_replies(config, results) {
        out.push(w);
    }
    if let Some(w) = key_range(config, results) {
        out.push(w);
    }
    if let Some(w) = hit_rate(config, results) {
        out.push(w);
    }
    if let Some(w) = miss_rate_threshold(config, results) {
        out.push(w);
    }
    let local = sysinfo::is_this_machine(&config.target.endpoint);
    if local {
        let placement = results.placement.as_ref();
        out.push(Warning::SameMachine {
            target: config.target.endpoint.to_string(),
            apart: placement.is_some_and(|p| p.server.is_some() && p.overlap().is_empty()),
            advice: placement.and_then(Placement::split_advice),
        });
    }
    if let Some(w) = dataset(config, results, local) {
        out.push(w);
    }
    let shortest = results
        .runs
        .iter()
        .filter(|r| !cut_after_long_enough_plan(config, r))
        .map(|r| r.duration.as_secs_f64())
        .reduce(f64::min);
    if let Some(secs) = shortest.filter(|s| *s < MIN_RUN_SECS) {
        out.push(Warning::ShortRun {
            secs,
            flags: config.flags,
        });
    }
    if results.server.as_ref().is_some_and(fsyncs_every_write) {
        out.push(Warning::FsyncAlways);
    }
    if let Some(v) = results.variance().filter(Variance::is_noisy) {
        out.push(Warning::RunsDisagree {
            max_over_min: v.max_over_min(),
        });
    }
    out.extend(crate::report::warnings::cluster::hot_shards(
        config, results,
    ));
    out
}

/// A run that a signal (or `--max-errors`) cut short although its
/// `--test-time` was long enough: its length says when the user stopped it,
/// not what they planned, and the verdict already says it was cut, so the
/// short-run advice ("use --test-time 10 or more") would be false for it.
fn cut_after_long_enough_plan(config: &Config, run: &PhaseResult) -> bool {
    run.interrupted
        && matches!(config.stop, Stop::Time(planned) if planned.as_secs_f64() >= MIN_RUN_SECS)
}

/// `appendfsync always` makes every write wait for the disk only while the
/// append-only file is on: with `appendonly no` the setting does nothing, so
/// INFO's `aof_enabled` must say 1 as well.
fn fsyncs_every_write(server: &ServerContext) -> bool {
    server.appendfsync.as_deref() == Some("always") && server.info.u64("aof_enabled") == Some(1)
}

/// Warnings about one measured run: rate, saturation, the server's counts, forks.
fn run_warnings(config: &Config, run: &PhaseResult, out: &mut Vec<Warning>) {
    let phase = run.phase.to_string();
    let rate = rate_check(config, run);
    let client_limited = matches!(
        &rate,
        Some(Warning::RateNotMet {
            limit: RateLimit::Client { .. },
            ..
        })
    );
    out.extend(rate);
    out.extend(divergence(config, run));
    out.extend(crate::report::warnings::stall::stall(run));
    out.extend(watched_counts(config, run));
    let busiest_cpu_percent = run.busiest_thread_cpu_percent();
    if busiest_cpu_percent >= SATURATED_CPU_PERCENT && !client_limited {
        out.push(Warning::ClientBound {
            phase: phase.clone(),
            busiest_cpu_percent,
            flags: config.flags,
        });
    }
    let Some(evidence) = &run.server else {
        if let Some(reason) = &run.evidence_lost {
            out.push(Warning::EvidenceLost {
                phase,
                reason: reason.clone(),
            });
        }
        return;
    };
    if evidence.restarted() {
        // Counts from two processes cannot be compared with kvbench's.
        out.push(Warning::ServerRestarted { phase });
        return;
    }
    // kvbench counts every reply, error or not; Redis 7 counts a call refused
    // before it ran (-OOM) in rejected_calls, not in calls. A shard's server
    // also counts the other shards' requests: the shard records its evidence
    // unjudged and `kvbench merge` judges the whole set against the server.
    let witnesses = if config.shard.is_some() {
        Vec::new()
    } else {
        config.ops.witnesses()
    };
    for w in witnesses {
        let client = run.stats.witnessed(&w);
        let server = evidence.answered(&w.command);
        if client.abs_diff(server) as f64 > MISMATCH_FRACTION * client as f64 {
            out.push(Warning::CountMismatch {
                phase: phase.clone(),
                op: w.name,
                client,
                server,
            });
        }
    }
    let forks = evidence.delta("total_forks");
    if forks > 0 {
        out.push(Warning::BackgroundSave { phase, forks });
    }
}

/// `--watch`ed shards behind the target, judged against this run's replies
/// ([`super::watched`]); a shard of a sharded set leaves it to the merge.
fn watched_counts(config: &Config, run: &PhaseResult) -> Vec<Warning> {
    if config.shard.is_some() || run.watched.is_empty() {
        return Vec::new();
    }
    let watched = crate::report::build::watched::watched(&run.watched, &[]);
    let replies: Vec<super::watched::Replies> = config
        .ops
        .witnesses()
        .into_iter()
        .map(|w| super::watched::Replies {
            count: run.stats.witnessed(&w),
            name: w.name,
            command: w.command,
        })
        .collect();
    super::watched::shard_mismatches(&run.phase.to_string(), &watched, &replies)
}

/// A paced run whose response time runs away from its service time.
fn divergence(config: &Config, run: &PhaseResult) -> Option<Warning> {
    config.rate?;
    let totals = run.stats.totals();
    let (service, response) = match config.headline {
        Headline::ServiceTime => (&totals.latency_us, totals.response_us.as_ref()?),
        Headline::ResponseTime => (totals.service_us.as_ref()?, &totals.latency_us),
    };
    let service_p99_ms = percentile_us(service, 99.0) as f64 / 1000.0;
    let response_p99_ms = percentile_us(response, 99.0) as f64 / 1000.0;
    let diverged = response_p99_ms > DIVERGE_FACTOR * service_p99_ms
        && response_p99_ms - service_p99_ms > DIVERGE_MIN_MS;
    diverged.then(|| Warning::LatencyMeasuresDiverge {
        phase: run.phase.to_string(),
        headline: config.headline,
        service_p99_ms,
        response_p99_ms,
        faults: connection_faults(run),
        down_at_end: run.connections_down,
    })
}

/// Events that broke a connection or kept one from coming back: a close or
/// reset, a refused reconnect, a request timeout, a garbled reply.
fn connection_faults(phase: &PhaseResult) -> u64 {
    let e = &phase.stats.errors;
    e.connection + e.refused + e.timeouts + e.protocol
}

/// Checks an open-loop phase against its target; `None` when it met it (or the
/// run is a closed loop).
pub fn rate_check(config: &Config, phase: &PhaseResult) -> Option<Warning> {
    let rate = config.rate?;
    let target = rate.total_per_sec;
    let achieved = phase.ops_per_sec();
    let behind_secs = phase.series.last().map_or(0, |s| s.backlog) as f64 / target;
    let scheduled = target * phase.duration.as_secs_f64();
    let unsent_noise = (config.connections() as f64).max(UNSENT_NOISE_FRACTION * scheduled);
    let kept_up = behind_secs <= BACKLOG_BEHIND_SECS && phase.unsent as f64 <= unsent_noise;
    if achieved >= RATE_MET_FRACTION * target && kept_up {
        return None;
    }
    let busiest_cpu_percent = phase.busiest_thread_cpu_percent();
    let faults = connection_faults(phase);
    let limit = if faults > 0 || phase.connections_down > 0 {
        // A connection that was down sent nothing: its schedule, not the
        // server's speed, explains the shortfall.
        RateLimit::LostConnections {
            faults,
            down_at_end: phase.connections_down,
            connections: config.connections(),
        }
    } else if busiest_cpu_percent >= SATURATED_CPU_PERCENT {
        RateLimit::Client {
            busiest_cpu_percent,
        }
    } else {
        let mean_service_ms = phase.stats.totals().mean_service_us() / 1000.0;
        let in_flight = config.connections() * config.pipeline;
        let max_rate = if mean_service_ms > 0.0 {
            in_flight as f64 * 1000.0 / mean_service_ms
        } else {
            0.0
        };
        RateLimit::Server {
            in_flight,
            mean_service_ms,
            max_rate,
        }
    };
    Some(Warning::RateNotMet {
        phase: phase.phase.to_string(),
        target,
        achieved,
        unsent: phase.unsent,
        limit,
    })
}

/// More than [`MAX_ERROR_SHARE`] of the measured runs' replies were errors:
/// named by the most frequent kind, with the server's memory limit for OOM
/// and, in a cluster run, what its redirects say.
fn error_replies(config: &Config, results: &Results) -> Option<Warning> {
    let all = results.run_totals()?;
    let (errors, replies) = (all.error_replies(), all.replies());
    if replies == 0 || (errors as f64) <= MAX_ERROR_SHARE * replies as f64 {
        return None;
    }
    let (kind, kind_count) = ServerErrorKind::ALL
        .iter()
        .zip(all.errors.server)
        .max_by_key(|(_, n)| *n)
        .map(|(k, n)| (*k, n))?;
    let info = results.server.as_ref().map(|s| &s.info);
    Some(Warning::ErrorReplies {
        errors,
        replies,
        kind,
        kind_count,
        maxmemory: info.and_then(|i| i.u64("maxmemory")).filter(|m| *m > 0),
        policy: info
            .and_then(|i| i.get("maxmemory_policy"))
            .map(str::to_string),
        memcached: info.is_some_and(|i| i.software == Software::Memcached),
        redirects: crate::report::warnings::redirects::redirect_loop(config, &all),
        flags: config.flags,
    })
}

/// The SETs of a phase: the prefill's all are; a run's are its SET rows
/// (`--command` runs count only their SET lines, not HSET's fields).
fn writes(config: &Config, p: &PhaseResult) -> u64 {
    let ops = p.ops(&config.ops);
    ops.witnesses()
        .iter()
        .filter(|w| w.command == "set")
        .map(|w| p.stats.witnessed(w))
        .sum()
}

fn run_requests(results: &Results) -> u64 {
    results.runs.iter().map(|r| r.stats.replies()).sum()
}

/// The keys the load names: memtier's key range, or a suite test's
/// `__rand_int__` range (`-r`). `None` for a suite without `-r`, whose one
/// key the suite's own warning names before the load.
fn named_keys(config: &Config) -> Option<KeyRange> {
    match (config.flags, config.ops.rand_int) {
        (FlagSet::Run, _) | (FlagSet::Suite, RandInt::KeyRange) => Some(config.keys.range),
        (FlagSet::Suite, RandInt::Below(n) | RandInt::Sequential(n)) => Some(KeyRange {
            min: 0,
            max: n.saturating_sub(1),
        }),
        (FlagSet::Suite, RandInt::Literal) => None,
    }
}

fn key_range(config: &Config, results: &Results) -> Option<Warning> {
    let keys = named_keys(config)?.len();
    let requests = run_requests(results);
    let hot = keys < MIN_KEYS || requests / keys.max(1) > MAX_REQUESTS_PER_KEY;
    (requests > 0 && hot).then_some(Warning::KeyRangeTooSmall {
        keys,
        requests,
        flags: config.flags,
    })
}

fn hit_rate(config: &Config, results: &Results) -> Option<Warning> {
    // The advice (--prefill, which writes strings) fits GETs only: a hash or
    // list command's misses need its own writes first.
    let ops = &config.ops;
    if ops.hit_rows().any(|r| ops.rows[r].witness != "get") {
        return None;
    }
    let all = results.run_totals()?;
    let hit_rate = hit_rate_percent(&crate::report::hit_stats(config, &all)?)?;
    let floor = if config.prefill { 100.0 } else { MIN_HIT_RATE };
    let fix = match (config.prefill, config.flags) {
        (true, _) => MissFix::Prefilled,
        (false, FlagSet::Run) => MissFix::Prefill,
        (false, FlagSet::Suite) => MissFix::SuiteSetFirst,
    };
    (hit_rate < floor).then_some(Warning::GetsMostlyMiss { hit_rate, fix })
}

/// `--miss-rate-threshold`: every command whose nil reply is a miss (GET,
/// and the `--command` rows that count hits) together, over the measured runs.
fn miss_rate_threshold(config: &Config, results: &Results) -> Option<Warning> {
    let threshold = config.miss_rate_threshold?;
    let all = results.run_totals()?;
    let get = crate::report::hit_stats(config, &all)?;
    let answered = get.hits + get.misses;
    let miss_rate = 100.0 - hit_rate_percent(&get)?;
    (miss_rate > threshold).then_some(Warning::MissRateAboveThreshold {
        miss_rate,
        threshold,
        answered,
    })
}

/// Keys written × (value + key name + overhead), against maxmemory and, when the
/// server is on this machine (`local`), the memory available.
fn dataset(config: &Config, results: &Results, local: bool) -> Option<Warning> {
    let sets: u64 = results
        .prefill
        .iter()
        .chain(&results.warmup)
        .chain(&results.runs)
        .map(|p| writes(config, p))
        .sum();
    let range = named_keys(config)?;
    let keys = sets.min(range.len());
    let key_bytes = config.keys.prefix.len() as u64 + range.max.to_string().len() as u64;
    let estimate = keys * (config.values.mean_size() as u64 + key_bytes + PER_KEY_OVERHEAD);
    let maxmemory = results
        .server
        .as_ref()
        .and_then(|s| s.info.u64("maxmemory"))
        .filter(|m| *m > 0);
    if let Some(limit) = maxmemory.filter(|m| estimate > *m) {
        return Some(Warning::DatasetTooLarge {
            estimate,
            limit,
            which: MemoryLimit::MaxMemory,
            flags: config.flags,
        });
    }
    let available = sysinfo::mem_available().filter(|_| local)?;
    (estimate > available).then_some(Warning::DatasetTooLarge {
        estimate,
        limit: available,
        which: MemoryLimit::FreeMemory,
        flags: config.flags,
    })
}

#[cfg(test)]
mod tests {
    use super::divergence;
    use crate::engine::master::results::PhaseResult;
    use crate::engine::stats::Stats;
    use crate::report::cluster_fixture::{cluster_results, standalone_config};

    /// A `--rate` run whose 1 000 replies took 1 ms from the actual send and
    /// 20 ms from their intended send: the two measures diverge.
    fn diverged_run() -> PhaseResult {
        let mut run = cluster_results([0, 0, 0], [0, 0, 0]).runs.remove(0);
        run.stats = Stats::new_open_loop(2).unwrap();
        for _ in 0..1000 {
            run.stats.ops[1].record_open_loop(20_000, 1_000);
        }
        run
    }

    #[test]
    fn diverging_measures_blame_the_server_or_the_window_when_no_connection_was_lost() {
        let config = standalone_config(&["--rate", "1000"]);
        let w = divergence(&config, &diverged_run()).unwrap();
        let text = w.to_string();
        assert!(
            text.contains("because the server or the pipeline window held them back"),
            "{text}"
        );
        assert!(!text.contains("lost"), "{text}");
    }

    #[test]
    fn diverging_measures_name_the_lost_connections_when_the_run_lost_some() {
        let config = standalone_config(&["--rate", "1000"]);
        let mut run = diverged_run();
        run.stats.errors.connection = 3;
        run.connections_down = 1;
        let text = divergence(&config, &run).unwrap().to_string();
        assert!(
            text.contains("because connections were lost: 3 connection fault(s), 1 connection(s) down at the end"),
            "{text}"
        );
        assert!(
            !text.contains("the server or the pipeline window"),
            "{text}"
        );
        // A refused reconnect or a request timeout is a lost connection too.
        let mut run = diverged_run();
        run.stats.errors.timeouts = 2;
        let text = divergence(&config, &run).unwrap().to_string();
        assert!(text.contains("2 connection fault(s)"), "{text}");
    }
}
