//! What one node believes about the others: a line of `CLUSTER NODES`
//! read into a [`NodeView`], so that two nodes' views can be compared.

/// One line of `CLUSTER NODES`: what one node believes about another.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct NodeView {
    pub id: String,
    pub port: u16,
    /// The master's id, for a replica.
    pub master: Option<String>,
    /// Served slot ranges, inclusive (migrating/importing marks left out).
    pub slots: Vec<(u16, u16)>,
    /// `myself` in the asker's own line.
    pub myself: bool,
    /// A flag that means the view is not settled: `handshake`, `noaddr`,
    /// `fail` or `fail?`.
    pub unsettled: bool,
}

impl NodeView {
    /// Slots it serves.
    pub fn slot_count(&self) -> usize {
        self.slots.iter().map(|(a, b)| usize::from(b - a) + 1).sum()
    }
}

/// `<id> <ip:port@cport[,hostname]> <flags> <master> <ping> <pong> <epoch>
/// <link> <slot>...`, a line of `CLUSTER NODES`.
pub fn parse_nodes_line(line: &str) -> NodeView {
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert!(fields.len() >= 8, "a CLUSTER NODES line with {line:?}");
    let address = fields[1].split(['@', ',']).next().unwrap();
    let port = address
        .rsplit_once(':')
        .map_or(0, |(_, p)| p.parse().unwrap_or(0));
    let flags: Vec<&str> = fields[2].split(',').collect();
    let slots = fields[8..]
        .iter()
        .filter(|s| !s.starts_with('['))
        .map(|s| match s.split_once('-') {
            Some((a, b)) => (a.parse().unwrap(), b.parse().unwrap()),
            None => (s.parse().unwrap(), s.parse().unwrap()),
        })
        .collect();
    NodeView {
        id: fields[0].to_string(),
        port,
        master: (fields[3] != "-").then(|| fields[3].to_string()),
        slots,
        myself: flags.contains(&"myself"),
        unsettled: flags
            .iter()
            .any(|f| ["handshake", "noaddr", "fail", "fail?"].contains(f)),
    }
}
