//! memtier's `--latency-window SECS` under `--realtime-latencies`: the
//! latencies of the last SECS seconds, a tail figure between the second's
//! own (noisy) and the phase's (slow to move).
//!
//! Each second's latencies are kept as the buckets that second filled
//! (value, count), taken as the difference of the phase's histogram from
//! one tick to the next; the window is those of its last SECS seconds added
//! into one scratch histogram. A second without traffic still takes its
//! place, so the window is SECS seconds of the clock, as memtier counts it.
//! All of it happens once a second on the reporting thread, never per request.

use std::collections::VecDeque;

use hdrhistogram::Histogram;

/// The sliding window of one phase.
pub struct LatencyWindow {
    seconds: usize,
    /// The phase's histogram at the last tick.
    last: Option<Histogram<u64>>,
    /// Each second's filled buckets as (value, count), oldest first.
    ring: VecDeque<Vec<(u64, u64)>>,
    /// The window's histogram, rebuilt each tick.
    window: Option<Histogram<u64>>,
}

impl LatencyWindow {
    /// A window of `seconds` (at least 1).
    pub fn new(seconds: u32) -> LatencyWindow {
        let seconds = seconds.max(1) as usize;
        LatencyWindow {
            seconds,
            last: None,
            ring: VecDeque::with_capacity(seconds),
            window: None,
        }
    }

    /// The window's length, in seconds.
    pub fn seconds(&self) -> usize {
        self.seconds
    }

    /// A new phase: nothing of the last one stays in the window.
    pub fn reset(&mut self) {
        self.last = None;
        self.ring.clear();
    }

    /// Takes in the second that ends with `phase` (the phase's histogram so
    /// far) and returns the window's histogram, `None` if it cannot be built.
    pub fn tick(&mut self, phase: &Histogram<u64>) -> Option<&Histogram<u64>> {
        let mut second = phase.clone();
        if let Some(last) = &self.last {
            // The phase's histogram only grows within a phase.
            second.subtract(last).ok()?;
        }
        let buckets: Vec<(u64, u64)> = second
            .iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect();
        if self.ring.len() == self.seconds {
            self.ring.pop_front();
        }
        self.ring.push_back(buckets);
        self.last = Some(phase.clone());
        if self.window.is_none() {
            self.window = Some(Histogram::new_from(phase));
        }
        let window = self.window.as_mut()?;
        window.reset();
        for &(value, count) in self.ring.iter().flatten() {
            window.saturating_record_n(value, count);
        }
        Some(window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phase(values: &[u64]) -> Histogram<u64> {
        let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
        for &v in values {
            h.record(v).unwrap();
        }
        h
    }

    #[test]
    fn the_window_holds_only_its_last_seconds() {
        let mut w = LatencyWindow::new(2);
        // Second 1: slow requests; seconds 2 and 3: fast ones.
        let mut values = vec![10_000; 100];
        let h = w.tick(&phase(&values)).unwrap();
        assert_eq!(h.len(), 100);
        values.extend([100; 100]);
        let h = w.tick(&phase(&values)).unwrap();
        assert_eq!(h.len(), 200);
        values.extend([200; 100]);
        let h = w.tick(&phase(&values)).unwrap();
        // The slow second has left a 2 s window.
        assert_eq!(h.len(), 200);
        assert!(h.value_at_quantile(1.0) < 1_000, "{}", h.max());
        // A quiet second still takes its place.
        let h = w.tick(&phase(&values)).unwrap();
        assert_eq!(h.len(), 100);
        w.reset();
        let h = w.tick(&phase(&[5])).unwrap();
        assert_eq!(h.len(), 1);
    }
}
