//! [`CudaSemiring`]: the CUDA C++ form of a semiring, and a syntax check.

use std::collections::BTreeSet;

/// The CUDA C++ form of a semiring, as source text.
///
/// [`source`](Self::source) assembles a self-contained preface that a kernel
/// template includes before its body:
///
/// ```text
/// typedef <a_type> kg_a_t;  typedef <b_type> kg_b_t;  typedef <c_type> kg_c_t;
/// #define KG_IDENTITY (<identity>)
/// #define KG_HAS_TERMINAL 0|1        // and KG_TERMINAL (<terminal>) when 1
/// #define KG_IS_TERMINAL(x) (...)    // whether an accumulated x may stop a reduction
/// <helpers>                           // extra __device__ functions (e.g. a field multiply)
/// __device__ __forceinline__ kg_c_t kg_add(kg_c_t x, kg_c_t y) { <add> }
/// __device__ __forceinline__ kg_c_t kg_mul(kg_a_t a, kg_b_t b, long long i, long long k, long long j) { <multiply> }
/// __device__ __forceinline__ void kg_atomic_add(kg_c_t *p, kg_c_t v) { <atomic_update> }
/// ```
///
/// `kg_atomic_add(p, v)` performs `*p = *p ⊕ v` atomically (a native atomic
/// where CUDA has one, else a compare-and-swap loop; for idempotent monoids
/// whose update is a plain store of a final value, a store).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaSemiring {
    /// Kernel-name-safe name (`min_plus_f64`).
    pub name: String,
    /// C++ type of the first operand.
    pub a_type: String,
    /// C++ type of the second operand.
    pub b_type: String,
    /// C++ type of the output.
    pub c_type: String,
    /// Expression for the additive identity.
    pub identity: String,
    /// Expression for the terminal value, if any.
    pub terminal: Option<String>,
    /// Whether every value is terminal (the ANY monoid).
    pub any_terminal: bool,
    /// Extra `__device__` functions the bodies use (may be empty).
    pub helpers: String,
    /// Body of `kg_add(x, y)`.
    pub add: String,
    /// Body of `kg_mul(a, b, i, k, j)`.
    pub multiply: String,
    /// Body of `kg_atomic_add(p, v)`.
    pub atomic_update: String,
}

impl CudaSemiring {
    /// The form of a semiring that has none (the default of
    /// [`Semiring::cuda`](crate::Semiring::cuda)): it passes
    /// [`check_cuda_snippet`], and compiling it stops at an `#error` that
    /// names the semiring and says to implement `Semiring::cuda`.
    pub fn unavailable(name: &str) -> Self {
        let ident: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        let ident = if ident.is_empty() { "user_semiring".to_string() } else { ident };
        let msg = format!("semiring {ident} has no CUDA form: implement Semiring::cuda to run it on the GPU");
        CudaSemiring {
            name: ident,
            a_type: "int".into(),
            b_type: "int".into(),
            c_type: "int".into(),
            identity: "0".into(),
            terminal: None,
            any_terminal: false,
            helpers: format!("#error \"{msg}\"\n"),
            add: "return x;".into(),
            multiply: "return a;".into(),
            atomic_update: "*p = v;".into(),
        }
    }

    /// The complete preface (see the type's documentation).
    pub fn source(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!("// semiring {}\n", self.name));
        s.push_str(&format!(
            "typedef {} kg_a_t;\ntypedef {} kg_b_t;\ntypedef {} kg_c_t;\n",
            self.a_type, self.b_type, self.c_type
        ));
        s.push_str(&format!("#define KG_IDENTITY ({})\n", self.identity));
        match &self.terminal {
            Some(t) => {
                s.push_str(&format!("#define KG_HAS_TERMINAL 1\n#define KG_TERMINAL ({t})\n"));
                s.push_str("#define KG_IS_TERMINAL(x) ((x) == KG_TERMINAL)\n");
            }
            None => {
                s.push_str("#define KG_HAS_TERMINAL 0\n");
                s.push_str(if self.any_terminal {
                    "#define KG_IS_TERMINAL(x) (true)\n"
                } else {
                    "#define KG_IS_TERMINAL(x) (false)\n"
                });
            }
        }
        if !self.helpers.is_empty() {
            s.push_str(&self.helpers);
            s.push('\n');
        }
        s.push_str(&format!("__device__ __forceinline__ kg_c_t kg_add(kg_c_t x, kg_c_t y) {{\n    {}\n}}\n", self.add));
        s.push_str(&format!(
            "__device__ __forceinline__ kg_c_t kg_mul(kg_a_t a, kg_b_t b, long long i, long long k, long long j) {{\n    {}\n}}\n",
            self.multiply
        ));
        s.push_str(&format!(
            "__device__ __forceinline__ void kg_atomic_add(kg_c_t *p, kg_c_t v) {{\n    {}\n}}\n",
            self.atomic_update
        ));
        s
    }
}

/// What is wrong with a CUDA snippet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CudaSnippetError {
    /// Parentheses, brackets or braces do not match.
    Unbalanced {
        /// The semiring.
        name: String,
        /// Byte offset of the problem.
        offset: usize,
    },
    /// A `kg_`/`KG_` name is used but not defined, or defined twice.
    Names {
        /// The semiring.
        name: String,
        /// What is wrong.
        what: String,
    },
    /// A part is empty or a body is not a statement.
    Malformed {
        /// The semiring.
        name: String,
        /// What is wrong.
        what: String,
    },
}

impl std::error::Error for CudaSnippetError {}

impl std::fmt::Display for CudaSnippetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CudaSnippetError::Unbalanced { name, offset } => {
                write!(f, "CUDA form of semiring {name}: unbalanced delimiter at byte {offset}")
            }
            CudaSnippetError::Names { name, what } => write!(f, "CUDA form of semiring {name}: {what}"),
            CudaSnippetError::Malformed { name, what } => write!(f, "CUDA form of semiring {name}: {what}"),
        }
    }
}

/// The names every preface must define.
const REQUIRED: [&str; 9] = [
    "kg_a_t",
    "kg_b_t",
    "kg_c_t",
    "KG_IDENTITY",
    "KG_HAS_TERMINAL",
    "KG_IS_TERMINAL",
    "kg_add",
    "kg_mul",
    "kg_atomic_add",
];

/// Checks that a semiring's CUDA form is syntactically consistent: every
/// part is non-empty, bodies are statements ending in `;` or `}`, the
/// assembled source has balanced `()[]{}` (outside comments and literals),
/// each required name (`kg_a_t`, …, `kg_atomic_add`) and each helper is
/// defined exactly once, and every `kg_*`/`KG_*` name used is defined.
///
/// This is a syntax-level check; compiling with NVRTC is the CUDA backend's test.
///
/// # Errors
/// A [`CudaSnippetError`] naming the semiring and the problem.
pub fn check_cuda_snippet(c: &CudaSemiring) -> Result<(), CudaSnippetError> {
    let name = c.name.clone();
    let malformed = |what: String| CudaSnippetError::Malformed { name: name.clone(), what };
    for (part, text) in [
        ("name", &c.name),
        ("a_type", &c.a_type),
        ("b_type", &c.b_type),
        ("c_type", &c.c_type),
        ("identity", &c.identity),
        ("add", &c.add),
        ("multiply", &c.multiply),
        ("atomic_update", &c.atomic_update),
    ] {
        if text.trim().is_empty() {
            return Err(malformed(format!("{part} is empty")));
        }
    }
    if !c.name.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_') {
        return Err(malformed(format!("name {:?} is not an identifier", c.name)));
    }
    for (part, body) in [("add", &c.add), ("multiply", &c.multiply), ("atomic_update", &c.atomic_update)] {
        let t = body.trim_end();
        if !(t.ends_with(';') || t.ends_with('}')) {
            return Err(malformed(format!("{part} body does not end with ';' or '}}'")));
        }
    }
    if !(c.add.contains("return") && c.multiply.contains("return")) {
        return Err(malformed("add and multiply must return a value".into()));
    }
    let src = c.source();
    let code = strip_comments_and_literals(&src);
    check_balanced(&code).map_err(|offset| CudaSnippetError::Unbalanced { name: c.name.clone(), offset })?;

    // Definitions: typedef names, #define names, and functions at brace depth 0.
    let mut defined: Vec<String> = Vec::new();
    for line in code.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("#define ") {
            let ident: String = rest.chars().take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_').collect();
            defined.push(ident);
        } else if l.starts_with("typedef ") {
            let ident = l.trim_end_matches(';').split_whitespace().last().unwrap_or("").to_string();
            defined.push(ident);
        }
    }
    defined.extend(top_level_functions(&code));
    let mut seen = BTreeSet::new();
    for d in &defined {
        if !seen.insert(d.clone()) {
            return Err(CudaSnippetError::Names { name: c.name.clone(), what: format!("{d} is defined twice") });
        }
    }
    for r in REQUIRED {
        if !seen.contains(r) {
            return Err(CudaSnippetError::Names { name: c.name.clone(), what: format!("{r} is not defined") });
        }
    }
    if c.terminal.is_some() && !seen.contains("KG_TERMINAL") {
        return Err(CudaSnippetError::Names { name: c.name.clone(), what: "KG_TERMINAL is not defined".into() });
    }
    for ident in identifiers(&code) {
        let lower = ident.to_ascii_lowercase();
        if lower.starts_with("kg_") && !seen.contains(&ident) {
            return Err(CudaSnippetError::Names {
                name: c.name.clone(),
                what: format!("{ident} is used but not defined"),
            });
        }
    }
    Ok(())
}

/// Replaces comments and the contents of string/char literals by spaces.
fn strip_comments_and_literals(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'/' {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'*' {
            while i < b.len() && !(b[i] == b'*' && i + 1 < b.len() && b[i + 1] == b'/') {
                out.push(if b[i] == b'\n' { b'\n' } else { b' ' });
                i += 1;
            }
            out.extend_from_slice(b"  ");
            i += 2;
        } else if b[i] == b'"' || b[i] == b'\'' {
            let q = b[i];
            out.push(q);
            i += 1;
            while i < b.len() && b[i] != q {
                if b[i] == b'\\' {
                    out.push(b' ');
                    i += 1;
                }
                out.push(b' ');
                i += 1;
            }
            out.push(q);
            i += 1;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn check_balanced(code: &str) -> Result<(), usize> {
    let mut stack = Vec::new();
    for (i, ch) in code.char_indices() {
        match ch {
            '(' | '[' | '{' => stack.push((ch, i)),
            ')' | ']' | '}' => {
                let open = match ch {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                match stack.pop() {
                    Some((o, _)) if o == open => {}
                    _ => return Err(i),
                }
            }
            _ => {}
        }
    }
    match stack.pop() {
        Some((_, i)) => Err(i),
        None => Ok(()),
    }
}

/// Names of functions defined at brace depth 0: the identifier before the
/// first `(` of a line that opens a `{` body.
fn top_level_functions(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut depth = 0i32;
    let mut stmt = String::new();
    for ch in code.chars() {
        match ch {
            '{' => {
                if depth == 0 {
                    if let Some(p) = stmt.find('(') {
                        let head = &stmt[..p];
                        if let Some(id) = identifiers(head).last() {
                            names.push(id.clone());
                        }
                    }
                }
                depth += 1;
                stmt.clear();
            }
            '}' => {
                depth -= 1;
                stmt.clear();
            }
            ';' | '\n' if depth == 0 && stmt.trim_start().starts_with('#') => stmt.clear(),
            ';' if depth == 0 => stmt.clear(),
            _ => {
                if depth == 0 {
                    stmt.push(ch)
                }
            }
        }
    }
    names
}

fn identifiers(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_is_num_start = false;
    for ch in code.chars().chain(std::iter::once(' ')) {
        if ch.is_ascii_alphanumeric() || ch == '_' {
            if cur.is_empty() {
                prev_is_num_start = ch.is_ascii_digit();
            }
            cur.push(ch);
        } else {
            if !cur.is_empty() && !prev_is_num_start {
                out.push(std::mem::take(&mut cur));
            }
            cur.clear();
        }
    }
    out
}

#[cfg(test)]
mod unavailable_tests {
    use super::*;

    /// The default form passes the syntax check and carries the message.
    #[test]
    fn unavailable_form_is_well_formed_and_says_why() {
        let c = CudaSemiring::unavailable("my ring");
        check_cuda_snippet(&c).unwrap();
        assert_eq!(c.name, "my_ring");
        assert!(c.source().contains("#error \"semiring my_ring has no CUDA form: implement Semiring::cuda"));
    }
}
