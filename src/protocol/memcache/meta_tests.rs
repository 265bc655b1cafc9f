//! Wire transcripts of [`super::meta`]: the requests byte for byte, and each
//! reply decoded exactly, with junk appended, and at every prefix.

use super::meta::{
    MetaDecodeError, MetaReply, MetaStatus, decode, decode_outcome, encode_get, encode_set,
};
use super::text::Asked;
use crate::protocol::error_kind::ServerErrorKind;
use crate::protocol::wire::{self, Outcome, Protocol, WireError};

/// `wire` decodes to `expected` using all its bytes, also with another reply
/// after it, and every prefix of it is only incomplete.
fn transcript(wire: &[u8], expected: MetaReply<'_>) {
    assert_eq!(decode(wire), Ok(Some((expected, wire.len()))), "{wire:?}");
    let padded = [wire, b"HD O99\r\njunk"].concat();
    assert_eq!(
        decode(&padded),
        Ok(Some((expected, wire.len()))),
        "{padded:?}"
    );
    for cut in 0..wire.len() {
        assert_eq!(decode(&wire[..cut]), Ok(None), "prefix {cut} of {wire:?}");
    }
}

const GET_7: Asked<'static> = Asked::Get {
    prefix: b"memtier-",
    key: 7,
};

#[test]
fn encoders_write_ms_and_mg_with_the_opaque() {
    let mut out = Vec::new();
    assert_eq!(encode_get(&mut out, b"memtier-", 42, 7), out.len());
    assert_eq!(out, b"mg memtier-42 v O7\r\n");
    out.clear();
    assert_eq!(
        encode_set(&mut out, b"memtier-", 7, 0, b"abc", 0),
        out.len()
    );
    assert_eq!(out, b"ms memtier-7 3 O0\r\nabc\r\n");
    out.clear();
    encode_set(&mut out, b"k", 1, 60, b"", u32::MAX);
    assert_eq!(out, b"ms k1 0 T60 O4294967295\r\n\r\n");
}

#[test]
fn the_seam_encodes_meta_for_memcache_meta() {
    let p = Protocol::parse("memcache_meta").unwrap();
    assert_eq!(p, Protocol::MemcacheMeta);
    let mut out = Vec::new();
    p.encode_get(&mut out, b"k", 3, 5);
    p.encode_set(&mut out, b"k", 3, b"v", 6);
    assert_eq!(out, b"mg k3 v O5\r\nms k3 1 O6\r\nv\r\n");
}

#[test]
fn replies_decode_exactly() {
    let opaque = Some(&b"12"[..]);
    transcript(b"VA 3 O12\r\nabc\r\n", MetaReply::Value { len: 3, opaque });
    // The data may hold CRLF: only its announced length ends it.
    transcript(
        b"VA 4 t-1 O12 kfoo\r\na\r\nb\r\n",
        MetaReply::Value { len: 4, opaque },
    );
    transcript(
        b"VA 0\r\n\r\n",
        MetaReply::Value {
            len: 0,
            opaque: None,
        },
    );
    for (wire, status) in [
        (&b"HD O12\r\n"[..], MetaStatus::Done),
        (b"EN O12\r\n", MetaStatus::Miss),
        (b"NS O12\r\n", MetaStatus::NotStored),
        (b"EX O12\r\n", MetaStatus::Exists),
        (b"NF O12 kfoo\r\n", MetaStatus::NotFound),
    ] {
        transcript(wire, MetaReply::Status { status, opaque });
    }
    transcript(
        b"MN\r\n",
        MetaReply::Status {
            status: MetaStatus::NoOp,
            opaque: None,
        },
    );
    let oom = b"SERVER_ERROR out of memory storing object\r\n";
    transcript(oom, MetaReply::Error(&oom[..oom.len() - 2]));
    transcript(
        b"CLIENT_ERROR bad command line format\r\n",
        MetaReply::Error(b"CLIENT_ERROR bad command line format"),
    );
    transcript(b"ERROR\r\n", MetaReply::Error(b"ERROR"));
}

#[test]
fn bytes_memcached_never_sends_are_errors() {
    for (wire, error) in [
        (&b"STORED\r\n"[..], MetaDecodeError::Unexpected),
        (b"+OK\r\n", MetaDecodeError::Unexpected),
        (b"HDX\r\n", MetaDecodeError::Unexpected),
        (b"\r\n", MetaDecodeError::Unexpected),
        (b"HD\n", MetaDecodeError::BadLine),
        (b"HD  O1\r\n", MetaDecodeError::BadFlags),
        (b"HD 7\r\n", MetaDecodeError::BadFlags),
        (b"VA x O1\r\n", MetaDecodeError::BadValue),
        (b"VA -1\r\n", MetaDecodeError::BadValue),
        (b"VA\r\n", MetaDecodeError::BadValue),
        (b"VA 1\r\nab\r\n", MetaDecodeError::BadValue),
        (b"VA 99999999999999999999\r\n", MetaDecodeError::BadValue),
    ] {
        assert_eq!(decode(wire), Err(error), "{wire:?}");
    }
    assert_eq!(decode(&[b'x'; 4096]), Err(MetaDecodeError::BadLine));
}

#[test]
fn outcomes_of_hits_misses_stores_and_errors() {
    let get = |wire: &[u8]| decode_outcome(wire, GET_7, 12);
    let set = |wire: &[u8]| decode_outcome(wire, Asked::NoValue, 12);
    assert_eq!(
        get(b"VA 3 O12\r\nabc\r\n"),
        Ok(Some((Outcome::Value, 15, 0)))
    );
    assert_eq!(get(b"EN O12\r\n"), Ok(Some((Outcome::Nil, 8, 0))));
    assert_eq!(set(b"HD O12\r\n"), Ok(Some((Outcome::Other, 8, 0))));
    assert_eq!(set(b"NS O12\r\n"), Ok(Some((Outcome::Other, 8, 0))));
    let oom = b"SERVER_ERROR out of memory storing object\r\n";
    assert_eq!(
        set(oom),
        Ok(Some((Outcome::Error(ServerErrorKind::Oom), oom.len(), 0)))
    );
    assert_eq!(
        get(b"CLIENT_ERROR bad command line format\r\n")
            .unwrap()
            .unwrap()
            .0,
        Outcome::Error(ServerErrorKind::Err)
    );
    assert_eq!(get(b"VA 3 O12\r\nab"), Ok(None));
}

#[test]
fn a_reply_for_another_request_is_out_of_step() {
    let out_of_step = Err(MetaDecodeError::OutOfStep { expected: 12 });
    for wire in [
        &b"VA 3 O11\r\nabc\r\n"[..],
        b"EN O13\r\n",
        b"EN O120\r\n",
        b"EN O1\r\n",
        b"EN\r\n",
        b"EN kmemtier-7\r\n",
        b"MN\r\n",
        // Known from the header line, before any data.
        b"VA 3 O11\r\n",
    ] {
        assert_eq!(decode_outcome(wire, GET_7, 12), out_of_step, "{wire:?}");
    }
    // A GET's answers do not answer a SET, nor a SET's a GET.
    assert_eq!(
        decode_outcome(b"VA 1 O12\r\nv\r\n", Asked::NoValue, 12),
        Err(MetaDecodeError::WrongKind)
    );
    assert_eq!(
        decode_outcome(b"EN O12\r\n", Asked::NoValue, 12),
        Err(MetaDecodeError::WrongKind)
    );
    assert_eq!(
        decode_outcome(b"HD O12\r\n", GET_7, 12),
        Err(MetaDecodeError::WrongKind)
    );
}

#[test]
fn the_seam_reports_a_meta_fault_as_a_wire_error() {
    assert_eq!(
        wire::decode(Protocol::MemcacheMeta, b"HD O3\r\n", 4),
        Err(WireError::Meta(MetaDecodeError::OutOfStep { expected: 4 }))
    );
    assert_eq!(
        wire::decode(Protocol::MemcacheMeta, b"HD O4\r\n", 4),
        Ok(Some((Outcome::Other, 7)))
    );
}
