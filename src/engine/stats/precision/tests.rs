//! The intervals hold as often as 95 % intervals should on autocorrelated
//! series, where the independent-samples interval does not; the stored
//! seconds stay bounded and leave the final partial second out.

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand_distr::{Distribution, Normal};

use super::*;

/// An AR(1) series around `mean`: each value `phi` of the last plus noise.
fn ar1(rng: &mut SmallRng, n: usize, mean: f64, phi: f64) -> Vec<f64> {
    let noise = Normal::new(0.0, 1.0).unwrap();
    let mut x = 0.0;
    (0..n)
        .map(|_| {
            x = phi * x + noise.sample(rng);
            mean + x
        })
        .collect()
}

/// The interval of the series' mean by batch means.
fn batched(x: &[f64]) -> Option<Interval> {
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    batch_interval(mean, x.len(), 1, |r| {
        x[r.clone()].iter().sum::<f64>() / r.len() as f64
    })
}

/// The interval that takes every value as independent.
fn independent(x: &[f64]) -> Interval {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Interval {
        value: mean,
        half_width: t_95(x.len() - 1) * (var / n).sqrt(),
        batch_s: 1,
        batches: x.len(),
    }
}

fn covers(i: &Interval, truth: f64) -> bool {
    (i.value - truth).abs() <= i.half_width
}

#[test]
fn t_quantiles_match_the_tables_past_thirty() {
    assert_eq!(t_95(1), 12.706);
    assert_eq!(t_95(30), 2.042);
    for (df, exact) in [(31, 2.0395), (40, 2.0211), (60, 2.0003), (120, 1.9799)] {
        assert!((t_95(df) - exact).abs() < 0.001, "t({df}) = {}", t_95(df));
    }
}

#[test]
fn lag_one_autocorrelation_reads_the_series_dependence() {
    let alternating: Vec<f64> = (0..100).map(|i| (i % 2) as f64).collect();
    assert!(lag1(&alternating) < -0.9);
    assert_eq!(lag1(&[3.0; 20]), 0.0);
    let mut rng = SmallRng::seed_from_u64(7);
    let r = lag1(&ar1(&mut rng, 5000, 0.0, 0.9));
    assert!((0.85..0.95).contains(&r), "r1 {r}");
}

/// 400 series of 300 dependent seconds (each 0.6 of the last plus noise):
/// the batch-means interval covers the true mean about 93 % of the time (a
/// finite run's batches are never quite independent); the
/// independent-samples interval, half as wide, about 67 %.
#[test]
fn batch_means_cover_the_mean_of_a_dependent_series_as_often_as_they_claim() {
    let mut rng = SmallRng::seed_from_u64(42);
    let (mut batch_hits, mut iid_hits, mut none) = (0, 0, 0);
    for _ in 0..400 {
        let x = ar1(&mut rng, 300, 100.0, 0.6);
        match batched(&x) {
            Some(i) => batch_hits += usize::from(covers(&i, 100.0)),
            None => none += 1,
        }
        iid_hits += usize::from(covers(&independent(&x), 100.0));
    }
    let known = 400 - none;
    assert!(none < 40, "{none} series without an interval");
    let batch_rate = batch_hits as f64 / known as f64;
    let iid_rate = iid_hits as f64 / 400.0;
    assert!(
        (0.9..=0.99).contains(&batch_rate),
        "batch means cover {batch_rate}"
    );
    assert!(iid_rate < 0.75, "independent samples cover {iid_rate}");
}

#[test]
fn independent_seconds_keep_the_shortest_batch() {
    let mut rng = SmallRng::seed_from_u64(3);
    let x = ar1(&mut rng, 200, 50.0, 0.0);
    let i = batched(&x).expect("200 independent seconds have an interval");
    assert!(i.batch_s <= 2, "batch {} s", i.batch_s);
    assert!(i.batches >= 100);
    // About 1.96 / sqrt(200) of the unit spread.
    assert!((0.09..0.2).contains(&i.half_width), "half {}", i.half_width);
}

#[test]
fn a_series_too_short_for_ten_batches_has_no_interval() {
    assert_eq!(
        batched(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]),
        None
    );
    // A trend never loses its autocorrelation: no batch length qualifies.
    let trend: Vec<f64> = (0..64).map(f64::from).collect();
    assert_eq!(batched(&trend), None);
}

/// One second's stats: `count` replies on row 0 at `us`, none on row 1.
fn second(count: u64, us: u64) -> Stats {
    let mut s = Stats::new(2).unwrap();
    for _ in 0..count {
        s.ops[0].record(us);
    }
    s
}

#[test]
fn seconds_are_stored_whole_merged_in_pairs_past_the_cap_and_the_partial_last_left_out() {
    let mut b = Batches::new();
    for i in 0..300u64 {
        b.second(i, &second(100 + i % 3, 1000));
    }
    // The 300th second is held until the phase ends; a partial one is dropped.
    b.finish(299);
    // Units of 1 s merged into 2 s at 128, into 4 s at 256: 74 units of
    // 4 s hold 296 of the 299 whole seconds, 3 fill the next.
    assert_eq!((b.width_s, b.units.len(), b.seconds()), (4, 74, 296));
    let rate = b.rate(101.0).expect("74 units");
    assert!((rate.value - 101.0).abs() < 1e-9);
    assert!(rate.half_width > 0.0 && rate.half_width < 1.0, "{rate:?}");
}

#[test]
fn a_stored_second_takes_a_few_kib_and_decodes_to_what_was_recorded() {
    // A busy second: 100 000 replies spread over 1 ms .. 100 ms on row 0.
    let mut s = Stats::new(2).unwrap();
    for i in 0..100_000u64 {
        s.ops[0].record(1_000 + (i * 7_919) % 99_000);
    }
    let unit = Open::of(&s).close();
    let bytes: usize = unit.rows.iter().map(|r| r.len()).sum();
    // The histograms themselves take 13 KiB a row; stored, all three rows
    // (two ops and every op together) take under 2 KiB (measured: 505 B).
    assert!(bytes > 100 && bytes < 2 * 1024, "{bytes} B stored");
    let row = unit.row(0);
    assert_eq!(row.len(), 100_000);
    assert_eq!(unit.row(2).len(), 100_000);
    assert!(unit.row(1).is_empty());
    let p50 = row.value_at_percentile(50.0);
    assert!((49_000..=52_000).contains(&p50), "p50 {p50}");
    // A row that is not there reads as empty.
    assert!(unit.row(9).is_empty());
}

#[test]
fn a_frozen_series_keeps_the_seconds_it_had_stored() {
    let mut b = Batches::new();
    for i in 0..25u64 {
        b.second(i, &second(100, 1000));
    }
    // 24 stored, the 25th held: freezing drops it and every later one.
    b.freeze();
    for i in 25..40u64 {
        b.second(i, &second(900, 9000));
    }
    b.finish(40);
    assert_eq!(b.seconds(), 24);
    assert_eq!(b.rate(100.0).map(|i| i.half_width), Some(0.0));
}

#[test]
fn a_percentiles_interval_is_taken_from_its_rows_batches() {
    let mut b = Batches::new();
    for i in 0..40u64 {
        // Row 0 alternates between two latencies second by second.
        b.second(i, &second(50, if i % 2 == 0 { 1000 } else { 1100 }));
    }
    b.finish(40);
    assert_eq!(b.seconds(), 40);
    let p99 = b.latency(0, 99.0, 1100.0).expect("an interval");
    // Alternating seconds: batches of 2 s or more each hold both latencies,
    // so their p99 is the same and the interval is nil; batches of 1 s are
    // perfectly anti-correlated and qualify too, with a spread of 100 µs.
    assert!(p99.half_width <= 40.0, "{p99:?}");
    // Row 1 had no replies: its percentiles read 0 in every batch.
    assert_eq!(b.latency(1, 99.0, 0.0).map(|i| i.half_width), Some(0.0));
    // The last row is every row together.
    let all = b.latency(2, 50.0, 1000.0).expect("an interval");
    assert!(all.batches >= MIN_BATCHES);
}

#[test]
fn a_percentile_whose_batches_share_one_bucket_is_known_to_half_the_bucket() {
    // 40 seconds of 50 replies, each at `us`.
    let steady = |us: u64| {
        let mut b = Batches::new();
        for i in 0..40u64 {
            b.second(i, &second(50, us));
        }
        b.finish(40);
        b
    };
    // Every batch's p50 is 1000 µs: their spread is 0, but at two
    // significant digits 1000 µs is the bucket of 1000–1003 µs.
    let p50 = steady(1000).latency(0, 50.0, 1000.0).expect("an interval");
    assert_eq!(p50.half_width, 2.0, "{p50:?}");
    // At 100 ms the bucket is 512 µs wide.
    let p50 = steady(100_000)
        .latency(0, 50.0, 100_000.0)
        .expect("an interval");
    assert_eq!(p50.half_width, 256.0, "{p50:?}");
    assert!((0.002..0.003).contains(&p50.relative()), "{p50:?}");
}

#[test]
fn the_median_interval_takes_the_order_statistics_binomial_coverage_allows() {
    assert_eq!(median_interval(&[1.0, 2.0, 3.0, 4.0, 5.0]), None);
    // Six runs: only the lowest to the highest holds 95 % (96.9 %).
    let six = [6.0, 1.0, 5.0, 2.0, 4.0, 3.0];
    assert_eq!(median_interval(&six), Some((1.0, 6.0)));
    // Symmetric ranks, coverage from Binomial(n, 1/2): n = 9 gives ranks 2
    // and 8 (96.1 %), n = 10 ranks 2 and 9 (97.9 %), n = 20 ranks 6 and 15
    // (95.9 %), n = 70 ranks 27 and 44 (95.9 %).
    let runs = |n: usize| (1..=n).map(|i| i as f64).collect::<Vec<_>>();
    assert_eq!(median_interval(&runs(9)), Some((2.0, 8.0)));
    assert_eq!(median_interval(&runs(10)), Some((2.0, 9.0)));
    assert_eq!(median_interval(&runs(20)), Some((6.0, 15.0)));
    assert_eq!(median_interval(&runs(70)), Some((27.0, 44.0)));
}
