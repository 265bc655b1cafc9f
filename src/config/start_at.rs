//! `--start-at`, `--start-tolerance` and `--run-gap`: the wall-clock instant
//! at which every shard starts its first phase, and the fixed boundaries of
//! the later ones (docs/scale-out.md, "Aligned start").
//!
//! `T` is epoch seconds (`1767225600`, fractions allowed), RFC 3339 in UTC or
//! with an offset (`2026-12-01T10:30:00Z`, `…+02:00`), or `+30s` / `+2m` /
//! `+1h` from now. RFC 3339 is parsed here by hand: it is one fixed layout,
//! and a civil date turns into days with Hinnant's `days_from_civil`.
//! `T` may also be `barrier`: the shards agree on it at run time
//! ([`barrier`]).

pub mod barrier;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::cli::Args;
use crate::config::{MAX_SECONDS, seconds};
use crate::error::UsageError;

pub use barrier::{Barrier, RunIdSource};

/// When the first phase starts and how the later ones follow.
#[derive(Debug, Clone, PartialEq)]
pub struct StartAt {
    /// The planned start of the first aligned phase, or how it is agreed.
    pub point: StartPoint,
    /// `--start-tolerance`: how late a shard may reach a planned start.
    pub tolerance: Duration,
    /// `--run-gap`: the pause between one run's planned end and the next
    /// run's planned start, which covers the drain and the server's evidence.
    pub run_gap: Duration,
}

/// How the planned start of the first aligned phase is known.
#[derive(Debug, Clone, PartialEq)]
pub enum StartPoint {
    /// Given: `--start-at T`.
    At(SystemTime),
    /// `--start-at barrier`: published on the target server by the last
    /// shard to arrive.
    Barrier(Barrier),
}

impl crate::config::Config {
    /// This configuration starting at `start` (a capacity try's own
    /// barrier on a fleet).
    pub fn starting_at(&self, start: StartAt) -> crate::config::Config {
        let mut c = self.clone();
        c.start_at = Some(start);
        c
    }
}

impl StartAt {
    /// `T` when it was given; `None` until a barrier publishes it.
    pub fn given(&self) -> Option<SystemTime> {
        match self.point {
            StartPoint::At(at) => Some(at),
            StartPoint::Barrier(_) => None,
        }
    }

    /// The barrier, with `--start-at barrier`.
    pub fn barrier(&self) -> Option<&Barrier> {
        match &self.point {
            StartPoint::Barrier(b) => Some(b),
            StartPoint::At(_) => None,
        }
    }
}

/// `--start-tolerance`'s default, seconds.
pub const DEFAULT_TOLERANCE_S: f64 = 1.0;
/// `--run-gap`'s default, seconds: the drain's limit (5 s) is rarely reached,
/// and INFO, SLOWLOG and the report take milliseconds.
pub const DEFAULT_RUN_GAP_S: f64 = 5.0;

const HELP: &str = "give epoch seconds (1767225600), RFC 3339 (2026-12-01T10:30:00Z), a delay from now (+30s, +2m) or barrier";

/// Parses `T` as given to `--start-at`, relative forms counted from `now`.
pub fn parse_start_at(text: &str, now: SystemTime) -> Result<SystemTime, UsageError> {
    let bad = || UsageError::new("--start-at", format!("'{text}' is not a time; {HELP}"));
    let text = text.trim();
    if let Some(delay) = text.strip_prefix('+') {
        let (number, unit) = delay.split_at(
            delay
                .find(|c: char| c.is_ascii_alphabetic())
                .unwrap_or(delay.len()),
        );
        let scale = match unit {
            "" | "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(bad()),
        };
        let secs: f64 = number.parse().map_err(|_| bad())?;
        return offset(now, secs * scale).ok_or_else(bad);
    }
    if text.contains('T') || text.contains('t') {
        return parse_rfc3339(text).ok_or_else(bad);
    }
    let secs: f64 = text.parse().map_err(|_| bad())?;
    offset(UNIX_EPOCH, secs).ok_or_else(bad)
}

fn offset(base: SystemTime, secs: f64) -> Option<SystemTime> {
    // Beyond a century either way is a typo, not a plan.
    if !secs.is_finite() || !(0.0..=1e10).contains(&secs) {
        return None;
    }
    base.checked_add(Duration::from_secs_f64(secs))
}

/// `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`.
fn parse_rfc3339(text: &str) -> Option<SystemTime> {
    let b = text.as_bytes();
    let digits = |from: usize, len: usize| -> Option<i64> {
        let s = text.get(from..from + len)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    let seps = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
    if b.len() < 20 || seps.iter().any(|&(i, c)| b[i] != c) || !matches!(b[10], b'T' | b't') {
        return None;
    }
    let (year, month, day) = (digits(0, 4)?, digits(5, 2)?, digits(8, 2)?);
    let (hour, minute, second) = (digits(11, 2)?, digits(14, 2)?, digits(17, 2)?);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut rest = &text[19..];
    let mut fraction = 0.0;
    if let Some(after) = rest.strip_prefix('.') {
        let end = after
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after.len());
        if end == 0 {
            return None;
        }
        fraction = format!("0.{}", &after[..end]).parse().ok()?;
        rest = &after[end..];
    }
    let zone_s = match rest {
        "Z" | "z" => 0,
        _ => {
            let rb = rest.as_bytes();
            if rb.len() != 6 || rb[3] != b':' || !matches!(rb[0], b'+' | b'-') {
                return None;
            }
            let h: i64 = rest[1..3].parse().ok()?;
            let m: i64 = rest[4..6].parse().ok()?;
            let sign = if rb[0] == b'-' { -1 } else { 1 };
            sign * (h * 3600 + m * 60)
        }
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second - zone_s;
    let whole = u64::try_from(secs).ok()?;
    UNIX_EPOCH.checked_add(Duration::from_secs(whole) + Duration::from_secs_f64(fraction))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant,
/// "chrono-Compatible Low-Level Date Algorithms").
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Refuses a start already past (more than `tolerance` before `now`): every
/// shard would start late, and the windows would not match.
pub fn check_not_past(
    at: SystemTime,
    now: SystemTime,
    tolerance: Duration,
) -> Result<(), UsageError> {
    match now.duration_since(at) {
        Ok(ago) if ago > tolerance => Err(UsageError::new(
            "--start-at",
            format!(
                "is {:.1} s in the past (more than --start-tolerance {:.1} s); choose a later time, e.g. +30s",
                ago.as_secs_f64(),
                tolerance.as_secs_f64()
            ),
        )),
        _ => Ok(()),
    }
}

/// Refuses a start further ahead than any other time flag may reach
/// ([`MAX_SECONDS`], about 116 days): `2999-01-01T00:00:00Z` is a typo, and
/// waiting for it would look like a hang.
pub fn check_not_too_far(at: SystemTime, now: SystemTime) -> Result<(), UsageError> {
    match at.duration_since(now) {
        Ok(ahead) if ahead.as_secs_f64() > MAX_SECONDS => Err(UsageError::new(
            "--start-at",
            format!(
                "is {:.0} days ahead, more than the {:.0} days any time flag may reach; give a nearer time, e.g. +30s",
                ahead.as_secs_f64() / 86_400.0,
                MAX_SECONDS / 86_400.0
            ),
        )),
        _ => Ok(()),
    }
}

/// The longest suffix a sweep's cell adds to the run id (`.cell-` and up
/// to five digits).
const CELL_SUFFIX_MAX: usize = 11;

impl StartAt {
    /// The start of a sweep's cell `index`: its own barrier, under the run
    /// id with `.cell-<index>` (so one cell's keys, or a shard still in the
    /// last cell's barrier, never count in the next one's).
    pub fn for_cell(&self, index: usize) -> StartAt {
        let mut start = self.clone();
        if let StartPoint::Barrier(b) = &mut start.point {
            b.run_id = format!("{}.cell-{index}", b.run_id);
        }
        start
    }
}

/// `--start-at` with its companions; `None` without `--start-at`.
/// `sweep` is true for a sweep, whose cells have no fixed boundaries.
pub(super) fn build_start(a: &Args, sweep: bool) -> Result<Option<StartAt>, UsageError> {
    build_start_in(a, sweep, &|name| std::env::var(name).ok())
}

/// [`build_start`] with the environment read through `env`.
fn build_start_in(
    a: &Args,
    sweep: bool,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<StartAt>, UsageError> {
    let is_barrier = a
        .start_at
        .as_deref()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("barrier"));
    for (flag, given) in [
        ("--run-id", a.run_id.is_some()),
        ("--barrier-timeout", a.barrier_timeout.is_some()),
    ] {
        if given && !is_barrier {
            return Err(UsageError::new(
                flag,
                "only applies with --start-at barrier; add it or remove this flag",
            ));
        }
    }
    let Some(text) = a.start_at.as_deref() else {
        for (flag, given) in [
            ("--start-tolerance", a.start_tolerance.is_some()),
            ("--run-gap", a.run_gap.is_some()),
        ] {
            if given {
                return Err(UsageError::new(
                    flag,
                    "only applies with --start-at; add --start-at T or remove it",
                ));
            }
        }
        return Ok(None);
    };
    // A sweep's cells have no fixed boundaries, so no one T can place them;
    // a barrier can: the shards meet again before every cell.
    if sweep && !is_barrier {
        return Err(UsageError::new(
            "--start-at",
            "aligns one benchmark's phases, not a sweep's cells; give --start-at barrier (the shards meet before each cell), or run each cell as its own benchmark",
        ));
    }
    let tolerance = seconds(
        "--start-tolerance",
        a.start_tolerance.unwrap_or(DEFAULT_TOLERANCE_S),
        false,
    )?;
    let run_gap = seconds("--run-gap", a.run_gap.unwrap_or(DEFAULT_RUN_GAP_S), true)?;
    let point = if is_barrier {
        let (run_id, source) = barrier::run_id(a.run_id.as_deref(), env)?;
        if sweep && run_id.len() + CELL_SUFFIX_MAX > barrier::MAX_RUN_ID {
            return Err(UsageError::new(
                "--run-id",
                format!(
                    "a sweep's cells meet under the run id plus a cell suffix, so it may have at most {} characters; give a shorter --run-id",
                    barrier::MAX_RUN_ID - CELL_SUFFIX_MAX
                ),
            ));
        }
        let timeout = seconds(
            "--barrier-timeout",
            a.barrier_timeout
                .unwrap_or(barrier::DEFAULT_BARRIER_TIMEOUT_S),
            false,
        )?;
        StartPoint::Barrier(Barrier {
            run_id,
            source,
            timeout,
        })
    } else {
        let now = SystemTime::now();
        let at = parse_start_at(text, now)?;
        check_not_past(at, now, tolerance)?;
        check_not_too_far(at, now)?;
        StartPoint::At(at)
    };
    Ok(Some(StartAt {
        point,
        tolerance,
        run_gap,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn epoch(secs: f64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs_f64(secs)
    }

    #[test]
    fn every_form_of_t_is_read() {
        let now = epoch(1_000.0);
        for (text, expected) in [
            ("1767225600", epoch(1_767_225_600.0)),
            ("1767225600.25", epoch(1_767_225_600.25)),
            ("2026-01-01T00:00:00Z", epoch(1_767_225_600.0)),
            ("2026-12-01T10:30:00Z", epoch(1_796_121_000.0)),
            ("2026-12-01T12:30:00.5+02:00", epoch(1_796_121_000.5)),
            ("2000-02-29T00:00:00-01:00", epoch(951_786_000.0)),
            ("+30s", epoch(1_030.0)),
            ("+30", epoch(1_030.0)),
            ("+2m", epoch(1_120.0)),
            ("+1.5h", epoch(6_400.0)),
        ] {
            let got = parse_start_at(text, now).unwrap();
            let diff = got
                .duration_since(expected)
                .or_else(|_| expected.duration_since(got))
                .unwrap();
            assert!(
                diff < Duration::from_micros(1),
                "{text}: {got:?} vs {expected:?}"
            );
        }
    }

    #[test]
    fn malformed_times_name_the_flag() {
        for text in [
            "",
            "soon",
            "+",
            "+5d",
            "-5",
            "2026-13-01T00:00:00Z",
            "2026-12-01T10:30:00",
            "2026-12-01 10:30:00Z",
            "2026-12-01T10:30:00+0200",
            "1e99",
            "+-3s",
        ] {
            let e = parse_start_at(text, epoch(0.0)).unwrap_err();
            assert_eq!(e.flag, "--start-at", "{text}");
        }
    }

    #[test]
    fn barrier_takes_a_run_id_and_its_flags_need_it() {
        let env = |_: &str| None;
        let mut a = Args {
            start_at: Some("barrier".into()),
            run_id: Some("r1".into()),
            barrier_timeout: Some(5.0),
            ..Args::default()
        };
        let start = build_start_in(&a, false, &env).unwrap().unwrap();
        let b = start.barrier().unwrap();
        assert_eq!(
            (b.run_id.as_str(), b.timeout),
            ("r1", Duration::from_secs(5))
        );
        assert_eq!(start.given(), None);
        a.run_id = None;
        assert_eq!(
            build_start_in(&a, false, &env).unwrap_err().flag,
            "--run-id"
        );
        a.run_id = Some("r1".into());
        a.barrier_timeout = Some(0.0);
        let e = build_start_in(&a, false, &env).unwrap_err();
        assert_eq!(e.flag, "--barrier-timeout");
        a.start_at = Some("+30s".into());
        a.barrier_timeout = None;
        assert_eq!(
            build_start_in(&a, false, &env).unwrap_err().flag,
            "--run-id"
        );
        a.run_id = None;
        a.barrier_timeout = Some(3.0);
        let e = build_start_in(&a, false, &env).unwrap_err();
        assert_eq!(e.flag, "--barrier-timeout");
    }

    #[test]
    fn a_past_start_is_refused_beyond_the_tolerance() {
        let tolerance = Duration::from_secs(1);
        let now = epoch(100.0);
        assert!(check_not_past(epoch(99.5), now, tolerance).is_ok());
        assert!(check_not_past(epoch(200.0), now, tolerance).is_ok());
        let e = check_not_past(epoch(90.0), now, tolerance).unwrap_err();
        assert!(e.message.contains("10.0 s in the past"), "{e}");
    }

    #[test]
    fn a_start_further_than_any_time_flag_reaches_is_refused() {
        let now = epoch(100.0);
        assert!(check_not_too_far(epoch(100.0 + MAX_SECONDS), now).is_ok());
        let e = check_not_too_far(epoch(101.0 + MAX_SECONDS), now).unwrap_err();
        assert!(e.message.contains("116 days ahead"), "{e}");
        // 2999 from 2026: about 355 000 days.
        let far = parse_start_at("2999-01-01T00:00:00Z", epoch(1_796_000_000.0)).unwrap();
        assert!(check_not_too_far(far, epoch(1_796_000_000.0)).is_err());
    }
}
