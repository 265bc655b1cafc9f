//! TEMPORARY
use serde_json::{Map, Value};
use crate::config::Config;
pub use crate::report::json_config::allkeys_per_connection;
fn object(v: Value) -> Map<String, Value> { match v { Value::Object(m) => m, _ => Map::new() } }
pub fn memtier_configuration(c: &Config) -> Map<String, Value> { object(crate::report::json_config::memtier_configuration(c)) }
pub fn kvbench_config(c: &Config) -> Map<String, Value> { object(crate::report::json_config::kvbench_config(c)) }
