//! The SPEC lexer: names, quoted field names, numbers and punctuation, each
//! with its column.

use super::SpecError;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Name(String),
    Quoted(String),
    Number(f64),
    Punct(char),
    End,
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub tok: Tok,
    pub text: String,
    pub column: usize,
}

/// The tokens of `spec`, ending with [`Tok::End`].
pub(super) fn lex(spec: &str) -> Result<Vec<Token>, SpecError> {
    let chars: Vec<char> = spec.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let tok = if c.is_ascii_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            if s == "inf" {
                Tok::Number(f64::INFINITY)
            } else {
                Tok::Name(s)
            }
        } else if c.is_ascii_digit() || (c == '.' && i + 1 < chars.len() && chars[i + 1].is_ascii_digit()) {
            i += 1;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric()
                    || chars[i] == '.'
                    || ((chars[i] == '-' || chars[i] == '+') && matches!(chars[i - 1], 'e' | 'E')))
            {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            match s.parse::<f64>() {
                Ok(x) => Tok::Number(x),
                Err(_) => return Err(error(spec, start + 1, &format!("`{s}`"), "a number such as 0.5 or 1e-3")),
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += 1;
            }
            if i == chars.len() {
                return Err(error(spec, start + 1, "an unterminated quote", "a closing `\"`"));
            }
            i += 1;
            Tok::Quoted(chars[start + 1..i - 1].iter().collect())
        } else if "(),*+^[]-/.".contains(c) {
            i += 1;
            Tok::Punct(c)
        } else {
            return Err(error(
                spec,
                start + 1,
                &format!("`{c}`"),
                "a kernel, a number or one of ( ) , * + - / ^ [ ] .",
            ));
        };
        out.push(Token { tok, text: chars[start..i].iter().collect(), column: start + 1 });
    }
    out.push(Token { tok: Tok::End, text: String::new(), column: chars.len() + 1 });
    Ok(out)
}

/// A [`SpecError`] at `column` (1-based).
pub(super) fn error(spec: &str, column: usize, found: &str, expected: &str) -> SpecError {
    SpecError {
        column,
        found: found.to_string(),
        expected: expected.to_string(),
        spec: spec.to_string(),
        caret: format!("{}^", " ".repeat(column.saturating_sub(1))),
    }
}
