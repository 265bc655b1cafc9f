//! `--cluster-mode` warnings: a shard that carries far more than its share of
//! the replies ([`Warning::HotShard`]), found from the per-node counts of the
//! measured runs, with the likely cause read from the flags and the slot
//! split, and what to change for each. What redirects counted as errors mean
//! in a cluster run is [`super::redirects`].

use std::fmt;

use crate::config::Config;
use crate::engine::master::results::{NodeRole, Results};
use crate::report::warnings::Warning;
use crate::workload::keys::KeyPattern;

/// A master that served more than this multiple of its fair share of the
/// replies (every master's replies over the masters there are) is hot.
pub const HOT_SHARD_FACTOR: f64 = 1.5;
/// Fewer replies than this over the measured runs say too little about how
/// the load spreads to warn about it.
pub const HOT_SHARD_MIN_REPLIES: u64 = 1000;
/// A master holding more than this multiple of an even split of the slots
/// makes the split itself the likely cause.
pub const UNEVEN_SLOTS_FACTOR: f64 = 1.25;
/// Slots of a Redis Cluster.
pub const CLUSTER_SLOTS: usize = 16_384;

/// Why one shard is hot, as far as the flags and the slot map tell.
#[derive(Debug, Clone, PartialEq)]
pub enum HotShardCause {
    /// `--key-prefix` holds a hash tag (`{...}`): every key hashes to the
    /// slot of that tag.
    HashTag {
        /// The prefix, as given.
        prefix: String,
    },
    /// The node serves more slots than an even split gives it.
    UnevenSlots {
        /// Slots it served at discovery.
        slots: usize,
    },
    /// The slots are split evenly (or their split is unknown): a few hot
    /// keys, or hot slots, carry the load.
    HotKeys {
        /// The key pattern concentrates requests (Gaussian or Zipfian).
        skewed_pattern: bool,
    },
}

/// One warning per master that served more than [`HOT_SHARD_FACTOR`] times
/// its fair share of the measured runs' replies (over every master found at
/// discovery, or that answered); none without `--cluster-mode`, with fewer
/// than two masters, or with fewer
/// than [`HOT_SHARD_MIN_REPLIES`] replies.
pub fn hot_shards(config: &Config, results: &Results) -> Vec<Warning> {
    let mut out = Vec::new();
    if config.cluster.is_none() {
        return out;
    }
    let Some(all) = results.run_totals() else {
        return out;
    };
    let known = |address: &str| {
        results
            .cluster
            .as_ref()
            .and_then(|c| c.nodes.iter().find(|n| n.address == address))
    };
    // A node the discovery did not list (a replica promoted later, a node
    // found by a MOVED) counts as a master: it served slots.
    let mut masters: Vec<_> = all
        .nodes
        .iter()
        .filter(|n| n.count > 0 && known(&n.address).is_none_or(|k| k.role == NodeRole::Master))
        .collect();
    let replies: u64 = masters.iter().map(|n| n.count).sum();
    // The fair share is over every master there is, not only those that
    // answered: a hash tag that sends everything to one master leaves the
    // others silent, and that one is the hottest shard of all.
    let discovered = results.cluster.as_ref().map_or(0, |c| {
        c.nodes
            .iter()
            .filter(|n| n.role == NodeRole::Master)
            .count()
    });
    let shards = masters.len().max(discovered);
    if shards < 2 || replies < HOT_SHARD_MIN_REPLIES {
        return out;
    }
    masters.sort_by(|a, b| a.address.cmp(&b.address));
    let fair_share = 1.0 / shards as f64;
    for node in &masters {
        let share = node.count as f64 / replies as f64;
        if share <= HOT_SHARD_FACTOR * fair_share {
            continue;
        }
        out.push(Warning::HotShard {
            node: node.address.clone(),
            share,
            fair_share,
            masters: shards,
            cause: cause(config, known(&node.address).map(|k| k.slots), shards),
        });
    }
    out
}

/// The likeliest cause: a hash tag in the prefix pins every key to one slot
/// whatever else holds; then an uneven slot split; else hot keys.
fn cause(config: &Config, slots: Option<usize>, masters: usize) -> HotShardCause {
    let prefix = &config.keys.prefix;
    if has_hash_tag(prefix) {
        return HotShardCause::HashTag {
            prefix: prefix.clone(),
        };
    }
    let even = CLUSTER_SLOTS as f64 / masters as f64;
    if let Some(slots) = slots.filter(|s| *s as f64 > UNEVEN_SLOTS_FACTOR * even) {
        return HotShardCause::UnevenSlots { slots };
    }
    let skewed =
        |p: KeyPattern| matches!(p, KeyPattern::Gaussian { .. } | KeyPattern::Zipfian { .. });
    HotShardCause::HotKeys {
        skewed_pattern: skewed(config.keys.set_pattern) || skewed(config.keys.get_pattern),
    }
}

/// Redis hashes only the part between the first `{` and the first `}` after
/// it, when that part is not empty.
fn has_hash_tag(prefix: &str) -> bool {
    prefix
        .split_once('{')
        .and_then(|(_, rest)| rest.find('}'))
        .is_some_and(|end| end > 0)
}

/// [`Warning::HotShard`]'s text.
pub(super) fn hot_shard(
    f: &mut fmt::Formatter<'_>,
    node: &str,
    (share, fair_share, masters): (f64, f64, usize),
    cause: &HotShardCause,
) -> fmt::Result {
    write!(
        f,
        "the node {node} served {:.1} % of the replies, {:.1} times its fair share ({:.1} % for each of {masters} masters): the cluster's throughput is bounded by that one shard, and the total understates what an even load would reach. ",
        100.0 * share,
        share / fair_share,
        100.0 * fair_share
    )?;
    match cause {
        HotShardCause::HashTag { prefix } => write!(
            f,
            "The key prefix \"{prefix}\" holds a hash tag, so every key hashes to one slot; drop the braces from --key-prefix to spread the keys over the slots (keep a tag only where keys must share a slot)."
        ),
        HotShardCause::UnevenSlots { slots } => write!(
            f,
            "It serves {slots} of the {CLUSTER_SLOTS} slots ({:.1} %): the slots are split unevenly; rebalance them (redis-cli --cluster rebalance HOST:PORT) before comparing shards.",
            100.0 * *slots as f64 / CLUSTER_SLOTS as f64
        ),
        HotShardCause::HotKeys {
            skewed_pattern: true,
        } => write!(
            f,
            "The slots are split evenly, so hot keys carry the load: the Gaussian or Zipfian --key-pattern sends most requests to a few keys, and so to their slots; that is the workload's truth to size for, or use --key-pattern R:R for an even spread."
        ),
        HotShardCause::HotKeys {
            skewed_pattern: false,
        } => write!(
            f,
            "The slots are split evenly and the key pattern is even, so a hot slot or hot key is likely: a hash tag in a --command key, or another client's traffic on that node (check its INFO commandstats); spread such keys over several tags."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::{HOT_SHARD_FACTOR, HotShardCause, has_hash_tag, hot_shards};
    use crate::engine::master::results::NodeRole;
    use crate::report::cluster_fixture::{
        EVEN_SLOTS, NODES, cluster_config, cluster_results, standalone_config,
    };
    use crate::report::warnings::Warning;

    const ARGS: [&str; 2] = ["--test-time", "10"];

    #[test]
    fn a_node_with_twice_its_share_is_hot() {
        let w = hot_shards(
            &cluster_config(&ARGS),
            &cluster_results([4000, 1000, 1000], EVEN_SLOTS),
        );
        assert_eq!(w.len(), 1, "{w:?}");
        let Warning::HotShard {
            node,
            share,
            fair_share,
            masters,
            cause,
        } = &w[0]
        else {
            panic!("{w:?}");
        };
        assert_eq!(node, NODES[0]);
        assert!((share - 4000.0 / 6000.0).abs() < 1e-9, "{share}");
        assert!((fair_share - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(*masters, 3);
        assert_eq!(
            *cause,
            HotShardCause::HotKeys {
                skewed_pattern: false
            }
        );
        assert_eq!(w[0].kind(), "hot_shard");
        let text = w[0].to_string();
        assert!(text.contains("66.7 %"), "{text}");
        assert!(text.contains("2.0 times"), "{text}");
        assert!(text.contains(NODES[0]), "{text}");
    }

    #[test]
    fn a_node_with_a_tenth_more_than_its_share_is_not_hot() {
        let w = hot_shards(
            &cluster_config(&ARGS),
            &cluster_results([1100, 950, 950], EVEN_SLOTS),
        );
        assert!(w.is_empty(), "{w:?}");
        // Just above the factor, it is.
        let w = hot_shards(
            &cluster_config(&ARGS),
            &cluster_results([1600, 700, 700], EVEN_SLOTS),
        );
        const { assert!(1600.0 / 3000.0 > HOT_SHARD_FACTOR / 3.0) };
        assert_eq!(w.len(), 1, "{w:?}");
    }

    #[test]
    fn too_few_replies_or_one_server_raise_nothing() {
        let few = cluster_results([400, 100, 100], EVEN_SLOTS);
        assert!(hot_shards(&cluster_config(&ARGS), &few).is_empty());
        let many = cluster_results([4000, 1000, 1000], EVEN_SLOTS);
        assert!(hot_shards(&standalone_config(&ARGS), &many).is_empty());
    }

    #[test]
    fn one_master_carrying_everything_is_hot_though_the_others_never_answered() {
        // A hash tag in the prefix: one master serves all, the two others nothing.
        let tagged = cluster_config(&["--test-time", "10", "--key-prefix", "user:{1}:"]);
        let w = hot_shards(&tagged, &cluster_results([3000, 0, 0], EVEN_SLOTS));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(matches!(
            &w[0],
            Warning::HotShard { node, masters: 3, cause: HotShardCause::HashTag { .. }, .. }
                if node == NODES[0]
        ));
    }

    #[test]
    fn replicas_are_not_counted_as_masters() {
        // With 7000 a replica, 7002 and 7001 are the only masters: 4000 of
        // 5000 is 1.6 times a half, above the factor; 7000 is never named.
        let mut results = cluster_results([4000, 1000, 1000], EVEN_SLOTS);
        let cluster = results.cluster.as_mut().unwrap();
        cluster.nodes[1].role = NodeRole::Replica;
        let w = hot_shards(&cluster_config(&ARGS), &results);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(matches!(&w[0], Warning::HotShard { node, masters: 2, .. } if node == NODES[0]));
        // Two masters at 1000 each are even.
        let mut even = cluster_results([1000, 5000, 1000], EVEN_SLOTS);
        even.cluster.as_mut().unwrap().nodes[1].role = NodeRole::Replica;
        assert!(hot_shards(&cluster_config(&ARGS), &even).is_empty());
    }

    #[test]
    fn the_cause_follows_the_flags_and_the_slot_split() {
        let hot = [4000, 1000, 1000];
        let tagged = cluster_config(&["--test-time", "10", "--key-prefix", "user:{1}:"]);
        let w = hot_shards(&tagged, &cluster_results(hot, EVEN_SLOTS));
        assert!(matches!(
            &w[0],
            Warning::HotShard {
                cause: HotShardCause::HashTag { .. },
                ..
            }
        ));
        assert!(w[0].to_string().contains("--key-prefix"), "{}", w[0]);
        let uneven = cluster_results(hot, [10_000, 3192, 3192]);
        let w = hot_shards(&cluster_config(&ARGS), &uneven);
        assert!(w[0].to_string().contains("rebalance"), "{}", w[0]);
        assert!(matches!(
            &w[0],
            Warning::HotShard {
                cause: HotShardCause::UnevenSlots { slots: 10_000 },
                ..
            }
        ));
        let zipf = cluster_config(&["--test-time", "10", "--key-pattern", "Z:Z"]);
        let w = hot_shards(&zipf, &cluster_results(hot, EVEN_SLOTS));
        assert!(
            matches!(
                &w[0],
                Warning::HotShard {
                    cause: HotShardCause::HotKeys {
                        skewed_pattern: true
                    },
                    ..
                }
            ),
            "{w:?}"
        );
    }

    #[test]
    fn a_hash_tag_needs_braces_around_something() {
        assert!(has_hash_tag("user:{1}:"));
        assert!(has_hash_tag("{a}"));
        assert!(!has_hash_tag("user:{}:"));
        assert!(!has_hash_tag("memtier-"));
        assert!(!has_hash_tag("a}{b"));
    }
}
