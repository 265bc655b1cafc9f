//! The merged set's judgement: its verdict (every machine's reasons, each
//! naming its file, and the shards a partial set lacks) and its warnings
//! (every machine's, and the merge's own: the servers' counts judged
//! against the set's replies, a start skew, the shards missing).

use crate::config::WarningKind;
use crate::report::build;
use crate::report::build::rows::SectionShape;
use crate::report::model::kvbench::{Verdict, VerdictReason, Warning};
use crate::report::warnings::watched::{Replies, shard_mismatches};
use crate::tools::merge::check::{SetInfo, join};
use crate::tools::merge::document::{START_SKEW_WARN_MS, Skew};
use crate::tools::merge::fold::Machine;
use crate::tools::merge::run::RunSum;

/// A shard's own count check, which the merge makes for the whole set.
const COUNT_MISMATCH: &str = WarningKind::CountMismatch.as_str();

/// The merged set's verdict: every machine's reasons, each naming its file
/// (a machine whose result is not valid makes the sum not valid), and the
/// shards a partial merge lacks, whose load the sum does not hold.
pub fn verdict(machines: &[Machine], set: &SetInfo) -> Verdict {
    let mut reasons = Vec::new();
    if set.partial() {
        reasons.push(VerdictReason {
            kind: "shards_missing".into(),
            message: shards_missing(set),
            phase: None,
        });
    }
    for f in machines {
        for r in f.verdict.iter().flat_map(|v| &v.reasons) {
            reasons.push(VerdictReason {
                kind: r.kind.clone(),
                message: r.message.clone(),
                phase: Some(match &r.phase {
                    Some(phase) => format!("{} {phase}", f.path),
                    None => f.path.clone(),
                }),
            });
        }
    }
    Verdict {
        valid: reasons.is_empty(),
        reasons,
        sections: None,
    }
}

/// What a partial set lacks, as its warning and its verdict say it.
fn shards_missing(set: &SetInfo) -> String {
    format!(
        "shard(s) {} of {} missing (--allow-partial): the totals and rates are those of the machines merged, not of the whole load",
        join(&set.missing),
        set.count.unwrap_or(0)
    )
}

/// The set's replies of each command (`GET#2` counted under `get`, as a
/// server counts it), for the watched shards' judgement.
fn replies(r: &RunSum, layout: &SectionShape) -> Vec<Replies> {
    let mut out: Vec<Replies> = Vec::new();
    for ((_, command), row) in layout.rows.iter().zip(&r.rows) {
        let name = command.split('#').next().unwrap_or(command).to_string();
        let count = row.totals.count + row.totals.retries.unwrap_or(0);
        match out.iter_mut().find(|x| x.name == name) {
            Some(x) => x.count += count,
            None => out.push(Replies {
                command: name.to_ascii_lowercase(),
                name,
                count,
            }),
        }
    }
    out
}

/// Every machine's warnings, each naming its file, and the merge's own:
/// in a sharded set, the servers' counts judged against the set's replies,
/// in place of the judgement of each shard (older shards made one, against
/// a server that also counted the other shards).
pub(super) fn warnings(
    machines: &[Machine],
    runs: &[RunSum],
    layout: &SectionShape,
    set: &SetInfo,
    skew: Option<&Skew>,
) -> Vec<Warning> {
    let mut out = Vec::new();
    let judged = !set.ad_hoc;
    if judged {
        for r in runs {
            let mut found = r.evidence.mismatches(&r.phase);
            found.extend(shard_mismatches(&r.phase, &r.watched, &replies(r, layout)));
            out.extend(found.iter().map(|w| build::kvbench::warning(w, &[])));
        }
    }
    if set.partial() {
        out.push(Warning {
            kind: "shards_missing".into(),
            message: shards_missing(set),
            silenced: false,
        });
    }
    if let Some(s) = skew.filter(|s| s.spread_ms > START_SKEW_WARN_MS) {
        out.push(Warning {
            kind: "start_skew".into(),
            message: format!(
                "the machines started RUN #1 {:.0} ms apart{}: during that time not every machine was sending, so the merged rate is below the sum of steady rates; plan a common start (--start-at)",
                s.spread_ms,
                if s.corrected { " (clock offsets corrected)" } else { " (clock offsets not measured)" }
            ),
            silenced: false,
        });
    }
    for f in machines {
        for w in &f.warnings {
            if judged && w.kind == COUNT_MISMATCH {
                continue;
            }
            out.push(Warning {
                kind: w.kind.clone(),
                message: format!("{}: {}", f.path, w.message),
                silenced: w.silenced,
            });
        }
    }
    out
}
