//! The progress display on stderr: the phase (`run 1/3`), its elapsed and
//! planned time, the whole plan's elapsed and planned time, ops/sec and
//! latency (p99, or the mean when p99 is not among `--print-percentiles`):
//! `run 1/3 1s/5s · all 7s/18s | 1000 ops/s | p99 0.100 ms | …`. A planned
//! time counted in requests is estimated from the rate so far (`~`).
//!
//! On a terminal one line is redrawn in place every second (`\r`, then clear
//! to the end of the line), cut to the terminal's width so that it never
//! wraps: the least important fields are left out first (`line::fit`).
//! When stderr is a file or a pipe (nohup, CI) a plain line is written after
//! the first second of each phase and then every `--progress-interval`
//! seconds, so that a log shows the run is alive without filling up; either
//! way each finished phase gets a summary line.

mod line;
mod plan;

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use crate::config::{Config, Stop};
use crate::engine::master::results::{Phase, PhaseResult, rate};
use crate::engine::master::sink::Sink;
use crate::engine::stats::Stats;
use crate::engine::stats::series::Second;
use crate::error::terminal::{self, Stream};

use line::{Field, short_duration};
use plan::PlanClock;

/// A line due at plan time t is written from the first report seen after
/// t − this: the per-second reports arrive a few milliseconds either side of
/// the whole second, and a line must not slip to the next one for that.
const DUE_SLACK: Duration = Duration::from_millis(500);

/// What the latency field shows.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Latency {
    /// The 99th percentile of the last second, µs.
    P99(u64),
    /// The mean of the last second, µs.
    Mean(f64),
}

/// How the progress is shown.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// Nothing but what the caller prints itself.
    Off,
    /// A terminal: one line redrawn every second.
    Live,
    /// A log: a plain line every interval (`None`: none, only the summaries).
    Log(Option<Duration>),
}

/// State of the progress display.
pub struct Progress {
    mode: Mode,
    threads: usize,
    connections: usize,
    clock: PlanClock,
    phase: Phase,
    /// The plan time at which the next log line is due.
    next_due: Duration,
    /// Whether the current phase has had its first log line.
    phase_logged: bool,
    /// The last figures seen, for a line written at the end of a phase.
    last: Snapshot,
}

/// The figures of one line.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Snapshot {
    phase_elapsed: Duration,
    done: u64,
    ops_per_sec: f64,
    /// `None` until the phase's first second, or its end, says.
    latency: Option<Latency>,
    open: usize,
}

impl Progress {
    /// A progress display for this configuration; `enabled` false prints nothing.
    pub fn new(config: &Config, enabled: bool) -> Self {
        let mode = match (enabled, std::io::stderr().is_terminal()) {
            (false, _) => Mode::Off,
            (true, true) => Mode::Live,
            (true, false) => Mode::Log(config.progress_interval),
        };
        Progress {
            mode,
            threads: config.threads,
            connections: config.connections(),
            clock: PlanClock::new(config),
            phase: Phase::Warmup,
            next_due: config.progress_interval.unwrap_or(Duration::MAX),
            phase_logged: false,
            last: Snapshot {
                phase_elapsed: Duration::ZERO,
                done: 0,
                ops_per_sec: 0.0,
                latency: None,
                open: config.connections(),
            },
        }
    }
}

impl Sink for Progress {
    /// A phase begins.
    fn start_phase(&mut self, phase: Phase, stop: Stop) {
        self.phase = phase;
        self.clock.start_phase(phase, stop, Instant::now());
        self.last.phase_elapsed = Duration::ZERO;
        self.last.done = 0;
        self.last.latency = None;
        self.phase_logged = false;
    }

    /// A second of the phase is complete.
    fn second(&mut self, s: &Second, total: &Stats, elapsed: Duration, open: usize) {
        let latency = s
            .totals
            .percentiles_us
            .iter()
            .find(|(p, _)| *p == 99.0)
            .map_or(Latency::Mean(s.totals.mean_us), |&(_, us)| Latency::P99(us));
        self.last = Snapshot {
            phase_elapsed: elapsed,
            done: total.totals().count,
            ops_per_sec: s.totals.count as f64,
            latency: Some(latency),
            open,
        };
        match self.mode {
            Mode::Off => {}
            Mode::Live => {
                let fitted = line::fit(&self.fields(), terminal_width().saturating_sub(1));
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r{fitted}\x1b[K");
                let _ = err.flush();
            }
            Mode::Log(interval) => {
                let first = !self.phase_logged;
                self.log_if_due(interval, first);
            }
        }
    }

    /// A phase ended: a last log line if one is due, then one summary line.
    fn end_phase(&mut self, r: &PhaseResult) {
        let all = r.stats.totals();
        self.last.phase_elapsed = r.duration;
        self.last.done = all.count;
        self.last.ops_per_sec = r.ops_per_sec();
        // A phase shorter than a second has no second of its own to show.
        self.last
            .latency
            .get_or_insert(Latency::Mean(all.mean_us()));
        match self.mode {
            Mode::Off => return,
            Mode::Live => {
                let _ = write!(std::io::stderr().lock(), "\r\x1b[K");
            }
            Mode::Log(interval) => self.log_if_due(interval, false),
        }
        // Wrapped on a terminal like every other line kvbench writes there.
        crate::error::note(format_args!(
            "[{}] {:.2} secs (then {:.2} secs of drain), {} threads, {} conns: {} ops, {:.0} ops/sec, {:.3} msec avg latency",
            r.phase,
            r.duration.as_secs_f64(),
            r.drain.as_secs_f64(),
            self.threads,
            self.connections,
            all.count,
            r.ops_per_sec(),
            all.mean_us() / 1000.0
        ));
    }
}

impl Progress {
    /// Writes a plain line if the plan has reached the next due time, or
    /// `first` (the phase's first second); due times that passed unseen (a
    /// long pause between phases) are skipped.
    fn log_if_due(&mut self, interval: Option<Duration>, first: bool) {
        let Some(interval) = interval else {
            return;
        };
        let now = self.clock.plan_elapsed(Instant::now()) + DUE_SLACK;
        let due = now >= self.next_due;
        if !due && !first {
            return;
        }
        if due {
            // The first due time after `now`, computed rather than stepped to,
            // so that a tiny interval over a long pause costs nothing.
            let passed = (now.as_secs_f64() / interval.as_secs_f64()).floor() + 1.0;
            self.next_due = interval
                .mul_f64(passed)
                .max(self.next_due.saturating_add(interval));
        }
        self.phase_logged = true;
        let text = line::join(&self.fields());
        let _ = writeln!(std::io::stderr().lock(), "{text}");
    }

    /// Every field, in display order, each with its rank for `line::fit`.
    fn fields(&self) -> Vec<Field> {
        let s = self.last;
        let now = Instant::now();
        let phase_left = self
            .clock
            .phase_left(s.phase_elapsed, s.done, phase_rate(s));
        let plan_left = self.clock.plan_left(phase_left, phase_rate(s));
        // Planned lengths: elapsed plus what is left (for a timed phase, its
        // --test-time; for a counted one, what is left at its rate).
        let phase_planned = phase_left.map(|left| s.phase_elapsed + left);
        let plan_elapsed = self.clock.plan_elapsed(now);
        let plan_planned = plan_left.map(|left| plan_elapsed + left);
        let mut fields = vec![
            Field {
                rank: 0,
                text: format!(
                    "{} {}/{} · all {}/{}",
                    self.clock.phase_name(self.phase),
                    short_duration(Some(s.phase_elapsed)),
                    planned(phase_planned, self.clock.phase_estimated()),
                    short_duration(Some(plan_elapsed)),
                    planned(plan_planned, self.clock.plan_estimated()),
                ),
            },
            Field {
                rank: 1,
                text: format!("{:.0} ops/s", s.ops_per_sec),
            },
            Field {
                rank: 3,
                text: match s.latency {
                    Some(Latency::P99(us)) => format!("p99 {:.3} ms", us as f64 / 1000.0),
                    Some(Latency::Mean(us)) => format!("avg {:.3} ms", us / 1000.0),
                    None => "p99 ?".to_string(),
                },
            },
            Field {
                rank: 5,
                text: format!("{} ops", s.done),
            },
            Field {
                rank: 6,
                text: format!("{} thr {} conns", self.threads, s.open),
            },
        ];
        if self.phase == Phase::Prefill {
            fields[3].text = format!("{} of {} keys", s.done, self.clock.planned());
        }
        fields
    }
}

/// A planned length as the line shows it, to the nearest second (the start
/// of a phase lands a few milliseconds after its planned time); `~` when it
/// is estimated from a rate, `?` while no rate says.
fn planned(length: Option<Duration>, estimated: bool) -> String {
    let text = short_duration(length.map(|d| Duration::from_secs(d.as_secs_f64().round() as u64)));
    if estimated && length.is_some() {
        format!("~{text}")
    } else {
        text
    }
}

/// The phase's rate so far: what the ETA of a phase counted in requests uses.
fn phase_rate(s: Snapshot) -> f64 {
    rate(s.done, s.phase_elapsed)
}

/// The width of the terminal on stderr ([`terminal::width`]: `COLUMNS`, then
/// `TIOCGWINSZ`, then 80).
fn terminal_width() -> usize {
    terminal::width(Stream::Stderr).unwrap_or(terminal::FALLBACK_WIDTH)
}
