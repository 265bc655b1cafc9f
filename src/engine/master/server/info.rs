//! `INFO` text, parsed into fields, with typed accessors for what kvbench uses.

use std::collections::BTreeMap;
use std::time::SystemTime;

/// Which server the evidence came from: the fields a report can show differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Software {
    /// Redis (or a server answering its INFO).
    #[default]
    Redis,
    /// memcached, read through its `stats` (see [`crate::engine::master::server::memcached`]).
    Memcached,
}

/// One `INFO all` reply: `field → value` over all sections.
#[derive(Debug, Clone, PartialEq)]
pub struct Info {
    /// The server the fields came from.
    pub software: Software,
    /// Every `name:value` line (section headers and blank lines dropped).
    pub fields: BTreeMap<String, String>,
    /// The section (`Server`, `Memory`, ...) each field came from.
    pub section_of: BTreeMap<String, String>,
    /// When it was read.
    pub taken_at: SystemTime,
}

impl Info {
    /// Parses INFO's `# Section` headers and `name:value` lines.
    pub fn parse(text: &str, taken_at: SystemTime) -> Info {
        let mut fields = BTreeMap::new();
        let mut section_of = BTreeMap::new();
        let mut section = String::new();
        for line in text.lines().map(str::trim) {
            if let Some(name) = line.strip_prefix('#') {
                section = name.trim().to_string();
            } else if let Some((k, v)) = line.split_once(':') {
                fields.insert(k.to_string(), v.to_string());
                section_of.insert(k.to_string(), section.clone());
            }
        }
        Info {
            software: Software::Redis,
            fields,
            section_of,
            taken_at,
        }
    }

    /// The fields of the named sections, grouped by section, numbers as numbers.
    pub fn sections_json(&self, wanted: &[&str]) -> serde_json::Value {
        let mut out = serde_json::Map::new();
        for (field, value) in &self.fields {
            let Some(section) = self.section_of.get(field) else {
                continue;
            };
            if !wanted.iter().any(|w| w.eq_ignore_ascii_case(section)) {
                continue;
            }
            let entry = out
                .entry(section.to_ascii_lowercase())
                .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
            if let serde_json::Value::Object(m) = entry {
                m.insert(field.clone(), typed(value));
            }
        }
        serde_json::Value::Object(out)
    }

    /// The inverse of [`Info::sections_json`], for a report read back (the
    /// merge judges a set's counts on its shards' INFO): numbers become text
    /// again, and a reply with memcached's `cmd_get` reads as memcached's.
    pub fn from_sections_json(sections: &serde_json::Map<String, serde_json::Value>) -> Info {
        let mut info = Info::parse("", SystemTime::UNIX_EPOCH);
        for (section, fields) in sections {
            for (field, value) in fields.as_object().into_iter().flatten() {
                let text = match value {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                info.fields.insert(field.clone(), text);
                info.section_of.insert(field.clone(), section.clone());
            }
        }
        if info.fields.contains_key("cmd_get") {
            info.software = Software::Memcached;
        }
        info
    }

    /// A field's text.
    pub fn get(&self, field: &str) -> Option<&str> {
        self.fields.get(field).map(String::as_str)
    }

    /// An integer field.
    pub fn u64(&self, field: &str) -> Option<u64> {
        self.get(field)?.parse().ok()
    }

    /// A decimal field.
    pub fn f64(&self, field: &str) -> Option<f64> {
        self.get(field)?.parse().ok()
    }

    /// `calls=` of `cmdstat_<command>` (0 when the command was never called).
    pub fn calls(&self, command: &str) -> u64 {
        self.sub_field(&format!("cmdstat_{command}"), "calls")
            .unwrap_or(0)
    }

    /// `usec=` of `cmdstat_<command>`: µs the server spent running it.
    pub fn usec(&self, command: &str) -> u64 {
        self.sub_field(&format!("cmdstat_{command}"), "usec")
            .unwrap_or(0)
    }

    /// `rejected_calls=` of `cmdstat_<command>`: calls refused before they ran
    /// (`-OOM`, `-NOAUTH`, ...), which Redis 7 does not count in `calls`.
    pub fn rejected_calls(&self, command: &str) -> u64 {
        self.sub_field(&format!("cmdstat_{command}"), "rejected_calls")
            .unwrap_or(0)
    }

    /// `failed_calls=` of `cmdstat_<command>`: calls that ran and answered an
    /// error (counted in `calls` too).
    pub fn failed_calls(&self, command: &str) -> u64 {
        self.sub_field(&format!("cmdstat_{command}"), "failed_calls")
            .unwrap_or(0)
    }

    /// `keys=` of `db<n>` (0 when the database is empty).
    pub fn keys(&self, db: u32) -> u64 {
        self.sub_field(&format!("db{db}"), "keys").unwrap_or(0)
    }

    /// One `name=value` part of a comma-separated field such as `cmdstat_get`.
    fn sub_field(&self, field: &str, name: &str) -> Option<u64> {
        self.get(field)?
            .split(',')
            .find_map(|part| part.strip_prefix(name)?.strip_prefix('='))?
            .parse()
            .ok()
    }
}

/// An INFO value as JSON: integers and decimals as numbers, the rest as text.
fn typed(value: &str) -> serde_json::Value {
    if let Ok(i) = value.parse::<i64>() {
        return i.into();
    }
    match value.parse::<f64>() {
        Ok(f) if f.is_finite() => f.into(),
        _ => value.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# Server\r\nredis_version:7.0.15\r\n\r\n# CPU\r\nused_cpu_sys:1.5\r\nused_cpu_user:2.25\r\n# Commandstats\r\ncmdstat_get:calls=12,usec=30,usec_per_call=2.50\r\n# Keyspace\r\ndb0:keys=1000,expires=0,avg_ttl=0\r\n";

    #[test]
    fn reads_plain_and_nested_fields() {
        let i = Info::parse(SAMPLE, SystemTime::UNIX_EPOCH);
        assert_eq!(i.get("redis_version"), Some("7.0.15"));
        assert_eq!(i.f64("used_cpu_user"), Some(2.25));
        assert_eq!(i.calls("get"), 12);
        assert_eq!(i.calls("set"), 0);
        assert_eq!(i.keys(0), 1000);
        assert_eq!(i.keys(1), 0);
    }

    #[test]
    fn rejected_and_failed_calls_are_apart_from_calls() {
        let text = "cmdstat_set:calls=3740,usec=2221,usec_per_call=0.59,rejected_calls=100300,failed_calls=2\r\n";
        let i = Info::parse(text, SystemTime::UNIX_EPOCH);
        assert_eq!(i.calls("set"), 3740);
        assert_eq!(i.rejected_calls("set"), 100_300);
        assert_eq!(i.failed_calls("set"), 2);
        assert_eq!(i.rejected_calls("get"), 0);
    }

    #[test]
    fn sections_read_back_give_the_same_counts() {
        let i = Info::parse(SAMPLE, SystemTime::UNIX_EPOCH);
        let v = i.sections_json(&["Server", "CPU", "Commandstats", "Keyspace"]);
        let back = Info::from_sections_json(v.as_object().unwrap());
        assert_eq!(back.calls("get"), 12);
        assert_eq!(back.keys(0), 1000);
        assert_eq!(back.f64("used_cpu_user"), Some(2.25));
        assert_eq!(back.get("redis_version"), Some("7.0.15"));
        assert_eq!(back.software, Software::Redis);
    }

    #[test]
    fn sections_group_fields_and_type_numbers() {
        let i = Info::parse(SAMPLE, SystemTime::UNIX_EPOCH);
        let v = i.sections_json(&["Server", "CPU"]);
        assert_eq!(v["server"]["redis_version"], "7.0.15");
        assert_eq!(v["cpu"]["used_cpu_user"], 2.25);
        assert!(v.get("keyspace").is_none());
    }
}
