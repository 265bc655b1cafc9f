//! Where in a JSON document a parse error happened, as a jq path
//! (`.["ALL STATS"].Sets["Ops/sec"]`).
//!
//! serde_json reports a line and a column; a user fixing a hand-edited or
//! truncated report needs the field. Rather than wrap the deserializer (a
//! crate of its own), this rescans the text up to the error's position,
//! keeping the stack of objects and arrays open there and the last key read
//! in each: a few dozen lines, run only when reading has already failed.

/// One open container at the error's position.
enum Open {
    /// An object, with the last key read in it (if any).
    Object(Option<String>),
    /// An array, with the index of the element being read.
    Array(usize),
}

/// The byte offset of serde_json's 1-based `line` and `column`.
pub fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (line_start + column).min(text.len())
}

/// The jq path of the value being read at byte `offset`. serde_json reports a
/// missing field just after the object's closing brace, so the path then ends
/// at the object's own key, which is the object to fix.
pub fn path_at(text: &str, offset: usize) -> String {
    let mut stack: Vec<Open> = Vec::new();
    let bytes = text.as_bytes();
    let end = offset.min(bytes.len());
    let mut i = 0;
    while i < end {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i = start;
                while i < bytes.len() && bytes[i] != b'"' {
                    // A backslash escapes the next byte, quote included.
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let is_key = text[i.min(bytes.len())..]
                    .trim_start_matches(|c: char| c == '"' || c.is_whitespace())
                    .starts_with(':');
                if let (true, Some(Open::Object(key))) = (is_key, stack.last_mut()) {
                    let raw = text.get(start..i.min(bytes.len())).unwrap_or_default();
                    *key = Some(serde_json::from_str(&format!("\"{raw}\"")).unwrap_or_default());
                }
            }
            b'{' => stack.push(Open::Object(None)),
            b'[' => stack.push(Open::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some(Open::Array(index)) = stack.last_mut() {
                    *index += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for open in &stack {
        match open {
            Open::Object(Some(key)) => push_key(&mut path, key),
            Open::Object(None) => {}
            Open::Array(index) => {
                if path.is_empty() {
                    path.push('.');
                }
                path.push_str(&format!("[{index}]"));
            }
        }
    }
    if path.is_empty() { ".".into() } else { path }
}

/// Appends `.key`, or `["key"]` when the key is not a plain identifier.
fn push_key(path: &mut String, key: &str) {
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        path.push('.');
        path.push_str(key);
    } else {
        // jq wants a dot before a leading bracket: `.["ALL STATS"]`.
        if path.is_empty() {
            path.push('.');
        }
        path.push_str(&format!("[{}]", serde_json::Value::from(key)));
    }
}
