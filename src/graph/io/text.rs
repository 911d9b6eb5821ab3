//! Line-aware tokenizing and number parsing shared by the readers.
//!
//! The readers work on the raw bytes of a file (read whole): lines end in
//! `\n` (a trailing `\r` is dropped, so CRLF files read as well), numbers are
//! parsed with checked arithmetic, and every problem is reported with its
//! 1-based line. Non-UTF-8 bytes are only ever shown (lossily) in messages.

use super::IoError;
use std::path::Path;

/// The UTF-8 encoding of the byte-order mark U+FEFF.
pub(super) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Refuses a file that starts with a byte-order mark (BOM): UTF-8's
/// `EF BB BF`, which some Windows editors write, or UTF-16's `FF FE` /
/// `FE FF`, whose text the readers cannot read at all.
pub(super) fn check_bom(path: &Path, bytes: &[u8]) -> Result<(), IoError> {
    let (found, fix) = if bytes.starts_with(UTF8_BOM) {
        (
            "a UTF-8 byte-order mark (BOM, bytes EF BB BF) at the start of the file",
            "save the file again as UTF-8 without BOM, or remove the mark with `sed -i '1s/^\\xEF\\xBB\\xBF//' FILE`",
        )
    } else if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") {
        (
            "a UTF-16 byte-order mark (BOM, bytes FF FE or FE FF): the file is UTF-16 text",
            "save the file again as UTF-8 or ASCII, e.g. with `iconv -f UTF-16 -t UTF-8`",
        )
    } else if let Some((kind, tool)) = compressed(bytes) {
        return Err(malformed(
            path,
            1,
            format!("plain text (decompress the file first, e.g. `{tool} -dk FILE`, or pass `<({tool} -dc FILE)`)"),
            format!("a {kind}-compressed file"),
        ));
    } else {
        return Ok(());
    };
    Err(malformed(path, 1, format!("plain ASCII or UTF-8 text without a byte-order mark ({fix})"), found))
}

/// The compression format whose magic bytes start `bytes`, and its tool.
fn compressed(bytes: &[u8]) -> Option<(&'static str, &'static str)> {
    const MAGIC: [(&[u8], &str, &str); 4] = [
        (b"\x1F\x8B", "gzip", "gzip"),
        (b"BZh", "bzip2", "bzip2"),
        (b"\xFD7zXZ\x00", "xz", "xz"),
        (b"\x28\xB5\x2F\xFD", "zstd", "zstd"),
    ];
    MAGIC.iter().find(|m| bytes.starts_with(m.0)).map(|m| (m.1, m.2))
}

/// The lines of `bytes`, each without its `\n` / `\r\n`, numbered from 1.
pub(super) fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    // An empty file has no lines (not one empty line).
    let n = if bytes.is_empty() { 0 } else { usize::MAX };
    bytes.split(|&b| b == b'\n').take(n).enumerate().map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l)))
}

/// `bytes` without trailing whitespace-only lines (and so without its final
/// newline): the data lines of a file whose lines all carry data.
pub(super) fn trim_trailing_blank(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |p| p + 1);
    &bytes[..end]
}

/// Whether a line holds nothing but whitespace.
pub(super) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// A line or token as shown in a message: quoted, escaped, cut at 60 characters.
pub(super) fn show(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "an empty line".to_string();
    }
    let s = String::from_utf8_lossy(bytes);
    let mut cut: String = s.chars().take(60).collect();
    if cut.len() < s.len() {
        cut.push('…');
    }
    format!("{cut:?}")
}

/// An error at `line` of `path`.
pub(super) fn malformed(path: &Path, line: usize, expected: impl Into<String>, found: impl Into<String>) -> IoError {
    IoError::Malformed { path: path.to_path_buf(), line, expected: expected.into(), found: found.into() }
}

/// Splits a TU line into fields separated by a comma (with optional spaces
/// around it) or by whitespace alone. An empty field (`1,,2`, `,1`, `1,`)
/// is an error: `Err(())`.
pub(super) fn split_fields<'a>(line: &'a [u8], out: &mut Vec<&'a [u8]>) -> Result<(), ()> {
    out.clear();
    let n = line.len();
    let skip_ws = |mut i: usize| {
        while i < n && line[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let mut i = skip_ws(0);
    if i == n {
        return Ok(());
    }
    loop {
        let start = i;
        while i < n && !line[i].is_ascii_whitespace() && line[i] != b',' {
            i += 1;
        }
        if start == i {
            return Err(());
        }
        out.push(&line[start..i]);
        i = skip_ws(i);
        if i == n {
            return Ok(());
        }
        if line[i] == b',' {
            i = skip_ws(i + 1);
            if i == n {
                return Err(());
            }
        }
    }
}

/// Splits on whitespace only.
pub(super) fn split_ws<'a>(line: &'a [u8], out: &mut Vec<&'a [u8]>) {
    out.clear();
    out.extend(line.split(u8::is_ascii_whitespace).filter(|t| !t.is_empty()));
}

/// A decimal integer with an optional sign; `None` on anything else or on
/// overflow.
pub(super) fn parse_i64(tok: &[u8]) -> Option<i64> {
    let (neg, digits) = match tok.first()? {
        b'-' => (true, &tok[1..]),
        b'+' => (false, &tok[1..]),
        _ => (false, tok),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        let d = (b - b'0') as i64;
        v = if neg { v.checked_mul(10)?.checked_sub(d)? } else { v.checked_mul(10)?.checked_add(d)? };
    }
    Some(v)
}

/// A non-negative decimal integer (an optional `+`); `None` on anything
/// else or on overflow.
pub(super) fn parse_usize(tok: &[u8]) -> Option<usize> {
    let digits = tok.strip_prefix(b"+").unwrap_or(tok);
    if digits.is_empty() {
        return None;
    }
    let mut v: usize = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((b - b'0') as usize)?;
    }
    Some(v)
}

/// A real number in any form Rust's `f64` parser takes (`1`, `-2.5`,
/// `3e-4`, …) that is finite; `None` otherwise.
pub(super) fn parse_f64(tok: &[u8]) -> Option<f64> {
    let v: f64 = std::str::from_utf8(tok).ok()?.parse().ok()?;
    v.is_finite().then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(s: &str) -> Result<Vec<String>, ()> {
        let mut out = Vec::new();
        split_fields(s.as_bytes(), &mut out)?;
        Ok(out.iter().map(|t| String::from_utf8_lossy(t).into_owned()).collect())
    }

    #[test]
    fn splits_tu_fields() {
        assert_eq!(fields("1, 2").unwrap(), ["1", "2"]);
        assert_eq!(fields(" 1,2 ").unwrap(), ["1", "2"]);
        assert_eq!(fields("1\t2").unwrap(), ["1", "2"]);
        assert_eq!(fields(" 23.000000").unwrap(), ["23.000000"]);
        assert!(fields("").unwrap().is_empty());
        assert!(fields("1,,2").is_err());
        assert!(fields(",1").is_err());
        assert!(fields("1, ").is_err());
    }

    #[test]
    fn lines_strip_crlf_and_final_newline() {
        let l: Vec<_> = lines(b"a\r\nb\n\nc\n").collect();
        assert_eq!(l, [(1, &b"a"[..]), (2, b"b"), (3, b""), (4, b"c")]);
        assert_eq!(lines(b"").count(), 0);
        assert_eq!(lines(b"\n").count(), 0);
        assert_eq!(lines(b"\n\n").count(), 2);
        assert_eq!(trim_trailing_blank(b"1\n2\r\n \n\n"), b"1\n2");
    }

    #[test]
    fn names_a_bom() {
        let p = Path::new("g.txt");
        assert!(check_bom(p, b"0 1\n").is_ok());
        let e = check_bom(p, b"\xEF\xBB\xBF0 1\n").unwrap_err().to_string();
        assert!(e.starts_with("g.txt:1:") && e.contains("byte-order mark (BOM"), "{e}");
        let e = check_bom(p, b"\xFF\xFE0\x00").unwrap_err().to_string();
        assert!(e.contains("UTF-16"), "{e}");
        let e = check_bom(p, b"\x1F\x8B\x08\x00").unwrap_err().to_string();
        assert!(e.starts_with("g.txt:1:") && e.contains("gzip-compressed") && e.contains("gzip -dk"), "{e}");
    }

    #[test]
    fn parses_numbers() {
        assert_eq!(parse_i64(b"-12"), Some(-12));
        assert_eq!(parse_i64(b"+7"), Some(7));
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64(b"9223372036854775808"), None);
        assert_eq!(parse_i64(b"-"), None);
        assert_eq!(parse_i64(b"1.0"), None);
        assert_eq!(parse_usize(b"18446744073709551616"), None);
        assert_eq!(parse_usize(b"-1"), None);
        assert_eq!(parse_f64(b"2.5e1"), Some(25.0));
        assert_eq!(parse_f64(b"nan"), None);
        assert_eq!(parse_f64(b"inf"), None);
        assert_eq!(parse_f64(b"\xff"), None);
    }
}
