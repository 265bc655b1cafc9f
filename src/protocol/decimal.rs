//! The decimal digits of a key or a length, written into a fixed array so
//! that an encoder appends them with one fixed-size copy, which the compiler
//! turns into a few register moves instead of a call into `memcpy`, and
//! writes the digits in place.
//!
//! A request's variable parts are a key's digits and a length or two; each
//! `extend_from_slice` of a slice whose length is only known at run time is a
//! library call, and at pipeline depth they were a measurable share of the
//! client's own time (docs/performance.md, "Profile: the client's own
//! work"). [`push`] appends a fixed 24 bytes, writes the digits into them and
//! shortens the buffer to what was meant, so no copy's size is a variable.

/// Two ASCII digits for each of 0..100, so two digits cost one lookup.
const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Room for the digits of a `u64` (20) and a CRLF, rounded up.
const ROOM: usize = 24;

/// How many decimal digits `n` has.
#[inline]
pub fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |log| log as usize + 1)
}

/// Appends the decimal digits of `n`.
#[inline]
pub fn push(out: &mut Vec<u8>, n: u64) {
    write(out, n, false);
}

/// Appends the decimal digits of `n` and a CRLF.
#[inline]
pub fn push_crlf(out: &mut Vec<u8>, n: u64) {
    write(out, n, true);
}

/// [`push_crlf`] for a caller that already knows `n`'s width (its
/// [`digits`]), as a key's encoder does after writing the key's length.
#[inline]
pub fn push_crlf_width(out: &mut Vec<u8>, n: u64, width: usize) {
    debug_assert_eq!(width, digits(n));
    write_width(out, n, width.min(20), true);
}

/// [`write_width`] once `n`'s width is known; lengths are mostly below 100,
/// and their width needs no logarithm.
#[inline(always)]
fn write(out: &mut Vec<u8>, n: u64, crlf: bool) {
    let len = match n {
        0..10 => 1,
        10..100 => 2,
        _ => digits(n).min(20),
    };
    write_width(out, n, len, crlf);
}

/// Appends [`ROOM`] bytes (a fixed-size copy), writes the `len` digits of
/// `n` into them from the right, two at a time, and cuts the buffer back to
/// what was meant.
#[inline(always)]
fn write_width(out: &mut Vec<u8>, n: u64, len: usize, crlf: bool) {
    let start = out.len();
    out.extend_from_slice(&[0_u8; ROOM]);
    let Some(room) = out
        .get_mut(start..)
        .and_then(|tail| tail.first_chunk_mut::<ROOM>())
    else {
        return;
    };
    write_digits(&mut room[..len], n);
    let mut used = len;
    if crlf {
        room[len] = b'\r';
        room[len + 1] = b'\n';
        used += 2;
    }
    out.truncate(start + used);
}

/// Writes the decimal digits of `n` into `dst`, right-aligned, two at a
/// time from the right. `dst` is meant to be exactly `n`'s width ([`digits`]):
/// a shorter one keeps the lowest digits, a longer one keeps its leading bytes.
#[inline(always)]
pub fn write_digits(dst: &mut [u8], n: u64) {
    let mut rest = n;
    let mut end = dst.len();
    while rest >= 100 && end >= 2 {
        let pair = (rest % 100) as usize * 2;
        rest /= 100;
        end -= 2;
        dst[end] = PAIRS[pair];
        dst[end + 1] = PAIRS[pair + 1];
    }
    if rest >= 10 && end >= 2 {
        let pair = rest as usize * 2;
        dst[end - 2] = PAIRS[pair];
        dst[end - 1] = PAIRS[pair + 1];
    } else if end >= 1 {
        dst[end - 1] = b'0' + (rest % 10) as u8;
    }
}

/// The decimal digits of `n`, written into `buf` (no allocation): what a
/// caller hashes or compares without appending them anywhere.
#[inline]
pub fn digits_in(buf: &mut [u8; 20], n: u64) -> &[u8] {
    let digits = &mut buf[20 - digits(n).min(20)..];
    write_digits(digits, n);
    digits
}

#[cfg(test)]
mod tests {
    use super::{digits, digits_in, push, push_crlf, write_digits};

    #[test]
    fn digits_match_the_standard_formatting_at_every_width() {
        let mut samples = vec![
            0_u64,
            1,
            9,
            10,
            99,
            100,
            101,
            999,
            1000,
            u64::MAX,
            u64::MAX - 1,
        ];
        let mut power = 1_u64;
        while let Some(next) = power.checked_mul(10) {
            samples.extend([power - 1, power, power + 1, next / 3]);
            power = next;
        }
        for n in samples {
            let mut out = b"x".to_vec();
            push(&mut out, n);
            assert_eq!(out, format!("x{n}").as_bytes(), "{n}");
            assert_eq!(digits(n), n.to_string().len());
            let mut buf = [0_u8; 20];
            assert_eq!(digits_in(&mut buf, n), n.to_string().as_bytes(), "{n}");
        }
    }

    #[test]
    fn write_digits_fills_exactly_the_slice_it_is_given() {
        let mut out = *b"[.....]";
        write_digits(&mut out[1..6], 40_213);
        assert_eq!(&out, b"[40213]");
        write_digits(&mut out[1..6], 7);
        assert_eq!(&out, b"[40217]", "a width too wide keeps the leading bytes");
        write_digits(&mut out[1..3], 40_213);
        assert_eq!(
            &out, b"[13217]",
            "a width too narrow keeps the lowest digits"
        );
    }

    #[test]
    fn push_crlf_adds_the_line_end_and_nothing_else() {
        let mut out = b"$".to_vec();
        push(&mut out, 40_213);
        assert_eq!(out, b"$40213");
        push_crlf(&mut out, 7);
        assert_eq!(out, b"$402137\r\n");
        push_crlf(&mut out, u64::MAX);
        assert_eq!(out, b"$402137\r\n18446744073709551615\r\n");
    }
}
