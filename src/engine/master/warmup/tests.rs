//! The trend test on synthetic series.

use std::time::Duration;

use crate::engine::master::warmup::{
    P99_TOLERANCE, SteadyWatch, THROUGHPUT_TOLERANCE, WarmupEnd, WarmupPlan, trend,
};

/// A deterministic "noise" in [-1, 1): a small LCG, so the tests need no RNG.
fn noise(n: usize, seed: u64) -> Vec<f64> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) as f64 / (1u64 << 31) as f64) - 1.0
        })
        .collect()
}

#[test]
fn steady_noise_is_steady() {
    for seed in 1..50 {
        let series: Vec<f64> = noise(10, seed)
            .iter()
            .map(|e| 10_000.0 + 300.0 * e)
            .collect();
        let t = trend(&series).unwrap();
        assert!(t.steady(THROUGHPUT_TOLERANCE), "seed {seed}: {t:?}");
    }
}

#[test]
fn a_ramp_is_not_steady_even_with_noise() {
    for seed in 1..50 {
        // 30 % up over ten seconds, with ±2 % noise.
        let series: Vec<f64> = noise(10, seed)
            .iter()
            .enumerate()
            .map(|(i, e)| 10_000.0 + 300.0 * i as f64 + 200.0 * e)
            .collect();
        let t = trend(&series).unwrap();
        assert!(
            t.slope > 0.0 && !t.steady(THROUGHPUT_TOLERANCE),
            "seed {seed}: {t:?}"
        );
    }
}

#[test]
fn a_falling_p99_is_not_steady() {
    let series: Vec<f64> = (0..10).map(|i| 900.0 - 50.0 * i as f64).collect();
    let t = trend(&series).unwrap();
    assert!(t.slope < 0.0 && !t.steady(P99_TOLERANCE), "{t:?}");
}

#[test]
fn a_tiny_significant_slope_is_within_tolerance() {
    // Exact line, so the interval is 0, but 1 % over the window.
    let series: Vec<f64> = (0..10).map(|i| 10_000.0 + 10.0 * i as f64).collect();
    let t = trend(&series).unwrap();
    assert!(
        t.half_width < 1e-6 && t.steady(THROUGHPUT_TOLERANCE),
        "{t:?}"
    );
}

#[test]
fn too_few_points_have_no_trend() {
    assert_eq!(trend(&[1.0, 2.0, 3.0]), None);
}

fn plan(end: WarmupEnd) -> WarmupPlan {
    WarmupPlan {
        end,
        window: Duration::from_secs(5),
    }
}

#[test]
fn auto_ends_after_the_ramp_once_its_window_is_flat() {
    let mut watch = SteadyWatch::new(plan(WarmupEnd::Steady));
    let mut ended = None;
    for s in 0..30u64 {
        // Up for 10 s, then flat.
        let ops = 1_000 + 100 * s.min(10);
        if watch.second(ops, 500) {
            ended = Some(s + 1);
            break;
        }
    }
    let ended = ended.unwrap();
    assert!((12..=16).contains(&ended), "ended after {ended} s");
    let s = watch.finish();
    assert!(s.steady && s.steady_after_s == Some(ended));
}

#[test]
fn a_fixed_warmup_still_ramping_at_its_end_is_not_steady() {
    let mut watch = SteadyWatch::new(plan(WarmupEnd::Fixed));
    for s in 0..8u64 {
        assert!(!watch.second(1_000 + 100 * s, 500));
    }
    let s = watch.finish();
    assert!(!s.steady && s.steady_after_s.is_none() && s.trending());
    assert!(s.throughput.unwrap().slope > 90.0);
}

#[test]
fn a_fixed_warmup_shorter_than_its_window_is_not_judged_steady() {
    let mut watch = SteadyWatch::new(plan(WarmupEnd::Fixed));
    watch.second(1_000, 500);
    let s = watch.finish();
    assert!(!s.steady && s.throughput.is_none() && !s.trending());
}
