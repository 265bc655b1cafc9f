//! The server's account of a merged run. A shard's server also serves the
//! other shards, so a shard records INFO around each run without judging
//! it; here the machines that drove one server (one process: its `run_id`)
//! are taken together. Their window is the earliest INFO before and the
//! latest INFO after (a process's counters only grow, so those are the ones
//! with the fewest and the most calls), and the server's calls over that
//! window are judged once against every machine's replies: a set with a
//! foreign client is told so, a set that ran alone is not.

use crate::engine::master::server::{Info, PhaseEvidence, SlowlogEntry};
use crate::report::build::evidence::server_evidence;
use crate::report::model::kvbench::PhaseSummary;
use crate::report::model::server::{ServerEvidence, ServerSecond, ServerUse};
use crate::report::warnings::Warning;
use crate::report::warnings::checks::MISMATCH_FRACTION;

/// One server process's account over the machines that drove it.
#[derive(Debug, Clone)]
pub struct ServerSum {
    /// INFO's `run_id` (memcached's: its pid and start time).
    pub identity: String,
    /// The target the machines gave (`host:port`), the first machine's.
    pub target: String,
    /// The earliest INFO before the run.
    pub before: Info,
    /// The latest INFO after it.
    pub after: Info,
    /// kvbench's replies of each witnessed command (lower case), every
    /// machine of this server.
    pub replies: Vec<(String, u64)>,
    /// Every reply of those machines.
    pub all_replies: u64,
    /// Machines that drove this server.
    pub machines: usize,
    /// Some machine saw the server restart during the run.
    pub restarted: bool,
    /// `--slowlog`: every machine's entries, each once.
    pub slowlog: Option<Vec<SlowlogEntry>>,
    /// Its CPU and network second by second (`server_use`): one machine's
    /// reading of the process's own counters, which every machine that
    /// drove it read alike, so they are not added; the longest is kept.
    pub per_second: Vec<ServerSecond>,
}

/// The server evidence of one run over the machines added so far.
#[derive(Debug, Clone, Default)]
pub struct EvidenceSum {
    /// One per server process, in the order first seen.
    pub servers: Vec<ServerSum>,
    /// Machines whose run has no server evidence (or no witnessed counts).
    pub without: usize,
    /// `--select-db`, whose keys INFO's keyspace shows.
    pub db: u32,
}

/// A process's counters only grow: the more calls, the later the INFO.
fn progress(info: &Info) -> u64 {
    info.fields
        .keys()
        .filter_map(|k| k.strip_prefix("cmdstat_"))
        .map(|c| info.calls(c) + info.rejected_calls(c))
        .sum()
}

impl EvidenceSum {
    /// One machine's run against `target`; `db` from its
    /// `kvbench.config.select_db`.
    pub fn of(summary: &PhaseSummary, db: u32, target: &str) -> EvidenceSum {
        let mut sum = EvidenceSum {
            db,
            ..EvidenceSum::default()
        };
        let server = summary.server.as_ref();
        let Some((e, commands)) = server.and_then(|e| Some((e, e.delta.commands.as_ref()?))) else {
            sum.without = 1;
            return sum;
        };
        let before = Info::from_sections_json(&e.info_before);
        let after = Info::from_sections_json(&e.info_after);
        let Some(identity) = after.get("run_id").map(str::to_string) else {
            sum.without = 1;
            return sum;
        };
        let slowlog = e.slowlog.as_ref().map(|entries| {
            entries
                .iter()
                .map(|s| SlowlogEntry {
                    id: s.id,
                    timestamp: s.timestamp,
                    duration_us: s.duration_us,
                    command: s.command.clone(),
                })
                .collect()
        });
        sum.servers.push(ServerSum {
            identity: identity.clone(),
            target: target.to_string(),
            before,
            after,
            replies: commands
                .iter()
                .map(|(c, d)| (c.to_string(), d.kvbench_replies))
                .collect(),
            all_replies: summary.totals.iter().map(|(_, t)| t.count).sum(),
            machines: 1,
            restarted: e.delta.server_restarted,
            slowlog,
            per_second: summary
                .server_use
                .iter()
                .find(|u| u.run_id == identity)
                .map(|u| u.per_second.clone())
                .unwrap_or_default(),
        });
        sum
    }

    /// Adds another machine's (or set's) evidence of the same run.
    pub fn add(&mut self, other: &EvidenceSum) {
        self.without += other.without;
        for theirs in &other.servers {
            match self
                .servers
                .iter_mut()
                .find(|s| s.identity == theirs.identity)
            {
                Some(ours) => ours.add(theirs),
                None => self.servers.push(theirs.clone()),
            }
        }
    }

    /// The set's `server` object: only when every machine drove one server
    /// and brought its evidence, so that the counts are the whole load's.
    pub fn server(&self) -> Option<ServerEvidence> {
        let [one] = self.servers.as_slice() else {
            return None;
        };
        (self.without == 0).then(|| one.evidence(self.db))
    }

    /// `server_use`: each server process's seconds, once, whoever read them.
    pub fn server_use(&self) -> Vec<ServerUse> {
        self.servers
            .iter()
            .filter(|s| !s.per_second.is_empty())
            .map(|s| ServerUse {
                run_id: s.identity.clone(),
                target: s.target.clone(),
                per_second: s.per_second.clone(),
            })
            .collect()
    }

    /// The server's calls against the machines' replies, per server and
    /// witnessed command; quiet for a server that restarted (its counts
    /// start again) and when some machine brought no evidence.
    pub fn mismatches(&self, phase: &str) -> Vec<Warning> {
        if self.without > 0 {
            return Vec::new();
        }
        let mut out = Vec::new();
        for s in &self.servers {
            let e = s.phase_evidence();
            if s.restarted || e.restarted() {
                continue;
            }
            for (command, client) in &s.replies {
                let server = e.answered(command);
                if client.abs_diff(server) as f64 > MISMATCH_FRACTION * *client as f64 {
                    out.push(Warning::CountMismatch {
                        phase: phase.to_string(),
                        op: command.to_ascii_uppercase(),
                        client: *client,
                        server,
                    });
                }
            }
        }
        out
    }
}

impl ServerSum {
    fn add(&mut self, other: &ServerSum) {
        if progress(&other.before) < progress(&self.before) {
            self.before = other.before.clone();
        }
        if progress(&other.after) > progress(&self.after) {
            self.after = other.after.clone();
        }
        for (command, n) in &other.replies {
            match self.replies.iter_mut().find(|(c, _)| c == command) {
                Some((_, ours)) => *ours += n,
                None => self.replies.push((command.clone(), *n)),
            }
        }
        self.all_replies += other.all_replies;
        self.machines += other.machines;
        self.restarted |= other.restarted;
        if other.per_second.len() > self.per_second.len() {
            self.per_second = other.per_second.clone();
        }
        self.slowlog = match (self.slowlog.take(), &other.slowlog) {
            (Some(mut ours), Some(theirs)) => {
                for entry in theirs {
                    if !ours.iter().any(|e| e.id == entry.id) {
                        ours.push(entry.clone());
                    }
                }
                ours.sort_by_key(|e| e.id);
                Some(ours)
            }
            (ours, theirs) => ours.or_else(|| theirs.clone()),
        };
    }

    /// INFO before and after, as one phase's evidence.
    pub fn phase_evidence(&self) -> PhaseEvidence {
        PhaseEvidence {
            before: self.before.clone(),
            after: self.after.clone(),
            slowlog: self.slowlog.clone(),
        }
    }

    fn evidence(&self, db: u32) -> ServerEvidence {
        server_evidence(
            &self.phase_evidence(),
            self.replies.clone(),
            db,
            self.all_replies,
        )
    }
}
