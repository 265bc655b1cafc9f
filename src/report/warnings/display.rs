//! What each [`Warning`] says: the numbers that raised it, what they mean for
//! the result, and what to change (the advice depends on the flags and the
//! server). The variants and their thresholds are in the parent module and
//! [`super::checks`].

use std::fmt;

use super::{MemoryLimit, MissFix, RateLimit, Warning};
use crate::config::{FlagSet, Headline};
use crate::protocol::resp::ServerErrorKind;
use crate::report::spread;

/// Who missed, at a GET hit rate of `hit_rate` %: "most GETs" only when
/// more than half missed, the share itself otherwise.
fn missed_share(hit_rate: f64) -> String {
    let missed = 100.0 - hit_rate;
    if missed > 50.0 {
        format!("most GETs ({missed:.2} %)")
    } else {
        format!("{missed:.2} % of GETs")
    }
}

/// The likely cause of a flood of one error kind, and what to change.
fn error_cause(
    f: &mut fmt::Formatter<'_>,
    kind: ServerErrorKind,
    maxmemory: Option<u64>,
    policy: Option<&str>,
    flags: FlagSet,
) -> fmt::Result {
    match kind {
        ServerErrorKind::Oom => {
            let limit = maxmemory.map_or("its maxmemory".to_string(), |m| {
                format!("its maxmemory ({:.0} MiB)", mib(m))
            });
            write!(
                f,
                "The server is full: it reached {limit} with maxmemory-policy {} and refuses writes; raise maxmemory, choose an eviction policy (allkeys-lru), or {}.",
                policy.unwrap_or("noeviction"),
                flags.shrink_dataset()
            )
        }
        ServerErrorKind::Loading => write!(
            f,
            "The server was still loading its dataset; wait until INFO persistence says loading:0, then run again."
        ),
        ServerErrorKind::Busy => write!(
            f,
            "A script or function blocked the server; end it (SCRIPT KILL / FUNCTION KILL) and run again."
        ),
        ServerErrorKind::ReadOnly => write!(
            f,
            "The target is a read-only replica; point --server/--port at the primary, or use --ratio 0:1 for reads only."
        ),
        ServerErrorKind::NoAuth | ServerErrorKind::WrongPass | ServerErrorKind::NoPerm => write!(
            f,
            "The credentials or the user's permissions do not allow these commands; check --authenticate and the user's ACL."
        ),
        ServerErrorKind::Moved | ServerErrorKind::Ask => write!(
            f,
            "The target is a cluster node that does not own these keys; add --cluster-mode to route by slot, or raise --max-redirects if the cluster was resharding."
        ),
        ServerErrorKind::TryAgain | ServerErrorKind::ClusterDown => write!(
            f,
            "The cluster could not serve these slots (a migration or a failover in progress, or slots without a master); check CLUSTER INFO and run again once cluster_state is ok."
        ),
        ServerErrorKind::CrossSlot => write!(
            f,
            "A command's keys hash to different slots; give the keys one hash tag (--key-prefix 'user:{{1}}:') so that they share a slot."
        ),
        ServerErrorKind::WrongType => write!(
            f,
            "The keys hold values of another type; use an empty database (--select-db) or another --key-prefix."
        ),
        ServerErrorKind::Err | ServerErrorKind::Other => write!(
            f,
            "See the server's log and INFO errorstats for the message; the numbers are not a measurement of the workload."
        ),
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::RateNotMet {
                phase,
                target,
                achieved,
                unsent,
                limit,
            } => {
                write!(
                    f,
                    "{phase}: the target rate was not met: {achieved:.0} of {target:.0} requests/s ({:.1} %), {unsent} requests due were never sent. ",
                    100.0 * achieved / target
                )?;
                match limit {
                    RateLimit::Client {
                        busiest_cpu_percent,
                    } => write!(
                        f,
                        "The client is the limit: a kvbench thread used {busiest_cpu_percent:.0} % of a CPU; add threads (-t) on free CPUs or lower --rate."
                    ),
                    RateLimit::Server {
                        in_flight,
                        mean_service_ms,
                        max_rate,
                    } => write!(
                        f,
                        "The server (or the path to it) is the limit: at a mean service time of {mean_service_ms:.3} ms, {in_flight} requests in flight (connections × pipeline) carry at most about {max_rate:.0} requests/s; if the server has headroom, raise --clients or --pipeline, otherwise lower --rate."
                    ),
                    RateLimit::LostConnections {
                        faults,
                        down_at_end,
                        connections,
                    } => write!(
                        f,
                        "Lost connections are the cause, not the server's capacity: {faults} connection fault(s), and {down_at_end} of {connections} connection(s) down at the end; requests due while a connection was down were sent late (their response time counts from their intended time) or never. See kvbench.errors for the kinds."
                    ),
                }
            }
            Warning::ClientBound {
                phase,
                busiest_cpu_percent,
                flags,
            } => write!(
                f,
                "{phase}: a kvbench worker thread used {busiest_cpu_percent:.0} % of a CPU: the result is client-bound and measures kvbench as much as the server; add threads ({}) on CPUs the server does not use, or run the client on another machine.",
                flags.threads()
            ),
            Warning::KeyRangeTooSmall {
                keys,
                requests,
                flags,
            } => write!(
                f,
                "the key range holds only {keys} keys for {requests} requests: every request hits the same few keys, so hit rates, eviction, fork and persistence costs look nothing like production; {}.",
                flags.widen_keys()
            ),
            Warning::GetsMostlyMiss {
                hit_rate,
                fix: MissFix::Prefilled,
            } => write!(
                f,
                "the GET hit rate is {hit_rate:.2} % although --prefill wrote the whole range: something removed keys (eviction under maxmemory, expiry, another client, a FLUSH); check the server before trusting GET numbers."
            ),
            Warning::GetsMostlyMiss { hit_rate, fix } => {
                write!(
                    f,
                    "the GET hit rate is {hit_rate:.2} %: {} asked for keys nobody wrote, and a miss is cheaper than a hit, so the GET figures flatter the server; ",
                    missed_share(*hit_rate)
                )?;
                match fix {
                    MissFix::SuiteSetFirst => write!(
                        f,
                        "run the SET test before GET over the same -r (-t set,get), with -n a few times -r so that SET writes most keys."
                    ),
                    _ => write!(
                        f,
                        "add --prefill (or prefill with --ratio 1:0 --key-pattern P:P -n allkeys) before a GET benchmark."
                    ),
                }
            }
            Warning::MissRateAboveThreshold {
                miss_rate,
                threshold,
                answered,
            } => write!(
                f,
                "the GET miss rate is {miss_rate:.2} %, above --miss-rate-threshold {threshold} % ({answered} GETs answered): the run measures misses more than the workload meant; prefill the keys (--prefill) or raise the threshold."
            ),
            Warning::SameMachine {
                target,
                apart: true,
                ..
            } => write!(
                f,
                "the server ({target}) runs on this machine: kvbench's threads were kept off its CPUs, but both still share the machine's caches, memory bandwidth and network stack, so the numbers compare configurations on this machine and are no capacity figure; use a separate client machine for that."
            ),
            Warning::SameMachine {
                target,
                apart: false,
                advice,
            } => write!(
                f,
                "the server ({target}) runs on this machine: kvbench and the server compete for the same CPUs, so the numbers compare configurations on this machine and are no capacity figure; pin them apart ({}) or use a separate client machine.",
                advice
                    .as_deref()
                    .unwrap_or("taskset for the server, --cpus for kvbench")
            ),
            Warning::DatasetTooLarge {
                estimate,
                limit,
                which,
                flags,
            } => {
                let what = match which {
                    MemoryLimit::MaxMemory => "the server's maxmemory",
                    MemoryLimit::FreeMemory => "this machine's available memory",
                };
                write!(
                    f,
                    "the key range × value size needs about {:.0} MiB, more than {what} ({:.0} MiB): expect evictions or errors, or swapping that measures the disk; {}.",
                    mib(*estimate),
                    mib(*limit),
                    flags.shrink_dataset()
                )
            }
            Warning::ShortRun {
                secs,
                flags: FlagSet::Run,
            } => write!(
                f,
                "each run lasted {secs:.1} s: runs under 10 s are dominated by start-up, caches warming and noise; use --test-time 10 or more (the whitepaper method uses 600 s)."
            ),
            Warning::ShortRun {
                secs,
                flags: FlagSet::Suite,
            } => write!(
                f,
                "a test lasted {secs:.1} s: tests under 10 s are dominated by start-up, caches warming and noise; raise -n until each lasts 10 s or more."
            ),
            Warning::ErrorReplies {
                errors,
                replies,
                kind,
                kind_count,
                maxmemory,
                policy,
                memcached,
                redirects,
                flags,
            } => {
                write!(
                    f,
                    "{errors} of {replies} replies ({:.1} %) were errors, most of them {} ({kind_count}): the rates count refusals, not work. ",
                    100.0 * *errors as f64 / *replies as f64,
                    kind.as_str()
                )?;
                if *memcached {
                    return super::memcached::error_cause(f, *kind);
                }
                if let (ServerErrorKind::Moved | ServerErrorKind::Ask, Some(redirects)) =
                    (kind, redirects)
                {
                    return super::redirects::redirect_loop_cause(f, redirects);
                }
                error_cause(f, *kind, *maxmemory, policy.as_deref(), *flags)
            }
            Warning::CountMismatch {
                phase,
                op,
                client,
                server,
            } => write!(
                f,
                "{phase}: the server counted {server} {op} calls but kvbench {client}: another client used the server during the run, or requests were lost; the numbers are not a clean measurement."
            ),
            Warning::EvidenceLost { phase, reason } => write!(
                f,
                "{phase}: the server's evidence is missing because {reason}: its counts, CPU use and the cross-check of kvbench's numbers are not in this report; the server may be at maxclients, unreachable, or its password changed (check --authenticate and maxclients)."
            ),
            Warning::ServerRestarted { phase } => write!(
                f,
                "{phase}: the server restarted during the run: connections were lost and reconnected (see Errors), its counters started again, and the numbers mix the old and the new process; repeat the run for a clean measurement."
            ),
            Warning::FsyncAlways => write!(
                f,
                "context: the server runs with appendfsync always, so every write waits for the disk; SET numbers measure the disk."
            ),
            Warning::BackgroundSave { phase, forks } => write!(
                f,
                "context: the server forked {forks} time(s) during {phase} (an RDB save or an AOF rewrite), which costs latency and memory while it runs."
            ),
            Warning::RunsDisagree { max_over_min } => write!(
                f,
                "identical runs differed by up to {} (max/min {max_over_min:.3}): differences between configurations smaller than that are noise on this setup; use longer runs or more of them.",
                spread::label(*max_over_min)
            ),
            Warning::LatencyMeasuresDiverge {
                phase,
                headline,
                service_p99_ms,
                response_p99_ms,
                faults,
                down_at_end,
            } => {
                write!(
                    f,
                    "{phase}: the p99 response time ({response_p99_ms:.3} ms, from each request's intended send time) is {:.1} times the p99 service time ({service_p99_ms:.3} ms, from the actual send): requests waited for their turn before they were sent, ",
                    response_p99_ms / service_p99_ms.max(0.001)
                )?;
                // A connection that is down sends nothing: what falls due on it
                // waits for the reconnect, which neither the server nor the
                // window explains.
                if *faults > 0 || *down_at_end > 0 {
                    write!(
                        f,
                        "because connections were lost: {faults} connection fault(s), {down_at_end} connection(s) down at the end; requests due on a connection while it was down waited for it to come back (see kvbench.errors for the kinds). "
                    )?;
                } else {
                    write!(
                        f,
                        "because the server or the pipeline window held them back. "
                    )?;
                }
                match headline {
                    Headline::ServiceTime => write!(
                        f,
                        "memtier's fields show service time, as memtier measures --rate-limiting, which leaves that wait out; the response time is in kvbench.runs[].open_loop.response_time, and --rate makes it the headline."
                    ),
                    Headline::ResponseTime => write!(
                        f,
                        "The headline (response time) includes that wait; service time alone, as memtier's --rate-limiting reports it, would hide it (kvbench.runs[].open_loop.service_time)."
                    ),
                }
            }
            Warning::HotShard {
                node,
                share,
                fair_share,
                masters,
                cause,
            } => super::cluster::hot_shard(f, node, (*share, *fair_share, *masters), cause),
            Warning::Stall {
                phase,
                slowest,
                quiet,
                gaps,
                connection_gaps,
            } => super::stall::describe(f, phase, *slowest, quiet.as_ref(), gaps, *connection_gaps),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::FlagSet;
    use crate::report::warnings::{MissFix, Warning};

    #[test]
    fn advice_names_the_flags_of_the_command_line_the_run_came_from() {
        let bound = |flags| Warning::ClientBound {
            phase: "RUN #1".into(),
            busiest_cpu_percent: 99.0,
            flags,
        };
        assert!(bound(FlagSet::Run).to_string().contains("add threads (-t)"));
        // The suite's -t is its list of tests.
        let suite = bound(FlagSet::Suite).to_string();
        assert!(suite.contains("add threads (--threads)"), "{suite}");
        let miss = |fix| {
            Warning::GetsMostlyMiss {
                hit_rate: 84.0,
                fix,
            }
            .to_string()
        };
        assert!(miss(MissFix::Prefill).contains("--prefill"));
        assert!(!miss(MissFix::SuiteSetFirst).contains("--prefill"));
        let dataset = |flags| {
            Warning::DatasetTooLarge {
                estimate: 2 << 30,
                limit: 1 << 30,
                which: super::MemoryLimit::MaxMemory,
                flags,
            }
            .to_string()
        };
        assert!(dataset(FlagSet::Run).ends_with("shrink --key-maximum or --data-size."));
        let suite = dataset(FlagSet::Suite);
        assert!(suite.ends_with("shrink -r or -d."), "{suite}");
        assert!(!suite.contains("--key-maximum"), "{suite}");
    }

    #[test]
    fn the_miss_advice_says_most_only_when_most_missed() {
        let said = |hit_rate| {
            Warning::GetsMostlyMiss {
                hit_rate,
                fix: MissFix::Prefill,
            }
            .to_string()
        };
        assert!(said(84.0).contains(": 16.00 % of GETs asked"));
        assert!(said(50.0).contains(": 50.00 % of GETs asked"));
        assert!(said(49.0).contains(": most GETs (51.00 %) asked"));
        assert!(!said(84.0).contains("most"));
    }
}
