//! How many client machines and server shards stand behind a report's
//! figures — what the whitepaper's tables of 1/2/4/8 machines against
//! 2/4/8/16 shards compare, and what `kvbench compare` and the HTML scaling
//! chart read.

use crate::report::model::kvbench::Kvbench;

impl Kvbench {
    /// Client machines: a merged file's `shards`, else 1.
    pub fn machines(&self) -> u64 {
        self.shards.as_ref().map_or(1, |s| s.len().max(1) as u64)
    }

    /// Server shards: the masters of a `--cluster-mode` run, the standalone
    /// servers a merged set drove, else 1.
    pub fn server_shards(&self) -> u64 {
        let run = self.runs.first();
        let masters = run.and_then(|r| r.cluster.as_ref()).map(|c| {
            let masters = c
                .nodes
                .iter()
                .filter(|n| n.role.as_deref() == Some("master"));
            masters.count() as u64
        });
        let first_round = self.rounds.as_ref().and_then(|r| r.first());
        let standalone = first_round.map(|r| r.servers.len() as u64);
        masters.or(standalone).unwrap_or(1).max(1)
    }
}
