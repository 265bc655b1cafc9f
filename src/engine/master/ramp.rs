//! memtier's picture of the staircase ramp-up, printed on stderr before each
//! phase that climbs it: one line per step with its seconds and clients per
//! thread, the total at the top, and whether `--test-time` reaches it. The
//! worker side (opening the connections of each step) is in
//! `engine/worker/ramp.rs`.

use std::fmt::Write as _;

use crate::config::Config;
use crate::config::ramp::Staircase;

/// The pattern memtier prints for `stair` in a phase of `test_secs` seconds,
/// `label` naming the phase (`RUN #1`).
pub fn staircase_pattern(
    label: &str,
    stair: Staircase,
    clients: usize,
    threads: usize,
    test_secs: u64,
) -> String {
    let steps = stair.steps_to(clients);
    let step_secs = stair.step_duration.as_secs();
    let min_secs = steps as u64 * step_secs;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "[{label}] Client staircase pattern (per thread x {threads} threads):"
    );
    for step in 0..=steps {
        let now = (stair.start + step * stair.step).min(clients);
        let from = step as u64 * step_secs;
        // A step that cannot start within the run is not shown.
        if from >= test_secs && step > 0 {
            break;
        }
        let last = now >= clients;
        let to = if last {
            test_secs
        } else {
            (step as u64 + 1) * step_secs
        }
        .min(test_secs);
        let bar = (now * 20).div_ceil(clients.max(1)).max(1);
        let _ = write!(
            out,
            "  Step {step}: {from:>3}s - {to:>3}s : {now:>3} clients  {}",
            "\u{2588}".repeat(bar)
        );
        out.push_str(if last { "  (max)\n" } else { "\n" });
        if last {
            break;
        }
    }
    let _ = writeln!(
        out,
        "  Total max connections: {clients} x {threads} = {}",
        clients * threads
    );
    if test_secs >= min_secs {
        let _ = writeln!(
            out,
            "  Minimum time to reach max: {min_secs}s (test_time: {test_secs}s OK)"
        );
    } else {
        let _ = writeln!(
            out,
            "  WARNING: test_time ({test_secs}s) < time to reach max clients ({min_secs}s), max will not be reached"
        );
    }
    out
}

/// Prints the pattern of `config`'s staircase, if it has one, for a phase
/// of `test_secs` seconds.
pub fn print_staircase(label: &str, config: &Config, test_secs: u64) {
    if let Some(stair) = config.ramp.staircase {
        let text = staircase_pattern(label, stair, config.clients, config.threads, test_secs);
        crate::error::note(format_args!("{}", text.trim_end()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_pattern_shows_each_step_up_to_the_max() {
        let stair = Staircase {
            start: 2,
            step: 3,
            step_duration: Duration::from_secs(5),
        };
        let text = staircase_pattern("RUN #1", stair, 8, 2, 20);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "[RUN #1] Client staircase pattern (per thread x 2 threads):"
        );
        assert!(lines[1].starts_with("  Step 0:   0s -   5s :   2 clients  "));
        assert!(lines[3].starts_with("  Step 2:  10s -  20s :   8 clients  "));
        assert!(lines[3].ends_with("  (max)"));
        assert_eq!(lines[4], "  Total max connections: 8 x 2 = 16");
        assert_eq!(
            lines[5],
            "  Minimum time to reach max: 10s (test_time: 20s OK)"
        );
    }

    #[test]
    fn a_run_too_short_for_the_top_step_says_so() {
        let stair = Staircase {
            start: 1,
            step: 1,
            step_duration: Duration::from_secs(10),
        };
        let text = staircase_pattern("RUN #1", stair, 4, 1, 15);
        assert_eq!(text.matches("Step ").count(), 2);
        assert!(text.contains("WARNING: test_time (15s) < time to reach max clients (30s)"));
    }
}
