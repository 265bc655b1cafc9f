//! The common window of a merged run: the time in which every machine was
//! sending. A machine that started late ran its first seconds against a
//! server the others had not yet loaded (or its last seconds alone), and
//! those seconds are faster: the plain sum of the counts over the longest
//! run time would credit the set with them. The merged rates are instead
//! each machine's replies inside the common window, from its per-second
//! series (a second cut by the window's edge counts in proportion), over
//! the window's length. For machines that started and stopped together the
//! window is the run and the rate is the plain sum's.
//!
//! Starts are on the reference clock (the server's `TIME`): a machine's
//! start plus its measured clock offset, as the start skew is (`document::spread`).

/// One machine's run, as the window needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct MachineRun {
    /// Its start, ms since the epoch on the reference clock.
    pub start_ms: f64,
    /// Its run time, ms.
    pub duration_ms: f64,
    /// Per op row, in the layout's order, then the totals: each second's
    /// index since the start and its replies.
    pub seconds: Vec<Vec<(u64, u64)>>,
}

/// The span in which every machine was sending, ms on the reference clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// The latest start.
    pub start_ms: f64,
    /// The earliest end.
    pub end_ms: f64,
}

impl Window {
    /// The common window of `runs`; `None` when they did not overlap.
    pub fn common(runs: &[MachineRun]) -> Option<Window> {
        let start_ms = runs.iter().map(|r| r.start_ms).reduce(f64::max)?;
        let end_ms = runs
            .iter()
            .map(|r| r.start_ms + r.duration_ms)
            .reduce(f64::min)?;
        (end_ms > start_ms).then_some(Window { start_ms, end_ms })
    }

    /// Its length, s.
    pub fn seconds(&self) -> f64 {
        (self.end_ms - self.start_ms) / 1000.0
    }

    /// Row `row`'s replies of `run` inside the window: each second's count
    /// times the share of that second (the last one may be short) that lies
    /// inside.
    pub fn replies_in(&self, run: &MachineRun, row: usize) -> f64 {
        let end = run.start_ms + run.duration_ms;
        let Some(seconds) = run.seconds.get(row) else {
            return 0.0;
        };
        seconds
            .iter()
            .map(|&(k, count)| {
                let from = run.start_ms + 1000.0 * k as f64;
                let to = (from + 1000.0).min(end);
                if to <= from {
                    return 0.0;
                }
                let inside = to.min(self.end_ms) - from.max(self.start_ms);
                count as f64 * (inside.max(0.0) / (to - from))
            })
            .sum()
    }

    /// The run time that gives row `row` its windowed rate when its exact
    /// count is divided by it: the window's length scaled by the share of
    /// the row's replies inside it. `None` when the series hold nothing of
    /// it (a file without `Time-Serie`), so the caller keeps its own.
    pub fn duration_s(&self, runs: &[MachineRun], row: usize, count: u64) -> Option<f64> {
        let inside: f64 = runs.iter().map(|r| self.replies_in(r, row)).sum();
        let listed: u64 = runs
            .iter()
            .filter_map(|r| r.seconds.get(row))
            .flatten()
            .map(|&(_, c)| c)
            .sum();
        // Series that do not hold the row's count (some seconds missing)
        // cannot tell its share inside the window.
        (inside > 0.0 && listed == count).then(|| self.seconds() * count as f64 / inside)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(start_ms: f64, per_second: &[u64]) -> MachineRun {
        let seconds: Vec<(u64, u64)> = per_second
            .iter()
            .enumerate()
            .map(|(k, &c)| (k as u64, c))
            .collect();
        MachineRun {
            start_ms,
            duration_ms: 1000.0 * per_second.len() as f64,
            seconds: vec![seconds],
        }
    }

    #[test]
    fn machines_that_ran_together_keep_the_plain_rate() {
        let runs = [run(0.0, &[100, 100, 100]), run(0.0, &[50, 50, 50])];
        let w = Window::common(&runs).unwrap();
        assert_eq!(w.seconds(), 3.0);
        // 450 replies over 3 s: the plain sum's 150/s.
        let d = w.duration_s(&runs, 0, 450).unwrap();
        assert!((d - 3.0).abs() < 1e-9, "{d}");
    }

    #[test]
    fn a_late_machines_lone_seconds_are_left_out() {
        // The first machine ran 4 s at 100/s; the second started 2 s late
        // and ran alone for its last 2 s at 300/s.
        let runs = [
            run(0.0, &[100, 100, 100, 100]),
            run(2000.0, &[100, 100, 300, 300]),
        ];
        let w = Window::common(&runs).unwrap();
        assert_eq!((w.start_ms, w.end_ms), (2000.0, 4000.0));
        let count = 400 + 800;
        let d = w.duration_s(&runs, 0, count).unwrap();
        // Inside: 200 of the first, 200 of the second, over 2 s: 200/s,
        // where the plain sum over the longest run time says 1200/4 = 300/s.
        let rate = count as f64 / d;
        assert!((rate - 200.0).abs() < 1e-9, "{rate}");
    }

    #[test]
    fn a_second_cut_by_the_edge_counts_in_proportion() {
        let runs = [run(0.0, &[100, 100]), run(500.0, &[100, 100])];
        let w = Window::common(&runs).unwrap();
        assert_eq!((w.start_ms, w.end_ms), (500.0, 2000.0));
        // First: half of second 0 and all of second 1 = 150; second: all of
        // second 0 and half of second 1 = 150; 300 over 1.5 s.
        let d = w.duration_s(&runs, 0, 400).unwrap();
        assert!((400.0 / d - 200.0).abs() < 1e-9, "{}", 400.0 / d);
    }

    #[test]
    fn runs_that_never_overlapped_have_no_window() {
        let runs = [run(0.0, &[10]), run(5000.0, &[10])];
        assert_eq!(Window::common(&runs), None);
    }

    #[test]
    fn series_missing_seconds_keep_the_callers_duration() {
        let runs = [run(0.0, &[100, 100])];
        let w = Window::common(&runs).unwrap();
        assert_eq!(w.duration_s(&runs, 0, 500), None);
        assert_eq!(w.duration_s(&runs, 1, 0), None);
    }
}
