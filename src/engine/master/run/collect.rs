//! The master's side of one phase: every worker told to start at one
//! instant, their per-second reports merged into the phase's totals (with
//! `+=`) and its per-second series, until each has sent its last one; and
//! this machine's CPU and network, and the server's, read around and during it.

use std::time::{Duration, Instant, SystemTime};

use crate::config::Stop;
use crate::config::precision::MIN_AUTO_SECS;
use crate::engine::master::host::HostPhase;
use crate::engine::master::results::{Phase, PhaseResult, rate};
use crate::engine::master::run::Master;
use crate::engine::master::server::sample::ServerSampler;
use crate::engine::master::sink::Sink;
use crate::engine::master::warmup::SteadyWatch;
use crate::engine::stats::gaps::LoadGaps;
use crate::engine::stats::precision::Batches;
use crate::engine::stats::series::SeriesBuilder;
use crate::engine::worker::{Command, Report};

/// A second's p99 for the warm-up's trend: the configured 99th percentile,
/// or the nearest one configured when `--print-percentiles` lacks it.
fn p99_us(percentiles: &[(f64, u64)]) -> u64 {
    percentiles
        .iter()
        .min_by(|a, b| (a.0 - 99.0).abs().total_cmp(&(b.0 - 99.0).abs()))
        .map_or(0, |(_, us)| *us)
}

impl Master {
    /// The master's side of one phase: start every worker, merge their
    /// per-second reports, and return when each has sent its last one.
    pub(super) fn run_phase(
        &mut self,
        phase: Phase,
        stop: Stop,
        live: &mut dyn Sink,
    ) -> PhaseResult {
        let (crew, config, empty, meter) = (&self.crew, &self.config, &self.empty, &self.meter);
        let budget = &mut self.budget;
        let index = phase.seed_index();
        if let (Stop::Time(d), false) = (stop, phase == Phase::Prefill) {
            crate::engine::master::ramp::print_staircase(&phase.to_string(), config, d.as_secs());
        }
        let started_wall = SystemTime::now();
        let started_at = Instant::now();
        // Cleared while no worker is in a phase: a stale request would end
        // this one at once.
        crew.early_end.clear();
        for tx in &crew.commands {
            let _ = tx.send(Command::Phase {
                index,
                stop,
                started_at,
                prefill: phase == Phase::Prefill,
            });
        }
        live.start_phase(phase, stop);
        // The server is read on the control connection, on this thread; in
        // `--cluster-mode` each node on its own.
        // A target that left INFO unanswered is not sampled either.
        let mut control = (self.nodes.is_none() && self.target_info).then_some(&mut self.control);
        let mut server = ServerSampler::start(control.as_deref_mut());
        let mut per_node = self
            .nodes
            .as_mut()
            .map_or_else(Vec::new, |n| n.start_samplers());
        self.watch.start_seconds();
        let host_start = meter.read();
        let mut host_last = host_start;
        let mut host_series = Vec::new();
        let mut series = SeriesBuilder::new(config.threads, &config.output.percentiles);
        let mut total = empty.clone();
        let mut finished = 0;
        let mut ended_at = started_at;
        let mut open = vec![config.clients; config.threads];
        let mut thread_cpu = vec![Duration::ZERO; config.threads];
        let mut unsent = 0;
        // The run ends when the last thread stopped sending; what follows is the drain.
        let mut sent_until = started_at;
        let (mut down, mut given_up, mut stalled) = (0, 0, 0);
        let mut gaps = Vec::with_capacity(crew.handles.len());
        // The warm-up's seconds, watched for a trend; `auto` ends it once
        // its last window is steady.
        let mut watch = (phase == Phase::Warmup).then(|| SteadyWatch::new(config.warmup_plan));
        // A measured run's seconds, kept for its intervals.
        let mut batches = matches!(phase, Phase::Run(_)).then(Batches::new);
        let mut met_after: Option<u64> = None;
        while finished < crew.handles.len() {
            let Ok(report) = crew.reports.recv() else {
                break;
            };
            if let Report::Unwritten(unwritten) = report {
                self.unwritten.push(unwritten);
                continue;
            }
            let Report::Second {
                thread,
                second,
                stats,
                last,
                finished_at,
                open_connections,
                backlog,
                end,
            } = report
            else {
                continue;
            };
            total += &*stats;
            budget.add(&stats.errors);
            if let Some(slot) = open.get_mut(thread) {
                *slot = open_connections;
            }
            if let (Some(mut end), Some(cpu)) = (end, thread_cpu.get_mut(thread)) {
                *cpu = end.cpu_time;
                gaps.push(std::mem::take(&mut end.gaps));
                unsent += end.unsent;
                down += end.down;
                given_up += end.given_up;
                stalled += usize::from(end.stalled);
                sent_until = sent_until.max(end.stopped_sending_at.unwrap_or(finished_at));
            }
            let completed = series.add(second, &stats, backlog, &mut |s, m| {
                live.interval(s, m);
                if let Some(b) = batches.as_mut() {
                    b.second(s, m);
                }
            });
            // The final, partial second is summed up by `end_phase` instead.
            if let (Some(done), false) = (completed, last) {
                if let Some(w) = watch.as_mut()
                    && w.second(done.totals.count, p99_us(&done.totals.percentiles_us))
                {
                    crew.early_end.request();
                }
                // --test-time auto: the run ends once every figure named is
                // known as well as asked.
                if let Some(b) = batches.as_mut().filter(|_| config.precision.auto)
                    && b.seconds() >= MIN_AUTO_SECS
                    && met_after.is_none()
                    && b.meets(
                        &config.precision.targets,
                        &total,
                        rate(total.replies(), started_at.elapsed()),
                    )
                {
                    met_after = Some(b.seconds());
                    b.freeze();
                    crew.early_end.request();
                }
                live.second(done, &total, started_at.elapsed(), open.iter().sum());
                let now = meter.read();
                host_series.push(now.since(&host_last));
                host_last = now;
                if let Some(link) = control.as_deref_mut() {
                    server.second(link);
                }
                if let Some(nodes) = self.nodes.as_mut() {
                    nodes.sample_second(&mut per_node);
                }
                self.watch.second();
            }
            if last {
                finished += 1;
                ended_at = ended_at.max(finished_at);
            }
        }
        let duration = sent_until.saturating_duration_since(started_at);
        let series = series.finish(&mut |s, m| {
            live.interval(s, m);
            if let Some(b) = batches.as_mut() {
                b.second(s, m);
            }
        });
        if let Some(b) = batches.as_mut() {
            b.finish(duration.as_secs());
        }
        let precision = batches.as_ref().map(|b| {
            let mut judged = b.judge(
                &total,
                rate(total.replies(), duration),
                &config.output.percentiles,
            );
            judged.met_after_s = met_after;
            judged
        });
        let result = PhaseResult {
            phase,
            started_wall,
            duration,
            load_gaps: LoadGaps::join(&gaps, started_at, duration, config.connections()),
            drain: ended_at.saturating_duration_since(sent_until),
            connections_down: down,
            connections_given_up: given_up,
            stalled_workers: stalled,
            stats: total,
            series,
            thread_cpu,
            unsent,
            server: None,
            interrupted: false,
            evidence_lost: None,
            nodes: Vec::new(),
            host: Some(HostPhase {
                interface: meter.interface.clone(),
                cores: meter.cores,
                whole: meter.read().since(&host_start),
                per_second: host_series,
            }),
            server_seconds: server.finish(),
            node_seconds: self
                .nodes
                .as_ref()
                .map_or_else(Vec::new, |n| n.finish_samplers(per_node)),
            steadiness: watch.map(|w| w.finish()),
            precision,
            batches,
            server_latency: None,
            watched: Vec::new(),
        };
        live.end_phase(&result);
        result
    }
}
