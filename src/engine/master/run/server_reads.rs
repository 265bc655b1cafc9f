//! The server's account around each phase, as the master reads it: what
//! the server is (once, before the first phase), INFO and `LATENCY
//! HISTOGRAM` before and after each phase (every node's in
//! `--cluster-mode`), and the slow log after a measured run.

use super::{Master, cluster};
use crate::config::Stop;
use crate::engine::master::results::{Phase, PhaseResult, ServerContext};
use crate::engine::master::server::info::Software;
use crate::engine::master::server::latency::{
    self, LatencySnapshot, LatencyUnavailable, PhaseLatency,
};
use crate::engine::master::server::{Info, PhaseEvidence};
use crate::engine::master::sink::Sink;

impl Master {
    /// What the server is, read once before the first phase.
    pub(super) fn server_context(&mut self) -> Option<ServerContext> {
        if !self.target_info {
            return None;
        }
        let control = self.control.get()?;
        let info = control.info()?;
        Some(ServerContext {
            appendfsync: control.config_get("appendfsync"),
            save: control.config_get("save"),
            info,
        })
    }

    /// INFO from the control connection, reopening it once if the server went
    /// away (a restart during the phase breaks it like any other connection).
    pub(super) fn info(&mut self) -> Option<Info> {
        if !self.target_info {
            return None;
        }
        self.control.info()
    }

    /// `LATENCY HISTOGRAM` of the one server, read after `info` (whose
    /// `run_id` tells a restart); `None` for memcached, without INFO, and in
    /// `--cluster-mode`, where every node's is read (`cluster::before_phase`).
    pub(super) fn latency(
        &mut self,
        info: Option<&Info>,
    ) -> Option<Result<LatencySnapshot, LatencyUnavailable>> {
        let info = info?;
        if info.software == Software::Memcached || self.nodes.is_some() {
            return None;
        }
        let control = self.control.get()?;
        Some(latency::read(control, info.get("run_id")))
    }

    /// What the server says before `phase`: INFO and `LATENCY HISTOGRAM`
    /// (every node's, in `--cluster-mode`), after resetting the slow log for a measured run
    /// with `--slowlog`.
    pub(super) fn before(&mut self, phase: Phase) -> Evidence {
        let slowlog = self.config.output.slowlog && matches!(phase, Phase::Run(_));
        // Only this phase's failures explain this phase's missing evidence.
        let _ = self.control.take_lost();
        if let Some(nodes) = &mut self.nodes {
            nodes.clear_lost();
        }
        let nodes = self.nodes.as_mut().map(cluster::before_phase);
        self.watch.before_phase();
        let info = if nodes.is_some() { None } else { self.info() };
        if slowlog && let Some(c) = self.control.get() {
            c.slowlog_reset();
        }
        let latency = self.latency(info.as_ref());
        Evidence {
            info,
            nodes,
            slowlog,
            latency,
        }
    }

    /// One phase, with INFO read after it (and the slow log, for measured
    /// runs with `--slowlog`); `before` is what [`Self::before`] read.
    pub(super) fn phase(
        &mut self,
        phase: Phase,
        stop: Stop,
        before: Evidence,
        live: &mut dyn Sink,
    ) -> PhaseResult {
        let Evidence {
            info: before,
            nodes: nodes_before,
            slowlog,
            latency: latency_before,
        } = before;
        let mut result = self.run_phase(phase, stop, live);
        result.watched = self.watch.after_phase();
        // The slow log first, so that the INFO below is not in it.
        let slowlog = match self.control.get() {
            Some(c) if slowlog => c.slowlog_get(SLOWLOG_ENTRIES),
            _ => None,
        };
        if let (Some(links), Some(before)) = (self.nodes.as_mut(), nodes_before) {
            let found = cluster::phase_evidence(links, before, slowlog);
            result.nodes = found.nodes;
            result.server = found.sum;
            result.evidence_lost = found.lost;
            result.server_latency = Some(found.latency);
            return result;
        }
        let after = self.info();
        if let Some(latency_before) = latency_before {
            let latency_after = self.latency(after.as_ref());
            result.server_latency =
                latency_after.map(|after| PhaseLatency::between(latency_before, after));
        }
        result.server = before.zip(after).map(|(before, after)| PhaseEvidence {
            before,
            after,
            slowlog,
        });
        if result.server.is_none() {
            result.evidence_lost = self
                .control
                .take_lost()
                .or_else(|| self.info_unanswered.clone());
        }
        result
    }
}

/// What the server said before a phase.
pub(super) struct Evidence {
    /// INFO of the one server.
    info: Option<Info>,
    /// `--cluster-mode`: INFO and `LATENCY HISTOGRAM` of every node.
    nodes: Option<cluster::NodesBefore>,
    /// Whether the slow log was reset for this phase.
    slowlog: bool,
    /// `LATENCY HISTOGRAM`; `None` for a target without INFO.
    latency: Option<Result<LatencySnapshot, LatencyUnavailable>>,
}

/// How many slow-log entries are read after a run.
const SLOWLOG_ENTRIES: usize = 128;
