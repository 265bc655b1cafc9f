//! Flag values that are more than a number: `-n` (a count or `allkeys`) and the
//! sweepable numeric flags (a number or a comma list, in a config file also a
//! TOML array), and `--io-engine`'s choice.

use std::str::FromStr;

use clap::ValueEnum;
use serde::{Deserialize, Serialize};

/// `-n/--requests`: a number per client, or `allkeys` (cover the key range once).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestsArg {
    /// Requests per client connection.
    Count(u64),
    /// A word; only `allkeys` is valid, which [`crate::config`] checks.
    Word(String),
}

impl FromStr for RequestsArg {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.parse::<u64>() {
            Ok(n) => RequestsArg::Count(n),
            Err(_) => RequestsArg::Word(s.to_string()),
        })
    }
}

/// A number, or a comma-separated list of numbers that sweeps the flag
/// (`--pipeline 1,4,16,64`); in a config file also a TOML array.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, try_from = "NumListRepr")]
pub enum NumList {
    /// One value.
    One(u64),
    /// Several values, in order.
    Many(Vec<u64>),
    /// Text form, as typed in a config file: `"1,4,16"`.
    Text(String),
}

/// What a config file may hold for a [`NumList`]; checked on the way in, so a
/// bad list is reported with its line and column.
#[derive(Deserialize)]
#[serde(untagged)]
enum NumListRepr {
    One(u64),
    Many(Vec<u64>),
    Text(String),
}

impl TryFrom<NumListRepr> for NumList {
    type Error = NumListError;

    fn try_from(repr: NumListRepr) -> Result<Self, Self::Error> {
        match repr {
            NumListRepr::One(n) => Ok(NumList::One(n)),
            NumListRepr::Many(v) => Ok(NumList::Many(v)),
            NumListRepr::Text(t) => t.parse(),
        }
    }
}

/// Why a comma list of whole numbers is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NumListError {
    /// `[]` in a config file.
    #[error("the list is empty")]
    Empty,
    /// A part that is not a whole number, and the list it is in.
    #[error("'{part}' in '{list}' is not a whole number")]
    NotANumber {
        /// The part, as written.
        part: String,
        /// The whole list.
        list: String,
    },
}

impl NumList {
    /// The values, in order; an error names the part that is not a number.
    pub fn values(&self) -> Result<Vec<u64>, NumListError> {
        match self {
            NumList::One(n) => Ok(vec![*n]),
            NumList::Many(v) if v.is_empty() => Err(NumListError::Empty),
            NumList::Many(v) => Ok(v.clone()),
            NumList::Text(t) => t
                .split(',')
                .map(|p| {
                    p.trim()
                        .parse::<u64>()
                        .map_err(|_| NumListError::NotANumber {
                            part: p.to_string(),
                            list: t.clone(),
                        })
                })
                .collect(),
        }
    }
}

impl FromStr for NumList {
    type Err = NumListError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let list = NumList::Text(s.to_string());
        let values = list.values()?;
        Ok(match values.as_slice() {
            [one] => NumList::One(*one),
            _ => NumList::Many(values),
        })
    }
}

/// A config file's value of a repeatable flag (`--command`, `--command-ratio`):
/// one value or an array, of strings or whole numbers (`command-ratio = [1, 10]`),
/// read as the strings the command line would give.
pub fn one_or_many<'de, D>(d: D) -> Result<Option<Vec<String>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Item {
        Text(String),
        Number(u64),
    }
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(Item),
        Many(Vec<Item>),
    }
    let text = |item: Item| match item {
        Item::Text(s) => s,
        Item::Number(n) => n.to_string(),
    };
    Ok(Option::<OneOrMany>::deserialize(d)?.map(|v| match v {
        OneOrMany::One(item) => vec![text(item)],
        OneOrMany::Many(items) => items.into_iter().map(text).collect(),
    }))
}

/// `--warmup-time` and `--test-time`: seconds, or `auto` (a warm-up until
/// the per-second throughput and p99 are steady, at most `--warmup-max`; a
/// run until its figures are as precise as `--target-precision` asks, at
/// most `--max-test-time`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SecsOrAuto {
    /// A fixed length, seconds.
    Secs(f64),
    /// `auto`.
    #[serde(serialize_with = "auto_word")]
    Auto,
}

fn auto_word<S: serde::Serializer>(s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str("auto")
}

impl FromStr for SecsOrAuto {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().eq_ignore_ascii_case("auto") {
            return Ok(SecsOrAuto::Auto);
        }
        s.trim()
            .parse::<f64>()
            .map(SecsOrAuto::Secs)
            .map_err(|_| format!("'{s}' is neither seconds nor auto"))
    }
}

impl<'de> Deserialize<'de> for SecsOrAuto {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = SecsOrAuto;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("seconds or \"auto\"")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<SecsOrAuto, E> {
                Ok(SecsOrAuto::Secs(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<SecsOrAuto, E> {
                Ok(SecsOrAuto::Secs(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<SecsOrAuto, E> {
                Ok(SecsOrAuto::Secs(v as f64))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<SecsOrAuto, E> {
                if v.eq_ignore_ascii_case("auto") {
                    Ok(SecsOrAuto::Auto)
                } else {
                    // "invalid type: string", which the config file's
                    // message turns into advice for a unit.
                    Err(E::invalid_type(serde::de::Unexpected::Str(v), &self))
                }
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// `-x`: a number of runs, or `auto` (until the median run is known as well
/// as `--target-precision` asks, at most `--max-run-count`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum RunsArg {
    /// This many runs.
    Count(u32),
    /// `auto`.
    #[serde(serialize_with = "auto_word")]
    Auto,
}

impl FromStr for RunsArg {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().eq_ignore_ascii_case("auto") {
            return Ok(RunsArg::Auto);
        }
        s.trim()
            .parse::<u32>()
            .map(RunsArg::Count)
            .map_err(|_| format!("'{s}' is neither a number of runs nor auto"))
    }
}

impl<'de> Deserialize<'de> for RunsArg {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = RunsArg;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number of runs or \"auto\"")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<RunsArg, E> {
                u32::try_from(v)
                    .map(RunsArg::Count)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<RunsArg, E> {
                u32::try_from(v)
                    .map(RunsArg::Count)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RunsArg, E> {
                v.parse()
                    .map_err(|_| E::invalid_type(serde::de::Unexpected::Str(v), &self))
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// How a worker thread drives its connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IoEngine {
    /// mio over epoll: readiness, then one read and one write system call
    /// per connection and wake-up.
    #[default]
    Epoll,
    /// io_uring: every connection's sends and multishot receives batched
    /// into one system call per wake-up (Linux 6.0 or later; plain TCP and
    /// UNIX sockets, no TLS yet).
    Uring,
}

impl IoEngine {
    /// The name `--io-engine` takes and the report shows.
    pub fn name(self) -> &'static str {
        match self {
            IoEngine::Epoll => "epoll",
            IoEngine::Uring => "uring",
        }
    }
}
