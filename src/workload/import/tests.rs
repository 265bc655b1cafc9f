//! The import file read as memtier reads it, and the requests encoded of it.

use crate::protocol::resp::ExpiryCommand;
use crate::workload::import::{ImportError, Imported, ImportedItem, parse};

const HEADER: &str =
    "dumpflags, time, exptime, nbytes, nsuffix, it_flags, clsid, nkey, key, data\n";

#[test]
fn reads_memtiers_records_with_doubled_quotes_and_newlines_in_values() {
    let file = format!(
        "{HEADER}0, 0, 0, 7, 0, 0, 0, 3, \"k:1\", \"hello\"\n\
         0, 0, 60, 8, 0, 0, 0, 3, \"k\"\"2\", \"a\"\"b\r\nc\"\r\n\
         0, 0, 0, 5, 0, 0, 0, 2, k3, abc\n"
    );
    let items = parse(file.as_bytes()).unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items[0].key, b"k:1");
    assert_eq!(items[0].value, b"hello");
    assert_eq!(items[1].key, b"k\"2");
    assert_eq!(items[1].value, b"a\"b\r\nc");
    assert_eq!(items[1].expiry_s, 60);
    assert_eq!(items[2].value, b"abc");
}

#[test]
fn refuses_what_memtier_would_send_wrong() {
    let bad = [
        (
            "key, value\n0, 0, 0, 3, 0, 0, 0, 1, \"k\", \"v\"\n",
            ImportError::Header,
        ),
        (HEADER, ImportError::Empty),
        (
            &*format!("{HEADER}0, 0, 0, 9, 0, 0, 0, 1, \"k\", \"short\"\n"),
            ImportError::Length {
                line: 2,
                column: "data",
                expected: 7,
                found: 5,
            },
        ),
        (
            &*format!("{HEADER}0, 0, 0, 3, 0, 0, 0, 1, \"k\", \"v\n"),
            ImportError::Unclosed {
                line: 2,
                column: "data",
            },
        ),
        (
            &*format!("{HEADER}0, 0, x, 3, 0, 0, 0, 1, \"k\", \"v\"\n"),
            ImportError::Numbers { line: 2 },
        ),
        (
            &*format!("{HEADER}0, 0, 0, 1, 0, 0, 0, 1, \"k\", \"\"\n"),
            ImportError::ShortNbytes { line: 2, nbytes: 1 },
        ),
    ];
    for (text, expected) in bad {
        assert_eq!(parse(text.as_bytes()).unwrap_err(), expected, "{text:?}");
    }
}

fn item(key: &str, value: &str, expiry_s: u32) -> ImportedItem {
    ImportedItem {
        key: key.into(),
        value: value.into(),
        expiry_s,
    }
}

#[test]
fn encodes_each_items_set_and_get_once_numbered_from_one() {
    let imported = Imported::new(
        vec![item("a", "xy", 0), item("b", "z", 30)],
        false,
        ExpiryCommand::Setex,
    );
    let mut out = Vec::new();
    imported.encode_set(&mut out, 1);
    assert_eq!(out, b"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$2\r\nxy\r\n");
    out.clear();
    imported.encode_set(&mut out, 2);
    assert_eq!(
        out,
        b"*4\r\n$5\r\nSETEX\r\n$1\r\nb\r\n$2\r\n30\r\n$1\r\nz\r\n"
    );
    out.clear();
    // Item numbers wrap into the file, as memtier's reader starts over.
    imported.encode_get(&mut out, 3);
    assert_eq!(out, b"*2\r\n$3\r\nGET\r\n$1\r\na\r\n");
    let no_expiry = Imported::new(vec![item("b", "z", 30)], true, ExpiryCommand::Setex);
    let with_ex = Imported::new(vec![item("b", "z", 30)], false, ExpiryCommand::SetWithEx);
    out.clear();
    with_ex.encode_set(&mut out, 1);
    assert_eq!(
        out,
        b"*5\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\nz\r\n$2\r\nEX\r\n$2\r\n30\r\n"
    );
    out.clear();
    no_expiry.encode_set(&mut out, 1);
    assert!(out.starts_with(b"*3\r\n$3\r\nSET\r\n"), "{out:?}");
    assert!(imported.max_request_bytes(0) >= 30);
}

#[test]
fn generated_keys_take_the_item_of_their_offset_in_the_range() {
    let imported = Imported::new(
        vec![item("a", "v1", 0), item("b", "v2", 0)],
        false,
        ExpiryCommand::SetWithEx,
    )
    .with_generated_min(10);
    let value = |k| imported.item_for_generated(k).unwrap().value.clone();
    assert_eq!(value(10), b"v1");
    assert_eq!(value(11), b"v2");
    assert_eq!(value(12), b"v1");
}
