//! What MOVED and ASK replies counted as errors mean in a `--cluster-mode`
//! run, where "add --cluster-mode" would be no advice: requests still
//! redirected after `--max-redirects` redirects, because the redirects loop
//! between nodes that disagree about the slot map, or because the node an
//! `-ASK` named answered `ASKING` with an error. Read from every node's
//! counts over the measured runs.

use std::fmt;

use crate::config::Config;
use crate::engine::stats::Stats;

/// The most nodes a [`RedirectLoop`] names.
pub const NAMED_NODES: usize = 4;

/// `--cluster-mode`: requests still redirected after `--max-redirects`
/// redirects, and what the per-node counts say about why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedirectLoop {
    /// `--max-redirects`.
    pub max_redirects: u32,
    /// The nodes whose `-MOVED` or `-ASK` were followed, most first (at
    /// most [`NAMED_NODES`]).
    pub nodes: Vec<String>,
    /// Nodes that answered `ASKING` with an error, with how often.
    pub asking_refused: Vec<(String, u64)>,
}

/// What a cluster run's redirects say, from every node's counts over the
/// measured runs; `None` without `--cluster-mode`.
pub fn redirect_loop(config: &Config, all: &Stats) -> Option<RedirectLoop> {
    let options = config.cluster?;
    let mut redirecting: Vec<(&str, u64)> = all
        .nodes
        .iter()
        .map(|n| (n.address.as_str(), n.moved + n.ask))
        .filter(|(_, n)| *n > 0)
        .collect();
    redirecting.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    Some(RedirectLoop {
        max_redirects: options.max_redirects,
        nodes: redirecting
            .iter()
            .take(NAMED_NODES)
            .map(|(address, _)| address.to_string())
            .collect(),
        asking_refused: all
            .nodes
            .iter()
            .filter(|n| n.asking_refused > 0)
            .map(|n| (n.address.clone(), n.asking_refused))
            .collect(),
    })
}

/// Why MOVED or ASK replies were counted as errors under `--cluster-mode`
/// (where "add --cluster-mode" would be no advice).
pub(super) fn redirect_loop_cause(f: &mut fmt::Formatter<'_>, l: &RedirectLoop) -> fmt::Result {
    write!(
        f,
        "Under --cluster-mode these are requests still sent elsewhere after --max-redirects {} redirects. ",
        l.max_redirects
    )?;
    if !l.asking_refused.is_empty() {
        let refusals: Vec<String> = l
            .asking_refused
            .iter()
            .map(|(node, n)| format!("{node} ({n} times)"))
            .collect();
        return write!(
            f,
            "The node told by -ASK to serve them answered ASKING with an error: {}; so each request sent there after -ASK was refused as if unasked and sent back again. Check that node (CLUSTER INFO, CLUSTER NODES: is it a cluster node importing those slots?), and finish or undo the slot migration (redis-cli --cluster fix HOST:PORT).",
            refusals.join(", ")
        );
    }
    let nodes = match l.nodes.as_slice() {
        [] => "the nodes".to_string(),
        [one] => format!("{one} and the node it names"),
        many => many.join(", "),
    };
    write!(
        f,
        "The redirects loop between {nodes}: each names another as the owner of the slot, so the nodes disagree about the slot map; check them (redis-cli --cluster check HOST:PORT) and fix it (redis-cli --cluster fix HOST:PORT), or raise --max-redirects if a resharding was only slow."
    )
}

#[cfg(test)]
mod tests {
    use super::{RedirectLoop, redirect_loop, redirect_loop_cause};
    use crate::engine::stats::{NodeStats, Stats};
    use crate::report::cluster_fixture::{cluster_config, standalone_config};

    const ARGS: [&str; 2] = ["--test-time", "10"];

    #[test]
    fn redirects_past_the_budget_name_the_loop_or_the_refused_asking() {
        let mut all = Stats::new(2).unwrap();
        for (address, moved, asking_refused) in [("a:1", 5, 0), ("b:2", 9, 0), ("c:3", 0, 0)] {
            let mut node = NodeStats::new(address.to_string()).unwrap();
            node.moved = moved;
            node.asking_refused = asking_refused;
            all.nodes.push(node);
        }
        assert_eq!(redirect_loop(&standalone_config(&ARGS), &all), None);
        let config = cluster_config(&ARGS);
        let l = redirect_loop(&config, &all).unwrap();
        assert_eq!(
            l.nodes,
            ["b:2", "a:1"],
            "most redirects first, silent nodes left out"
        );
        assert!(l.asking_refused.is_empty());
        let text = shown(&l);
        assert!(text.contains("loop between b:2, a:1"), "{text}");
        assert!(!text.contains("add --cluster-mode"), "{text}");
        all.nodes[2].asking_refused = 7;
        let text = shown(&redirect_loop(&config, &all).unwrap());
        assert!(
            text.contains("answered ASKING with an error: c:3 (7 times)"),
            "{text}"
        );
    }

    fn shown(l: &RedirectLoop) -> String {
        struct Shown<'a>(&'a RedirectLoop);
        impl std::fmt::Display for Shown<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                redirect_loop_cause(f, self.0)
            }
        }
        Shown(l).to_string()
    }
}
