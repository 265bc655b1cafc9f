//! A merged run's `load_gap`: every machine's connection time in gaps and
//! connection time summed (so the share is of the whole set's), and the
//! spans every machine had at once, on each machine's own run clock (their
//! starts are aligned by the barrier or `--start-at`). The aggregate of
//! several runs keeps the sums only: spans of different runs do not line up.

use crate::report::model::load_gap::{Gap, LoadGap};

/// `acc` joined with `one`; `None` as soon as either lacks its gaps.
/// `same_window`: the two ran at once (machines of one round), not one
/// after the other (runs of an aggregate).
pub fn join(acc: Option<LoadGap>, one: Option<&LoadGap>, same_window: bool) -> Option<LoadGap> {
    let (mut acc, one) = (acc?, one?);
    acc.connection_seconds += one.connection_seconds;
    acc.connection_time_s += one.connection_time_s;
    acc.connection_gaps += one.connection_gaps;
    acc.longest_connection_gap_s = acc
        .longest_connection_gap_s
        .max(one.longest_connection_gap_s);
    acc.share_percent = if acc.connection_time_s > 0.0 {
        (100.0 * acc.connection_seconds / acc.connection_time_s).min(100.0)
    } else {
        acc.share_percent.max(one.share_percent)
    };
    if same_window {
        acc.gaps = intersect(&acc.gaps, &one.gaps);
        acc.open_at_end &= one.open_at_end;
    } else {
        acc.gaps.clear();
        acc.open_at_end |= one.open_at_end;
    }
    Some(acc)
}

/// The parts of `a`'s spans that `b`'s cover too, a second or longer.
fn intersect(a: &[Gap], b: &[Gap]) -> Vec<Gap> {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            let start = x.start_s.max(y.start_s);
            let end = (x.start_s + x.length_s).min(y.start_s + y.length_s);
            if end - start >= 1.0 {
                out.push(Gap {
                    start_s: start,
                    length_s: end - start,
                    cause: if x.cause == y.cause {
                        x.cause.clone()
                    } else {
                        // Machines that disagree: one saw the server gone.
                        "server_down".to_string()
                    },
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gap(start_s: f64, length_s: f64, cause: &str) -> Gap {
        Gap {
            start_s,
            length_s,
            cause: cause.into(),
        }
    }

    fn machine(secs: f64, time: f64, gaps: Vec<Gap>, open: bool) -> LoadGap {
        LoadGap {
            share_percent: 100.0 * secs / time,
            connection_seconds: secs,
            connection_time_s: time,
            connection_gaps: gaps.len() as u64,
            longest_connection_gap_s: gaps.iter().map(|g| g.length_s).fold(0.0, f64::max),
            gaps,
            open_at_end: open,
        }
    }

    #[test]
    fn machines_sum_their_time_and_share_their_common_spans() {
        let a = machine(24.0, 32.0, vec![gap(2.0, 6.0, "server_down")], true);
        let b = machine(0.0, 32.0, vec![], false);
        let j = join(Some(a.clone()), Some(&b), true).unwrap();
        assert!((j.share_percent - 37.5).abs() < 1e-9, "{}", j.share_percent);
        assert!(j.gaps.is_empty());
        assert!(!j.open_at_end);
        let c = machine(20.0, 32.0, vec![gap(3.0, 5.0, "stalled")], true);
        let j = join(Some(a.clone()), Some(&c), true).unwrap();
        assert_eq!(j.gaps, vec![gap(3.0, 5.0, "server_down")]);
        assert!(j.open_at_end);
        // Runs one after another: sums only.
        let j = join(Some(a.clone()), Some(&c), false).unwrap();
        assert!(j.gaps.is_empty() && j.open_at_end);
        assert_eq!(join(Some(a), None, true), None);
    }
}
