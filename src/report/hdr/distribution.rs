//! The `.txt` percentile distribution, as memtier writes it through
//! HdrHistogram_c's `hdr_percentiles_print(h, file, 10, 1000.0, CLASSIC)`:
//! the rows come from C's percentile iterator, reproduced step for step (the
//! Rust crate's quantile iterator takes other steps and rounds the last digit
//! of some percentiles the other way).

use std::f64::consts::LN_2;
use std::fmt::Write as _;

use hdrhistogram::Histogram;

/// Percentile steps per halving of the distance to 100 %: memtier's (5 %,
/// then 2.5 %, 1.25 %, … as its files show).
const TICKS_PER_HALF_DISTANCE: f64 = 10.0;

/// Values are µs; the file shows ms.
const VALUE_SCALE: f64 = 1000.0;

/// One row: the highest value equivalent to the row's bucket, the percentile
/// reached (in %), and the count up to and including the bucket.
struct Row {
    value: u64,
    percent: f64,
    total: u64,
}

/// HdrHistogram_c's percentile iteration (`hdr_iter_percentile_init` and
/// `percentile_iter_next`): a row each time the cumulative percentile reaches
/// the next reporting step (several rows for one bucket when it spans several
/// steps), the step halving as the distance to 100 % halves; once every
/// value is counted, one last row at 100 %.
fn percentile_rows(h: &Histogram<u64>) -> Vec<Row> {
    let total = h.len();
    let mut rows = Vec::new();
    let mut next_percent = 0.0_f64;
    let mut last_value = 0;
    let mut cumulative = 0u64;
    for v in h.iter_recorded() {
        cumulative += v.count_at_value();
        let value = h.highest_equivalent(v.value_iterated_to());
        let current = 100.0 * cumulative as f64 / total as f64;
        while next_percent <= current && next_percent < 100.0 {
            rows.push(Row {
                value,
                percent: next_percent,
                total: cumulative,
            });
            last_value = value;
            // C: (int64_t)(log(100 / (100.0 - p)) / log(2)) + 1, then
            // ticks × 2^that; the products are powers of two times 10, exact
            // in an f64 as in C's int64.
            let halvings = ((100.0 / (100.0 - next_percent)).ln() / LN_2) as i32 + 1;
            next_percent += 100.0 / (TICKS_PER_HALF_DISTANCE * 2f64.powi(halvings));
            if cumulative >= total {
                // C checks for values left before each row: none are.
                break;
            }
        }
        if cumulative >= total {
            break;
        }
    }
    rows.push(Row {
        value: last_value,
        percent: 100.0,
        total: cumulative,
    });
    rows
}

/// memtier's percentile distribution (HdrHistogram's classic output): values in
/// ms (the µs histogram scaled by 1000) with two decimals, ten percentile steps
/// per halving distance, the last row at percentile 1 with `inf`, and a footer
/// with mean, standard deviation, max and total count.
pub fn percentile_distribution(h: &Histogram<u64>) -> String {
    let mut out = format!(
        "{:>12} {:>12} {:>12} {:>12}\n\n",
        "Value", "Percentile", "TotalCount", "1/(1-Percentile)"
    );
    for row in percentile_rows(h) {
        let value = row.value as f64 / VALUE_SCALE;
        let q = row.percent / 100.0;
        // 1/(1-1) is inf in C as in Rust, and both print it as "inf".
        let inverse = 1.0 / (1.0 - q);
        let _ = writeln!(out, "{value:12.2} {q:12.6} {:12} {inverse:12.2}", row.total);
    }
    let (mean, stdev, max) = if h.is_empty() {
        (0.0, 0.0, 0.0)
    } else {
        (h.mean(), h.stdev(), h.max() as f64)
    };
    let _ = writeln!(
        out,
        "#[Mean    = {:12.3}, StdDeviation   = {:12.3}]",
        mean / VALUE_SCALE,
        stdev / VALUE_SCALE
    );
    let _ = writeln!(
        out,
        "#[Max     = {:12.3}, Total count    = {:12}]",
        max / VALUE_SCALE,
        h.len()
    );
    // The counts array holds (buckets + 1) half sub-buckets, so this is the
    // sub-bucket count HdrHistogram prints (2048 at 3 significant digits).
    let sub_buckets = 2 * h.distinct_values() / (usize::from(h.buckets()) + 1);
    let _ = writeln!(
        out,
        "#[Buckets = {:12}, SubBuckets     = {:12}]",
        h.buckets(),
        sub_buckets
    );
    out
}
