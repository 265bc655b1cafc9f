//! Running `kvbench compare` and reading its CSV, for the compare tests.

use std::process::Output;

/// `kvbench compare ARGS…`, whatever its outcome.
pub fn compare(args: &[&str]) -> Output {
    let mut full = vec!["compare"];
    full.extend_from_slice(args);
    super::kvbench(&full)
}

/// `kvbench compare ARGS…`, asserted to succeed; its stdout.
pub fn compare_ok(args: &[&str]) -> String {
    let out = compare(args);
    assert!(
        out.status.success(),
        "compare {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Splits one CSV line, honouring double-quoted fields (`""` is a quote).
pub fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(String::new()),
            c => fields.last_mut().unwrap().push(c),
        }
    }
    assert!(!quoted, "unbalanced quotes in {line:?}");
    fields
}

/// The index of the verdict, the last field of a `--layout rows` CSV line.
pub const VERDICT: usize = 13;

/// The rows of a `--layout rows` CSV below its header, each checked to have
/// the header's field count (a verdict may hold a comma: quotes are honoured).
pub fn csv_rows(csv: &str) -> Vec<Vec<String>> {
    csv.lines()
        .skip(1)
        .map(|line| {
            let fields = csv_fields(line);
            assert_eq!(fields.len(), VERDICT + 1, "{line}");
            fields
        })
        .collect()
}
