//! Why a `CLUSTER SLOTS` reply could not be used as a slot map, and the words
//! its messages name slot ranges with; the slot map itself is
//! `engine::cluster::map`, which raises these.

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
