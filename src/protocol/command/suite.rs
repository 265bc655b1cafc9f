//! redis-benchmark's default tests, by name, with the commands it sends.
//!
//! The commands were read off the wire (`MONITOR`) while Debian's
//! redis-benchmark 7.0 ran `-n 2 -c 1`, with and without `-r 100`, and
//! checked against its source (`src/redis-benchmark.c`): keys are `key:`,
//! `counter:` or `element:` followed by `__rand_int__`, the list, set, hash
//! and sorted set are the single keys `mylist`, `myset`, `myhash`, `myzset`;
//! LRANGE_500 reads 500 elements (0–499); MSET writes 10 keys. ZADD's score
//! is `__rand_int__` only with `-r`: without it redis-benchmark sends the
//! score `0`, since the placeholder's own text is no number and the server
//! would refuse every request. PING_INLINE is sent as an inline command, the
//! rest as RESP arrays. XADD is not in redis-benchmark 7.0's default run
//! (7.2 added it there); kvbench adds it when asked for by name, as `XADD mystream * myfield
//! __data__`.

/// One test of the suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SuiteTest {
    /// The name `-t` takes (lower case), as redis-benchmark spells it.
    pub name: &'static str,
    /// The title redis-benchmark prints and writes to its CSV.
    pub title: &'static str,
    /// The command, with placeholders (see [`crate::protocol::command`]), as sent
    /// with `-r`.
    pub command: &'static str,
    /// The command sent without `-r`, where it differs: a `__rand_int__`
    /// that stands for a number (ZADD's score) cannot stay the
    /// placeholder's text.
    pub without_r: Option<&'static str>,
    /// Sent as an inline command (`PING\r\n`) rather than a RESP array.
    pub inline: bool,
    /// A step that must run first, reported apart (LRANGE's list).
    pub prepare: Option<&'static SuiteTest>,
    /// Replies the witness counts under another command's name
    /// (`cmdstat_ping` for both PINGs): the `INFO commandstats` name.
    pub counted_as: &'static str,
    /// In redis-benchmark's default run (XADD is not).
    pub default: bool,
}

/// redis-benchmark's "LPUSH (needed to benchmark LRANGE)": fills `mylist`
/// before the LRANGE tests.
pub const LRANGE_PREPARE: SuiteTest = SuiteTest {
    name: "lpush",
    title: "LPUSH (needed to benchmark LRANGE)",
    command: "LPUSH mylist __data__",
    without_r: None,
    inline: false,
    prepare: None,
    counted_as: "lpush",
    default: true,
};

const fn test(
    name: &'static str,
    title: &'static str,
    command: &'static str,
    counted_as: &'static str,
) -> SuiteTest {
    SuiteTest {
        name,
        title,
        command,
        without_r: None,
        inline: false,
        prepare: None,
        counted_as,
        default: true,
    }
}

const fn lrange(name: &'static str, title: &'static str, command: &'static str) -> SuiteTest {
    SuiteTest {
        prepare: Some(&LRANGE_PREPARE),
        ..test(name, title, command, "lrange")
    }
}

/// Every test, in redis-benchmark's order.
pub const TESTS: [SuiteTest; 20] = [
    SuiteTest {
        inline: true,
        ..test("ping_inline", "PING_INLINE", "PING", "ping")
    },
    test("ping_mbulk", "PING_MBULK", "PING", "ping"),
    test("set", "SET", "SET key:__rand_int__ __data__", "set"),
    test("get", "GET", "GET key:__rand_int__", "get"),
    test("incr", "INCR", "INCR counter:__rand_int__", "incr"),
    test("lpush", "LPUSH", "LPUSH mylist __data__", "lpush"),
    test("rpush", "RPUSH", "RPUSH mylist __data__", "rpush"),
    test("lpop", "LPOP", "LPOP mylist", "lpop"),
    test("rpop", "RPOP", "RPOP mylist", "rpop"),
    test("sadd", "SADD", "SADD myset element:__rand_int__", "sadd"),
    test(
        "hset",
        "HSET",
        "HSET myhash element:__rand_int__ __data__",
        "hset",
    ),
    test("spop", "SPOP", "SPOP myset", "spop"),
    SuiteTest {
        without_r: Some("ZADD myzset 0 element:__rand_int__"),
        ..test(
            "zadd",
            "ZADD",
            "ZADD myzset __rand_int__ element:__rand_int__",
            "zadd",
        )
    },
    test("zpopmin", "ZPOPMIN", "ZPOPMIN myzset", "zpopmin"),
    lrange(
        "lrange_100",
        "LRANGE_100 (first 100 elements)",
        "LRANGE mylist 0 99",
    ),
    lrange(
        "lrange_300",
        "LRANGE_300 (first 300 elements)",
        "LRANGE mylist 0 299",
    ),
    lrange(
        "lrange_500",
        "LRANGE_500 (first 500 elements)",
        "LRANGE mylist 0 499",
    ),
    lrange(
        "lrange_600",
        "LRANGE_600 (first 600 elements)",
        "LRANGE mylist 0 599",
    ),
    test(
        "mset",
        "MSET (10 keys)",
        "MSET key:__rand_int__ __data__ key:__rand_int__ __data__ key:__rand_int__ __data__ key:__rand_int__ __data__ key:__rand_int__ __data__ key:__rand_int__ __data__ key:__rand_int__ __data__ key:__rand_int__ __data__ key:__rand_int__ __data__ key:__rand_int__ __data__",
        "mset",
    ),
    SuiteTest {
        default: false,
        ..test("xadd", "XADD", "XADD mystream * myfield __data__", "xadd")
    },
];

impl SuiteTest {
    /// The command sent: [`SuiteTest::command`] when `__rand_int__` draws
    /// numbers (`-r`), otherwise [`SuiteTest::without_r`] where the test has
    /// one.
    pub fn command_sent(&self, rand_int_drawn: bool) -> &'static str {
        match self.without_r {
            Some(literal) if !rand_int_drawn => literal,
            _ => self.command,
        }
    }
}

/// A `-t` name that is neither a test nor a group.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{name}' is not a test; choose from {} (or the groups ping, lrange)",
    known()
)]
pub struct UnknownTest {
    /// The name, lower-cased.
    pub name: String,
}

/// Every test's name, comma-separated.
fn known() -> String {
    TESTS.iter().map(|t| t.name).collect::<Vec<_>>().join(",")
}

/// The tests `-t LIST` selects, in the suite's order (as redis-benchmark
/// runs them, whatever the order of the list). Names are case-insensitive;
/// redis-benchmark's group names also work: `ping` (both PINGs) and `lrange`
/// (all four LRANGEs). An empty list selects the default run.
pub fn select(list: &str) -> Result<Vec<&'static SuiteTest>, UnknownTest> {
    let wanted: Vec<String> = list
        .split(',')
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .collect();
    if wanted.is_empty() {
        return Ok(TESTS.iter().filter(|t| t.default).collect());
    }
    for name in &wanted {
        let known = TESTS
            .iter()
            .any(|t| t.name == name || group_of(t.name) == Some(name.as_str()));
        if !known {
            return Err(UnknownTest { name: name.clone() });
        }
    }
    Ok(TESTS
        .iter()
        .filter(|t| {
            wanted
                .iter()
                .any(|w| t.name == w || group_of(t.name) == Some(w.as_str()))
        })
        .collect())
}

/// `ping` for the PINGs, `lrange` for the LRANGEs.
fn group_of(name: &str) -> Option<&'static str> {
    if name.starts_with("ping_") {
        Some("ping")
    } else if name.starts_with("lrange_") {
        Some("lrange")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{TESTS, select};
    use crate::protocol::command::{CommandSpec, Part};

    #[test]
    fn every_test_parses_and_is_counted_under_its_command() {
        for t in &TESTS {
            for drawn in [true, false] {
                let c = CommandSpec::parse(t.command_sent(drawn)).unwrap();
                assert_eq!(c.name().to_ascii_lowercase(), t.counted_as, "{}", t.name);
            }
        }
    }

    #[test]
    fn zadd_scores_zero_without_r_and_a_drawn_number_with_it() {
        let zadd = TESTS.iter().find(|t| t.name == "zadd").unwrap();
        assert_eq!(
            zadd.command_sent(false),
            "ZADD myzset 0 element:__rand_int__"
        );
        assert_eq!(
            zadd.command_sent(true),
            "ZADD myzset __rand_int__ element:__rand_int__"
        );
    }

    #[test]
    fn without_r_no_rand_int_stands_for_a_number() {
        // Without -r `__rand_int__` is sent as its own text: inside a key or
        // member name (`key:__rand_int__`) that is a name like any other, but
        // an argument that is the placeholder alone stands for a number
        // (a score, a count) and the server would refuse the text.
        for t in &TESTS {
            let c = CommandSpec::parse(t.command_sent(false)).unwrap();
            for arg in &c.args {
                assert_ne!(arg, &vec![Part::RandInt], "{}: {}", t.name, c.text);
            }
            // The two forms differ only where a number is needed.
            let drawn = CommandSpec::parse(t.command_sent(true)).unwrap();
            assert_eq!(drawn.args.len(), c.args.len(), "{}", t.name);
        }
    }

    #[test]
    fn mset_writes_ten_keys() {
        let mset = TESTS.iter().find(|t| t.name == "mset").unwrap();
        let c = CommandSpec::parse(mset.command).unwrap();
        assert_eq!(c.count(&Part::RandInt), 10);
        assert_eq!(c.count(&Part::Data), 10);
    }

    #[test]
    fn the_default_run_is_redis_benchmarks_tests_in_order_lpush_for_lrange_apart() {
        let titles: Vec<&str> = select("").unwrap().iter().map(|t| t.title).collect();
        assert_eq!(titles.len(), 19);
        assert_eq!(titles[0], "PING_INLINE");
        assert_eq!(titles[14], "LRANGE_100 (first 100 elements)");
        assert_eq!(titles[18], "MSET (10 keys)");
    }

    #[test]
    fn selection_is_case_insensitive_in_suite_order_with_groups() {
        let names: Vec<&str> = select("GET,set, lrange")
            .unwrap()
            .iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(
            names,
            [
                "set",
                "get",
                "lrange_100",
                "lrange_300",
                "lrange_500",
                "lrange_600"
            ]
        );
        let xadd: Vec<&str> = select("xadd").unwrap().iter().map(|t| t.name).collect();
        assert_eq!(xadd, ["xadd"]);
        let e = select("set,hgetall").unwrap_err().to_string();
        assert!(
            e.contains("'hgetall' is not a test") && e.contains("lrange_600"),
            "{e}"
        );
    }
}
