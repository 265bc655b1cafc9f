//! Advice for a seconds flag given a unit (`--test-time 10s`, `--warmup-time 1m`):
//! memtier's durations are plain seconds, so kvbench's are too, and the
//! message gives the value converted instead of "invalid float literal".

/// Units people write after a duration, with their length in seconds.
const UNITS: &[(&[&str], f64)] = &[
    (&["us", "µs"], 1e-6),
    (&["ms"], 1e-3),
    (&["s", "sec", "secs", "second", "seconds"], 1.0),
    (&["m", "min", "mins", "minute", "minutes"], 60.0),
    (&["h", "hr", "hrs", "hour", "hours"], 3600.0),
    (&["d", "day", "days"], 86_400.0),
];

/// The message for `value` given to the seconds flag `flag`, if `value` is a
/// number followed by a unit; `None` for anything else (clap's own message
/// then stands).
pub(super) fn with_unit_advice(flag: &str, value: &str) -> Option<String> {
    let seconds = seconds_for(value)?;
    let value = value.trim();
    Some(format!(
        "takes seconds without a unit (got '{value}'); give seconds, e.g. {flag} {seconds}"
    ))
}

/// What to write instead of `value` when it is a number followed by a unit
/// (`"1m"` → `"60"`; `"10"` as a plain example when the unit is not one we
/// know); `None` when `value` is not a number and a unit.
pub fn seconds_for(value: &str) -> Option<String> {
    let value = value.trim();
    let split = value.find(|c: char| c.is_alphabetic() || c == 'µ')?;
    let (number, unit) = value.split_at(split);
    let number: f64 = number.trim().parse().ok().filter(|n: &f64| n.is_finite())?;
    let unit = unit.trim().to_lowercase();
    if !unit.chars().all(char::is_alphabetic) {
        return None;
    }
    let factor = UNITS
        .iter()
        .find(|(names, _)| names.contains(&unit.as_str()))
        .map(|(_, factor)| *factor);
    Some(factor.map_or("10".to_string(), |f| seconds_text(number * f)))
}

/// Seconds as a short decimal: whole seconds without a point, fractions
/// rounded to the microsecond (so 100ms reads 0.1, not 0.1000000000000000055).
fn seconds_text(secs: f64) -> String {
    let micros = (secs * 1e6).round() / 1e6;
    micros.to_string()
}

#[cfg(test)]
mod tests {
    use super::with_unit_advice;

    #[test]
    fn a_unit_is_converted_to_seconds_in_the_advice() {
        for (value, advice) in [
            ("10s", "--test-time 10"),
            ("1m", "--test-time 60"),
            ("1.5 min", "--test-time 90"),
            ("100ms", "--test-time 0.1"),
            ("2h", "--test-time 7200"),
            ("3SEC", "--test-time 3"),
        ] {
            let message = with_unit_advice("--test-time", value).unwrap();
            assert!(
                message.ends_with(&format!("e.g. {advice}")),
                "{value}: {message}"
            );
            assert!(message.contains(value), "{message}");
        }
    }

    #[test]
    fn an_unknown_unit_still_asks_for_seconds() {
        let message = with_unit_advice("--warmup-time", "5 fortnights").unwrap();
        assert!(
            message.ends_with("give seconds, e.g. --warmup-time 10"),
            "{message}"
        );
    }

    #[test]
    fn values_that_are_not_a_number_and_a_unit_are_left_to_clap() {
        for value in ["abc", "s", "", "1e3e", "--", "inf s"] {
            assert_eq!(with_unit_advice("--test-time", value), None, "{value}");
        }
    }
}
