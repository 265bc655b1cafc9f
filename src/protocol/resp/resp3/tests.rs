//! RESP3 wire transcripts: each type decoded exactly, whatever follows it,
//! every strict prefix incomplete; attributes skipped; pushes kept apart;
//! RESP3 bytes refused in a RESP2 stream.

use crate::protocol::resp::{DecodeError, Dialect, MAX_DEPTH, Reply, decode, decode_as};

const JUNK: [&[u8]; 3] = [b"+JUNK\r\n", b"\xff\x00garbage\r", b"%"];

fn resp3(buf: &[u8]) -> Result<Option<(Reply<'_>, usize)>, DecodeError> {
    decode_as(buf, Dialect::Resp3)
}

fn assert_transcript(wire: &[u8], expected: Reply<'_>) {
    assert_eq!(resp3(wire), Ok(Some((expected, wire.len()))), "{wire:?}");
    for junk in JUNK {
        let padded = [wire, junk].concat();
        assert_eq!(
            resp3(&padded),
            Ok(Some((expected, wire.len()))),
            "{padded:?}"
        );
    }
    for cut in 0..wire.len() {
        assert_eq!(
            resp3(&wire[..cut]),
            Ok(None),
            "prefix of {cut} bytes of {wire:?}"
        );
    }
}

#[test]
fn scalars_decode_exactly() {
    assert_transcript(b"_\r\n", Reply::Nil);
    assert_transcript(b"#t\r\n", Reply::Boolean(true));
    assert_transcript(b"#f\r\n", Reply::Boolean(false));
    assert_transcript(b",1.23\r\n", Reply::Double(b"1.23"));
    assert_transcript(b",-inf\r\n", Reply::Double(b"-inf"));
    assert_transcript(b",1e-10\r\n", Reply::Double(b"1e-10"));
    assert_transcript(b",10\r\n", Reply::Double(b"10"));
    assert_transcript(
        b"(3492890328409238509324850943850943825024385\r\n",
        Reply::BigNumber(b"3492890328409238509324850943850943825024385"),
    );
    assert_transcript(
        b"!21\r\nSYNTAX invalid syntax\r\n",
        Reply::Error(b"SYNTAX invalid syntax"),
    );
    assert_transcript(
        b"=15\r\ntxt:Some string\r\n",
        Reply::Verbatim(b"txt:Some string"),
    );
}

#[test]
fn resp2_types_still_decode_in_resp3() {
    assert_transcript(b"$3\r\nabc\r\n", Reply::Bulk(b"abc"));
    assert_transcript(b"$-1\r\n", Reply::Nil);
    assert_transcript(b"*2\r\n:1\r\n:2\r\n", Reply::Array(2));
}

#[test]
fn aggregates_count_their_elements_and_nest() {
    // HGETALL in RESP3: a map of two pairs.
    assert_transcript(b"%2\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n:2\r\n", Reply::Map(2));
    assert_transcript(b"~3\r\n:1\r\n:2\r\n#t\r\n", Reply::Set(3));
    assert_transcript(b"%1\r\n+k\r\n~2\r\n_\r\n%0\r\n", Reply::Map(1));
    assert_transcript(b"%0\r\n", Reply::Map(0));
}

#[test]
fn a_push_is_its_own_reply() {
    let invalidate = b">2\r\n$10\r\ninvalidate\r\n*1\r\n$3\r\nfoo\r\n";
    assert_transcript(invalidate, Reply::Push(2));
}

#[test]
fn attributes_are_skipped_and_the_annotated_reply_returned() {
    let top = b"|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.19\r\n*2\r\n:2039123\r\n:9543892\r\n";
    assert_transcript(top, Reply::Array(2));
    // Inside an aggregate, an attribute does not count as an element.
    let inner = b"*2\r\n:1\r\n|1\r\n+ttl\r\n:3600\r\n:2\r\n";
    assert_transcript(inner, Reply::Array(2));
}

#[test]
fn malformed_resp3_is_an_error() {
    for wire in [
        &b"#x\r\n"[..],
        b"_x\r\n",
        b",1.2.3\r\n",
        b",abc\r\n",
        b"(12a\r\n",
        b",\r\n",
        b",1e\r\n",
    ] {
        assert_eq!(resp3(wire), Err(DecodeError::InvalidScalar), "{wire:?}");
    }
    assert_eq!(resp3(b"%-1\r\n"), Err(DecodeError::InvalidNumber));
    assert_eq!(resp3(b"!-1\r\n"), Err(DecodeError::InvalidNumber));
    assert_eq!(resp3(b"$?\r\n"), Err(DecodeError::InvalidNumber));
}

#[test]
fn nesting_is_bounded_for_every_aggregate() {
    let deep: Vec<u8> = b"%1\r\n+k\r\n".repeat(MAX_DEPTH + 1);
    assert_eq!(resp3(&deep), Err(DecodeError::TooDeep));
    let sets: Vec<u8> = b"~1\r\n".repeat(MAX_DEPTH);
    assert_eq!(resp3(&sets), Ok(None), "{MAX_DEPTH} levels are allowed");
}

#[test]
fn resp2_refuses_resp3_type_bytes() {
    for (wire, byte) in [
        (&b"_\r\n"[..], b'_'),
        (b"%1\r\n", b'%'),
        (b">1\r\n", b'>'),
        (b"#t\r\n", b'#'),
    ] {
        assert_eq!(
            decode(wire),
            Err(DecodeError::InvalidType(byte)),
            "{wire:?}"
        );
    }
}
