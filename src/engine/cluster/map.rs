//! The slot map: which master serves each of the 16 384 slots, read from
//! `CLUSTER SLOTS` (every Redis since 3.0 answers it; `CLUSTER SHARDS` is 7.0+).
//!
//! Each entry of the reply is `[start, end, [host, port, id, …], replica…]`.
//! An empty host means "the address you reached me on" (Redis announces it so
//! when `cluster-announce-ip` is unset behind NAT); it is replaced by the seed's
//! host. Slots no entry covers are unassigned: a request for one has nowhere to
//! go, which kvbench must say at start rather than hang (as memtier does).

use crate::protocol::value::Value;

use super::slot::SLOTS;

/// A master node, as `CLUSTER SLOTS` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Host (or IP) to connect to.
    pub host: String,
    /// Port.
    pub port: u16,
    /// The node id, when the server reports one.
    pub id: Option<String>,
}

impl Node {
    /// `host:port`, the form MOVED and ASK name nodes in (IPv6 in brackets).
    pub fn address(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// Slots to node indexes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotMap {
    /// The masters, in the order first seen.
    pub nodes: Vec<Node>,
    /// For each slot, the index of its master in `nodes`.
    owner: Vec<Option<u16>>,
}

/// Why a `CLUSTER SLOTS` reply could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    /// Not an array of slot ranges, or a range of the wrong shape.
    #[error("CLUSTER SLOTS reply has an unexpected shape: {0}")]
    Shape(&'static str),
    /// Some slots have no master.
    #[error(
        "{} {} no master ({unassigned} of 16384 slots); assign every slot (CLUSTER ADDSLOTSRANGE, or redis-cli --cluster fix) before benchmarking",
        describe_ranges(ranges),
        if *unassigned == 1 { "has" } else { "have" }
    )]
    Unassigned {
        /// How many.
        unassigned: usize,
        /// The lowest such slot.
        first: u16,
        /// Every run of unassigned slots, `(start, end)` inclusive, lowest first.
        ranges: Vec<(u16, u16)>,
    },
    /// Two ranges give the same slots to different masters: the nodes'
    /// views of the cluster disagree, and no routing of those keys is right.
    #[error(
        "{} {} claimed by two masters: {} (its range {}) and {} (its range {}); the reply is inconsistent: check the cluster (redis-cli --cluster check HOST:PORT) and fix it (redis-cli --cluster fix HOST:PORT) before benchmarking",
        describe_ranges(&[*slots]),
        if slots.0 == slots.1 { "is" } else { "are" },
        nodes[0],
        describe_range(ranges[0]),
        nodes[1],
        describe_range(ranges[1])
    )]
    Overlap {
        /// The slots both claim, `(start, end)` inclusive (the first such run).
        slots: (u16, u16),
        /// The two ranges as the reply gave them, in its order.
        ranges: [(u16, u16); 2],
        /// Their masters, `host:port`.
        nodes: [String; 2],
    },
}

/// `5-9`, or `7` for a range of one slot.
fn describe_range((start, end): (u16, u16)) -> String {
    if start == end {
        start.to_string()
    } else {
        format!("{start}-{end}")
    }
}

/// The most ranges an [`MapError::Unassigned`] message lists by number.
const LISTED_RANGES: usize = 8;

/// `slots 0-5460 and 10923-16383`, `slot 7`, or the first few and a count.
pub fn describe_ranges(ranges: &[(u16, u16)]) -> String {
    let listed: Vec<String> = ranges
        .iter()
        .take(LISTED_RANGES)
        .map(|&range| describe_range(range))
        .collect();
    let noun = if ranges.len() == 1 && ranges[0].0 == ranges[0].1 {
        "slot"
    } else {
        "slots"
    };
    let text = match listed.as_slice() {
        [] => String::new(),
        [only] => only.clone(),
        [init @ .., last] if ranges.len() <= LISTED_RANGES => {
            format!("{} and {last}", init.join(", "))
        }
        all => format!(
            "{} and {} more ranges",
            all.join(", "),
            ranges.len() - LISTED_RANGES
        ),
    };
    format!("{noun} {text}")
}

/// The runs of `None` in `owner`, as inclusive slot ranges.
fn holes(owner: &[Option<u16>]) -> Vec<(u16, u16)> {
    let mut ranges: Vec<(u16, u16)> = Vec::new();
    for (slot, _) in owner.iter().enumerate().filter(|(_, o)| o.is_none()) {
        let slot = slot as u16;
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == slot => *end = slot,
            _ => ranges.push((slot, slot)),
        }
    }
    ranges
}

impl SlotMap {
    /// Builds the map from a `CLUSTER SLOTS` reply; `seed_host` stands in for
    /// an empty announced host. Every slot must have a master.
    pub fn from_cluster_slots(reply: &Value, seed_host: &str) -> Result<SlotMap, MapError> {
        let ranges = reply.array().ok_or(MapError::Shape("not an array"))?;
        let mut owned = Vec::with_capacity(ranges.len());
        for range in ranges {
            let items = range
                .array()
                .ok_or(MapError::Shape("a range is not an array"))?;
            let [start, end, master, ..] = items else {
                return Err(MapError::Shape("a range has fewer than 3 elements"));
            };
            owned.push((
                slot_number(start)?,
                slot_number(end)?,
                node_of(master, seed_host)?,
            ));
        }
        SlotMap::from_ranges(owned)
    }

    /// Builds the map from `(start, end, master)` ranges, inclusive, in any
    /// order. Every slot must have exactly one master: a slot two ranges give
    /// to different masters is refused, naming both.
    pub fn from_ranges(
        ranges: impl IntoIterator<Item = (u16, u16, Node)>,
    ) -> Result<SlotMap, MapError> {
        let mut map = SlotMap {
            nodes: Vec::new(),
            owner: vec![None; usize::from(SLOTS)],
        };
        // Every range kept so far, to name the one an overlap collides with.
        let mut claimed: Vec<(u16, u16, usize)> = Vec::new();
        for (start, end, node) in ranges {
            if start > end || end >= SLOTS {
                return Err(MapError::Shape("a range ends before it starts"));
            }
            let index = match map.nodes.iter().position(|n| n == &node) {
                Some(i) => i,
                None => {
                    map.nodes.push(node);
                    map.nodes.len() - 1
                }
            };
            for slot in start..=end {
                let owner = &mut map.owner[usize::from(slot)];
                match *owner {
                    Some(other) if usize::from(other) != index => {
                        return Err(map.overlap(&claimed, slot, (start, end), index));
                    }
                    _ => *owner = Some(index as u16),
                }
            }
            claimed.push((start, end, index));
        }
        let ranges = holes(&map.owner);
        if let Some(&(first, _)) = ranges.first() {
            return Err(MapError::Unassigned {
                unassigned: ranges
                    .iter()
                    .map(|&(start, end)| usize::from(end - start) + 1)
                    .sum(),
                first,
                ranges,
            });
        }
        Ok(map)
    }

    /// The error for range `range` of master `index` meeting, at `slot`, a
    /// slot an earlier range of `claimed` gave another master.
    fn overlap(
        &self,
        claimed: &[(u16, u16, usize)],
        slot: u16,
        range: (u16, u16),
        index: usize,
    ) -> MapError {
        let earlier = claimed
            .iter()
            .find(|&&(s, e, i)| i != index && (s..=e).contains(&slot))
            .copied()
            .unwrap_or((slot, slot, index));
        let address = |i: usize| self.nodes.get(i).map_or_else(String::new, Node::address);
        MapError::Overlap {
            slots: (slot, range.1.min(earlier.1)),
            ranges: [(earlier.0, earlier.1), range],
            nodes: [address(earlier.2), address(index)],
        }
    }

    /// The index (into `nodes`) of the master serving `slot`.
    pub fn owner(&self, slot: u16) -> usize {
        // Every slot is assigned: `from_cluster_slots` refuses a map with holes.
        self.owner[usize::from(slot % SLOTS)].map_or(0, usize::from)
    }

    /// After a MOVED: `slot` is now served by `node`; returns its index,
    /// adding the node if it is new.
    pub fn moved(&mut self, slot: u16, node: Node) -> usize {
        let index = match self
            .nodes
            .iter()
            .position(|n| n == &node || n.address() == node.address())
        {
            Some(i) => i,
            None => {
                self.nodes.push(node);
                self.nodes.len() - 1
            }
        };
        self.owner[usize::from(slot % SLOTS)] = Some(index as u16);
        index
    }

    /// How many slots each node serves, by node index.
    pub fn slots_per_node(&self) -> Vec<usize> {
        let mut counts = vec![0; self.nodes.len()];
        for index in self.owner.iter().flatten() {
            counts[usize::from(*index)] += 1;
        }
        counts
    }
}

/// A slot number, in 0..16384.
pub(crate) fn slot_number(v: &Value) -> Result<u16, MapError> {
    v.integer()
        .and_then(|n| u16::try_from(n).ok())
        .filter(|&n| n < SLOTS)
        .ok_or(MapError::Shape("a slot number is out of range"))
}

/// `[host, port, id, …]`.
pub(crate) fn node_of(v: &Value, seed_host: &str) -> Result<Node, MapError> {
    let items = v.array().ok_or(MapError::Shape("a node is not an array"))?;
    let [host, port, rest @ ..] = items else {
        return Err(MapError::Shape("a node has no host and port"));
    };
    let host = host
        .text()
        .ok_or(MapError::Shape("a node's host is not text"))?;
    let port = port
        .integer()
        .and_then(|p| u16::try_from(p).ok())
        .ok_or(MapError::Shape("a node's port is out of range"))?;
    Ok(Node {
        host: if host.is_empty() || host == "?" {
            seed_host.to_string()
        } else {
            host
        },
        port,
        id: rest.first().and_then(Value::text),
    })
}

#[cfg(test)]
mod tests;
