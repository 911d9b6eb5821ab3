//! The parallel fast path of the text readers: a file's data lines split
//! into blocks at line boundaries, each block tokenized in place (no
//! allocation per line) on its own rayon thread.
//!
//! The fast path only ever *accepts*: a block that holds anything the
//! format does not allow makes it give up (`None`), and the reader then
//! runs its line-by-line reader over the same bytes, which finds the first
//! problem and reports it with its line. The two accept exactly the same
//! lines with the same values (the number parsers here are the ones of
//! [`text`](super::text), with a shortcut for plain digit strings that
//! gives the same `f64`).

use rayon::prelude::*;

/// Splits `bytes` into blocks that end at line ends (`\n`), about
/// `4 × threads` of them (at least 256 KiB each).
pub(super) fn blocks(bytes: &[u8]) -> Vec<&[u8]> {
    let parts = 4 * rayon::current_num_threads().max(1);
    let step = (bytes.len() / parts).max(256 << 10);
    let mut out = Vec::with_capacity(parts + 1);
    let mut start = 0;
    while start < bytes.len() {
        let mut end = (start + step).min(bytes.len());
        if end < bytes.len() {
            end = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |p| end + p + 1);
        }
        out.push(&bytes[start..end]);
        start = end;
    }
    out
}

/// Runs `f` on every block in parallel; `None` when any block gives up.
pub(super) fn parse_blocks<T: Send>(bytes: &[u8], f: impl Fn(&[u8]) -> Option<T> + Sync) -> Option<Vec<T>> {
    blocks(bytes).into_par_iter().map(&f).collect()
}

/// The lines of a block, without their `\n` (a trailing `\r` is left: it
/// is whitespace to the tokenizer).
pub(super) fn lines(block: &[u8]) -> impl Iterator<Item = &[u8]> {
    memchr::memchr_iter(b'\n', block).chain(std::iter::once(block.len())).scan(0usize, move |start, end| {
        let line = &block[*start..end];
        *start = end + 1;
        Some(line)
    })
}

/// A cursor over the whitespace-separated tokens of a line (whitespace as
/// [`u8::is_ascii_whitespace`], like [`text::split_ws`](super::text::split_ws)).
pub(super) struct Tokens<'a> {
    line: &'a [u8],
    i: usize,
}

impl<'a> Tokens<'a> {
    pub(super) fn new(line: &'a [u8]) -> Self {
        Tokens { line, i: 0 }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let l = self.line;
        let mut i = self.i;
        while i < l.len() && l[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == l.len() {
            self.i = i;
            return None;
        }
        let start = i;
        while i < l.len() && !l[i].is_ascii_whitespace() {
            i += 1;
        }
        self.i = i;
        Some(&l[start..i])
    }
}

/// Skips spaces, tabs, `\r` and form feeds (whitespace other than `\n`)
/// at `*at`.
#[inline]
pub(super) fn skip_space(b: &[u8], at: &mut usize) {
    while *at < b.len() && matches!(b[*at], b' ' | b'\t' | b'\r' | b'\x0c') {
        *at += 1;
    }
}

/// A plain decimal of 1 to 18 digits at `*at` (no sign), moving past it;
/// `None` for anything else, or when a character other than whitespace
/// follows the digits.
#[inline]
pub(super) fn digits(b: &[u8], at: &mut usize) -> Option<u64> {
    let start = *at;
    let mut v = 0u64;
    while *at < b.len() && b[*at].is_ascii_digit() {
        v = v * 10 + u64::from(b[*at] - b'0');
        *at += 1;
    }
    let len = *at - start;
    let end_ok = *at == b.len() || b[*at].is_ascii_whitespace();
    (len > 0 && len <= 18 && end_ok).then_some(v)
}

/// The token at `*at` (up to the next whitespace), moving past it.
#[inline]
pub(super) fn token<'a>(b: &'a [u8], at: &mut usize) -> &'a [u8] {
    let start = *at;
    while *at < b.len() && !b[*at].is_ascii_whitespace() {
        *at += 1;
    }
    &b[start..*at]
}

/// Moves `*at` past the end of the line (`true`), where only whitespace
/// is left on it; `false` when something else is.
#[inline]
pub(super) fn end_of_line(b: &[u8], at: &mut usize) -> bool {
    skip_space(b, at);
    if *at == b.len() {
        return true;
    }
    let nl = b[*at] == b'\n';
    *at += 1;
    nl
}

/// Moves `*at` past the end of the line, whatever is on it.
#[inline]
pub(super) fn skip_line(b: &[u8], at: &mut usize) {
    *at = memchr::memchr(b'\n', &b[*at..]).map_or(b.len(), |p| *at + p + 1);
}

/// Weights as a block reads them: none stored while every weight is 1
/// (the common way to write an unweighted graph), then one per entry.
#[derive(Default)]
pub(super) struct Weights {
    /// Empty while every weight so far is 1.
    pub values: Vec<f64>,
}

impl Weights {
    /// Adds the weight of entry `k` (0-based in the block).
    #[inline]
    pub(super) fn push(&mut self, k: usize, w: f64) {
        if self.values.is_empty() {
            if w == 1.0 {
                return;
            }
            self.values.resize(k, 1.0);
        }
        self.values.push(w);
    }
}

/// A finite real as [`text::parse_f64`](super::text::parse_f64) reads it;
/// a string of at most 15 digits is read by a digit loop (exact, so the
/// same value).
#[inline]
pub(super) fn parse_f64(tok: &[u8]) -> Option<f64> {
    if !tok.is_empty() && tok.len() <= 15 && tok.iter().all(u8::is_ascii_digit) {
        let v = tok.iter().fold(0u64, |v, &b| v * 10 + u64::from(b - b'0'));
        return Some(v as f64);
    }
    super::text::parse_f64(tok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_end_at_line_ends_and_cover_the_bytes() {
        let text: String = (0..200_000).map(|i| format!("{i} {}\n", i * 3)).collect();
        let b = blocks(text.as_bytes());
        assert!(b.len() > 1);
        assert_eq!(b.concat(), text.as_bytes());
        assert!(b.iter().all(|x| x.ends_with(b"\n")));
        assert!(blocks(b"").is_empty());
        assert_eq!(blocks(b"1 2"), [b"1 2"]);
    }

    #[test]
    fn tokens_and_lines() {
        let t: Vec<_> = Tokens::new(b" 1\t+2  3\r").collect();
        assert_eq!(t, [&b"1"[..], b"+2", b"3"]);
        assert_eq!(Tokens::new(b"  ").count(), 0);
        let l: Vec<_> = lines(b"a\nb\r\n\nc").collect();
        assert_eq!(l, [&b"a"[..], b"b\r", b"", b"c"]);
    }

    #[test]
    fn cursor_helpers() {
        let b = b" 12\t7 x\n%c\n";
        let mut at = 0;
        skip_space(b, &mut at);
        assert_eq!(digits(b, &mut at), Some(12));
        skip_space(b, &mut at);
        assert_eq!(digits(b, &mut at), Some(7));
        assert!(!end_of_line(b, &mut at));
        let mut at = 0;
        assert_eq!(digits(b"12a", &mut at), None);
        assert_eq!(digits(b"", &mut 0), None);
        assert_eq!(digits(b"1234567890123456789", &mut 0), None);
        assert_eq!(token(b"1.5e3 z", &mut 0), b"1.5e3");
        let mut at = 0;
        skip_line(b, &mut at);
        assert_eq!(&b[at..], b"%c\n");
        let mut at = 3;
        assert!(end_of_line(b"1 2 \r\n3", &mut at) && at == 6);
        let mut w = Weights::default();
        w.push(0, 1.0);
        w.push(1, 1.0);
        assert!(w.values.is_empty());
        w.push(2, 3.0);
        w.push(3, 1.0);
        assert_eq!(w.values, [1.0, 1.0, 3.0, 1.0]);
    }

    #[test]
    fn floats_match_the_line_reader() {
        for t in ["0", "1", "007", "123456789012345", "1234567890123456789", "1.5", "-0", "+3", "1e3", "", "x", "nan"] {
            assert_eq!(parse_f64(t.as_bytes()), super::super::text::parse_f64(t.as_bytes()), "{t:?}");
        }
    }
}
