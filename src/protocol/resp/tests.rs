//! Example-based tests of the RESP2 decoder, encoders and error grouping:
//! wire transcripts in, exact replies and consumed lengths out.

use super::{
    DecodeError, MAX_ARRAY_LEN, MAX_BULK_LEN, MAX_DEPTH, MAX_LINE_LEN, Reply, ServerErrorKind,
    decode, encode_command, encode_get, encode_set,
};

/// Trailing bytes appended to every fixture to prove that `consumed` stops
/// exactly at the end of the reply: a valid next reply, and garbage.
const JUNK: [&[u8]; 3] = [b"+JUNK\r\n", b"\xff\x00garbage\r", b"*"];

/// Asserts that `wire` decodes to `expected`, consuming all of it, whatever
/// follows it, and that every strict prefix of it is reported incomplete.
fn assert_transcript(wire: &[u8], expected: Reply<'_>) {
    assert_eq!(decode(wire), Ok(Some((expected, wire.len()))), "{wire:?}");
    for junk in JUNK {
        let padded = [wire, junk].concat();
        assert_eq!(
            decode(&padded),
            Ok(Some((expected, wire.len()))),
            "{padded:?}"
        );
    }
    assert_every_prefix_incomplete(wire);
}

/// Asserts that every strict prefix of a valid reply asks for more bytes.
fn assert_every_prefix_incomplete(wire: &[u8]) {
    for cut in 0..wire.len() {
        assert_eq!(
            decode(&wire[..cut]),
            Ok(None),
            "prefix of {cut} bytes of {wire:?}"
        );
    }
}

/// Decodes a command written by an encoder back into its arguments, checking
/// that it is exactly one array of bulk strings.
pub(super) fn parse_command(wire: &[u8]) -> Vec<Vec<u8>> {
    let Ok(Some((Reply::Array(count), consumed))) = decode(wire) else {
        panic!("not a complete array: {wire:?}");
    };
    assert_eq!(consumed, wire.len());
    let header_end = wire.iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut rest = &wire[header_end..];
    let mut args = Vec::new();
    for _ in 0..count {
        let Ok(Some((Reply::Bulk(arg), used))) = decode(rest) else {
            panic!("element is not a bulk string: {rest:?}");
        };
        args.push(arg.to_vec());
        rest = &rest[used..];
    }
    assert!(rest.is_empty());
    args
}

#[test]
fn decodes_simple_string_split_at_every_offset() {
    assert_transcript(b"+OK\r\n", Reply::Simple(b"OK"));
    assert_transcript(b"+\r\n", Reply::Simple(b""));
}

#[test]
fn decodes_server_error_as_a_value_split_at_every_offset() {
    assert_transcript(b"-ERR x\r\n", Reply::Error(b"ERR x"));
}

#[test]
fn decodes_integers_split_at_every_offset() {
    assert_transcript(b":12\r\n", Reply::Integer(12));
    assert_transcript(b":-42\r\n", Reply::Integer(-42));
    assert_transcript(b":0\r\n", Reply::Integer(0));
    assert_transcript(b":9223372036854775807\r\n", Reply::Integer(i64::MAX));
    assert_transcript(b":-9223372036854775808\r\n", Reply::Integer(i64::MIN));
}

#[test]
fn decodes_bulk_strings_split_at_every_offset() {
    assert_transcript(b"$3\r\nabc\r\n", Reply::Bulk(b"abc"));
    assert_transcript(b"$0\r\n\r\n", Reply::Bulk(b""));
    assert_transcript(b"$4\r\na\r\nb\r\n", Reply::Bulk(b"a\r\nb"));
}

#[test]
fn decodes_nil_bulk_and_nil_array_split_at_every_offset() {
    assert_transcript(b"$-1\r\n", Reply::Nil);
    assert_transcript(b"*-1\r\n", Reply::Nil);
}

#[test]
fn decodes_empty_array_split_at_every_offset() {
    assert_transcript(b"*0\r\n", Reply::Array(0));
}

#[test]
fn decodes_nested_array_with_mixed_elements_split_at_every_offset() {
    let wire =
        b"*6\r\n+OK\r\n-ERR no\r\n:-7\r\n$3\r\nabc\r\n*3\r\n$-1\r\n*-1\r\n*0\r\n*1\r\n:1\r\n";
    assert_transcript(wire, Reply::Array(6));
}

#[test]
fn decodes_arrays_nested_exactly_max_depth() {
    let wire = [b"*1\r\n".repeat(MAX_DEPTH), b":1\r\n".to_vec()].concat();
    assert_transcript(&wire, Reply::Array(1));
}

#[test]
fn decodes_replies_back_to_back() {
    let wire = b"+OK\r\n$1\r\nx\r\n";
    assert_eq!(decode(wire), Ok(Some((Reply::Simple(b"OK"), 5))));
    assert_eq!(decode(&wire[5..]), Ok(Some((Reply::Bulk(b"x"), 7))));
}

#[test]
fn reports_an_empty_buffer_as_incomplete() {
    assert_eq!(decode(b""), Ok(None));
}

#[test]
fn rejects_unknown_type_byte_at_once() {
    assert_eq!(decode(b"?"), Err(DecodeError::InvalidType(b'?')));
    assert_eq!(decode(b"OK\r\n"), Err(DecodeError::InvalidType(b'O')));
    assert_eq!(
        decode(b"*2\r\n:1\r\n!"),
        Err(DecodeError::InvalidType(b'!'))
    );
}

#[test]
fn rejects_malformed_numbers() {
    for wire in [
        &b"$abc\r\n"[..],
        b":\r\n",
        b":-\r\n",
        b":+5\r\n",
        b":1 \r\n",
        b":12a\r\n",
        b":9223372036854775808\r\n",
        b":-9223372036854775809\r\n",
        b"*x\r\n",
    ] {
        assert_eq!(decode(wire), Err(DecodeError::InvalidNumber), "{wire:?}");
    }
}

#[test]
fn rejects_negative_lengths_other_than_nil() {
    assert_eq!(decode(b"$-2\r\n"), Err(DecodeError::InvalidNumber));
    assert_eq!(decode(b"*-2\r\n"), Err(DecodeError::InvalidNumber));
}

#[test]
fn rejects_bulk_payload_not_followed_by_crlf() {
    assert_eq!(decode(b"$2\r\nabc\r\n"), Err(DecodeError::MissingCrlf));
    assert_eq!(decode(b"$2\r\nab\rX"), Err(DecodeError::MissingCrlf));
    assert_eq!(decode(b"$2\r\nab\n\r"), Err(DecodeError::MissingCrlf));
}

#[test]
fn rejects_lines_with_a_bare_cr_or_lf() {
    assert_eq!(decode(b"+OK\n"), Err(DecodeError::MissingCrlf));
    assert_eq!(decode(b"+O\rK\r\n"), Err(DecodeError::MissingCrlf));
    assert_eq!(decode(b"$3\nabc\r\n"), Err(DecodeError::MissingCrlf));
    assert_eq!(decode(b"+OK\r"), Ok(None));
}

#[test]
fn rejects_oversized_bulk_before_its_payload_arrives() {
    let huge = decode(b"$1099511627776\r\n");
    assert_eq!(huge, Err(DecodeError::BulkTooLarge(1_099_511_627_776)));
    let just_over = format!("${}\r\n", MAX_BULK_LEN + 1);
    let expected = Err(DecodeError::BulkTooLarge(MAX_BULK_LEN + 1));
    assert_eq!(decode(just_over.as_bytes()), expected);
    let at_limit = format!("${MAX_BULK_LEN}\r\n");
    assert_eq!(decode(at_limit.as_bytes()), Ok(None));
}

#[test]
fn rejects_oversized_array_before_its_elements_arrive() {
    let just_over = format!("*{}\r\n", MAX_ARRAY_LEN + 1);
    let expected = Err(DecodeError::ArrayTooLarge(MAX_ARRAY_LEN + 1));
    assert_eq!(decode(just_over.as_bytes()), expected);
    let at_limit = format!("*{MAX_ARRAY_LEN}\r\n");
    assert_eq!(decode(at_limit.as_bytes()), Ok(None));
}

#[test]
fn rejects_hostile_nesting_without_overflowing_the_stack() {
    let wire = b"*1\r\n".repeat(10_000);
    assert_eq!(decode(&wire), Err(DecodeError::TooDeep));
}

#[test]
fn rejects_nesting_one_past_max_depth_as_soon_as_it_starts() {
    let opened = b"*1\r\n".repeat(MAX_DEPTH);
    assert_eq!(decode(&opened), Ok(None));
    let one_more = [opened, b"*".to_vec()].concat();
    assert_eq!(decode(&one_more), Err(DecodeError::TooDeep));
}

#[test]
fn accepts_a_line_of_exactly_the_maximum_length() {
    let line = vec![b'a'; MAX_LINE_LEN];
    let wire = [b"+".as_slice(), &line, b"\r\n"].concat();
    assert_eq!(decode(&wire), Ok(Some((Reply::Simple(&line), wire.len()))));
    assert_eq!(decode(&wire[..wire.len() - 1]), Ok(None));
    assert_eq!(decode(&wire[..wire.len() - 2]), Ok(None));
}

#[test]
fn rejects_lines_that_never_end() {
    let endless = vec![b'1'; MAX_LINE_LEN + 1];
    for (kind, expected) in [
        (b'+', DecodeError::MissingCrlf),
        (b'-', DecodeError::MissingCrlf),
        (b':', DecodeError::InvalidNumber),
        (b'$', DecodeError::InvalidNumber),
        (b'*', DecodeError::InvalidNumber),
    ] {
        let wire = [&[kind][..], &endless].concat();
        assert_eq!(decode(&wire), Err(expected), "type byte {kind}");
    }
}

#[test]
fn describes_decode_errors_for_humans() {
    assert_eq!(
        DecodeError::InvalidType(0x3f).to_string(),
        "unexpected reply type byte 0x3f"
    );
    let too_deep = DecodeError::TooDeep.to_string();
    assert_eq!(too_deep, "replies nested deeper than 32 levels");
}

#[test]
fn encodes_get_with_the_exact_wire_bytes() {
    let mut out = Vec::new();
    let written = encode_get(&mut out, b"key:", 10);
    assert_eq!(out, b"*2\r\n$3\r\nGET\r\n$6\r\nkey:10\r\n");
    assert_eq!(written, out.len());
}

#[test]
fn encodes_get_for_boundary_keys_and_prefixes() {
    for prefix in [&b""[..], b"memtier-"] {
        for key in [0, 9, 10, u64::MAX] {
            let mut out = b"already queued".to_vec();
            let written = encode_get(&mut out, prefix, key);
            let command = &out[14..];
            assert_eq!(written, command.len());
            let expected_key = [prefix, key.to_string().as_bytes()].concat();
            assert_eq!(parse_command(command), vec![b"GET".to_vec(), expected_key]);
        }
    }
}

#[test]
fn encodes_set_for_boundary_keys_prefixes_and_values() {
    for prefix in [&b""[..], b"memtier-"] {
        for key in [0, 9, 10, u64::MAX] {
            for value in [&b""[..], b"v", b"\r\n\0binary"] {
                let mut out = b"*1\r\n".to_vec();
                let written = encode_set(&mut out, prefix, key, value);
                assert_eq!(written, out.len() - 4);
                let expected_key = [prefix, key.to_string().as_bytes()].concat();
                let expected = vec![b"SET".to_vec(), expected_key, value.to_vec()];
                assert_eq!(parse_command(&out[4..]), expected);
            }
        }
    }
}

#[test]
fn encodes_handshake_commands_as_arrays_of_bulk_strings() {
    let mut out = Vec::new();
    encode_command(&mut out, &[b"AUTH", b"user", b""]);
    assert_eq!(out, b"*3\r\n$4\r\nAUTH\r\n$4\r\nuser\r\n$0\r\n\r\n");
    let start = out.len();
    encode_command(&mut out, &[b"PING"]);
    assert_eq!(parse_command(&out[start..]), vec![b"PING".to_vec()]);
    let mut empty = Vec::new();
    encode_command(&mut empty, &[]);
    assert_eq!(empty, b"*0\r\n");
}

#[test]
fn classifies_each_server_error_kind_by_its_first_word() {
    let cases: [(&[u8], ServerErrorKind); 15] = [
        (b"ERR unknown command 'FOO'", ServerErrorKind::Err),
        (
            b"OOM command not allowed when used memory > 'maxmemory'",
            ServerErrorKind::Oom,
        ),
        (
            b"LOADING Redis is loading the dataset in memory",
            ServerErrorKind::Loading,
        ),
        (
            b"BUSY Redis is busy running a script",
            ServerErrorKind::Busy,
        ),
        (
            b"READONLY You can't write against a read only replica.",
            ServerErrorKind::ReadOnly,
        ),
        (b"NOAUTH Authentication required.", ServerErrorKind::NoAuth),
        (
            b"WRONGPASS invalid username-password pair",
            ServerErrorKind::WrongPass,
        ),
        (
            b"WRONGTYPE Operation against a key holding the wrong kind",
            ServerErrorKind::WrongType,
        ),
        (
            b"NOPERM this user has no permissions",
            ServerErrorKind::NoPerm,
        ),
        (b"MOVED 3999 127.0.0.1:6381", ServerErrorKind::Moved),
        (b"ASK 3999 127.0.0.1:6381", ServerErrorKind::Ask),
        (
            b"CROSSSLOT Keys in request don't hash to the same slot",
            ServerErrorKind::CrossSlot,
        ),
        (
            b"TRYAGAIN Multiple keys request during rehashing of slot",
            ServerErrorKind::TryAgain,
        ),
        (
            b"CLUSTERDOWN The cluster is down",
            ServerErrorKind::ClusterDown,
        ),
        (b"SOMETHING else entirely", ServerErrorKind::Other),
    ];
    for (message, kind) in cases {
        assert_eq!(ServerErrorKind::classify(message), kind, "{message:?}");
    }
}

#[test]
fn classifies_only_whole_upper_case_words() {
    for message in [
        &b""[..],
        b" ERR",
        b"ERRX y",
        b"err lower",
        b"ASKING",
        b"MOVED\r",
    ] {
        assert_eq!(
            ServerErrorKind::classify(message),
            ServerErrorKind::Other,
            "{message:?}"
        );
    }
    assert_eq!(ServerErrorKind::classify(b"ERR"), ServerErrorKind::Err);
}

#[test]
fn names_every_kind_with_the_code_that_classifies_back_to_it() {
    for kind in ServerErrorKind::ALL {
        assert_eq!(ServerErrorKind::classify(kind.as_str().as_bytes()), kind);
    }
    // Strictly increasing means no kind is listed twice and the order is
    // the declaration order that reports rely on.
    assert!(
        ServerErrorKind::ALL
            .windows(2)
            .all(|pair| pair[0] < pair[1])
    );
    assert_eq!(ServerErrorKind::Other.as_str(), "OTHER");
}
