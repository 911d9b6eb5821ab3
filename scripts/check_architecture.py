#!/usr/bin/env python3
"""Checks the layout claims of docs/ARCHITECTURE.md (run by scripts/test.sh):

- no source file in src/ or kernels/ is over 600 lines;
- `cuda/` is the bottom layer: no code in src/cuda/ names the crate's
  `mgk`, `rw`, `matrix` or `algorithms` modules (comments and doc links aside);
- no dependency cycles, between the library's top-level modules
  (`crate::mgk` → `crate::cuda` → …) or between source files (the library's
  and the CLI's, src/bin/kronograph/);
- every "`a` → `b`" claim in docs/ARCHITECTURE.md's "Dependencies" section
  is an edge of the module graph, and every edge of the module graph is
  claimed there (the section lists the whole graph).

The dependency graph is computed from the code (comments and string
literals removed): every path `crate::…`, `super::…`, `self::…` or one
that starts with a child module or an imported name, in `use` items and in
expressions, resolved through the modules' `use` items and re-exports to
the file that defines the item. Unit tests (`#[cfg(test)]` modules) are
left out: they are not part of the library. A module may re-export its own children's
items (`pub use self::child::Item`): that is its interface, not a
dependency. Any other `use`, `pub use` included, is one; `REEXPORTS` below
lists the compatibility re-exports allowed to point up the graph.

`python3 scripts/check_architecture.py --graph` prints the module graph.
Exits with status 1 and one line per violation.
"""
import pathlib
import re
import sys
from collections import defaultdict

MAX_LINES = 600
ROOT = pathlib.Path(__file__).resolve().parent.parent
UPWARD = re.compile(r"\bcrate::(mgk|rw|matrix|algorithms)\b")

# (module, module): a `pub use` re-export that keeps a former public path
# working; it is left out of the cycle check (and printed).
REEXPORTS = {
    ("mgk", "rw"): "mgk::{RandomWalkKernel, RwMethod}, the random-walk kernel's former path",
    ("cuda", "backend"): "cuda::{Backend, resolve_backend}, the backend choice's former path",
}

# Cycles known and not yet broken (each with why), reported as warnings so
# that a new one fails; remove an entry when its cycle is gone (an entry
# whose cycle is gone is an error, so the list stays true).
KNOWN_CYCLES = {
    frozenset({"kron", "mgk"}): "kron re-exports the device twins and solve_pairs_gpu, which run on the MGK's "
    "GPU packer and code generation (mgk/gpu/kron_device.rs, kron/pair_gpu.rs)",
}

# Folders whose file-level cycles are reported as warnings, not errors, while
# the work on them is under way elsewhere (empty when none).
FILE_CYCLE_WARN_ONLY: tuple = ()

# Modules at the crate root's level, left out of the module graph: `error`
# holds `crate::Error`, the union of every module's error type, which any
# module may return (as lib.rs re-exports every module).
ROOT_LEVEL = {"error"}

KEYWORDS = {
    "fn", "struct", "enum", "trait", "type", "const", "static", "union", "mod", "impl", "pub", "use", "let",
    "mut", "unsafe", "extern", "crate", "super", "self", "Self", "where", "for", "as", "dyn", "async",
}


def code_of(line: str) -> str:
    """The line without its `//` comment (string literals holding `//` are rare in src/cuda)."""
    return line.split("//", 1)[0]


def strip(text: str) -> str:
    """`text` with comments and the contents of string and char literals
    blanked (newlines kept, so offsets map to the same lines)."""
    out = []
    i, n = 0, len(text)

    def blank(s):
        return "".join(c if c == "\n" else " " for c in s)

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(text[i:j]))
            i = j
        elif (c == "r" or text.startswith("br", i)) and re.match(r"b?r#*\"", text[i:i + 12]) and (
            i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")
        ):
            m = re.match(r"b?r(#*)\"", text[i:])
            end = text.find('"' + m.group(1), i + m.end())
            end = n if end < 0 else end + 1 + len(m.group(1))
            out.append('""' + blank(text[i + 2:end]))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('"' + blank(text[i + 1:j]) + '"')
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|[^\\'])'", text[i:])
            if m:
                out.append("' '" + " " * (m.end() - 3))
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Module:
    def __init__(self, path, file):
        self.path = path  # tuple of names from the crate root
        self.file = file
        self.items = {}  # name -> file defining it
        self.uses = {}  # local name -> absolute path (tuple)
        self.globs = []  # absolute paths of `use …::*`


class Crate:
    """One crate's modules, read from its files."""

    def __init__(self, name, root_file):
        self.name = name
        self.modules = {}
        self.refs = []  # (file, line, module path, absolute path or None, head path, is a pub use)
        self.files = []
        self.file_module = {}  # file -> the module it holds
        self._load(root_file, ())

    def _load(self, file, modpath, test_only=False):
        text = strip(file.read_text(encoding="utf-8"))
        self.files.append(file)
        self.file_module[file] = modpath
        self.modules.setdefault(modpath, Module(modpath, file))
        # inline modules: their spans, so that each offset knows its module
        spans = []  # (start, end, name path relative to the file's module)
        test_spans = []  # the spans of `#[cfg(test)] mod NAME { … }`
        for m in re.finditer(r"\bmod\s+(\w+)\s*\{", text):
            depth, j = 1, m.end()
            while j < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            spans.append((m.start(), j, m.group(1)))
            if re.search(r"#\[cfg\(test\)\]\s*$", text[: m.start()]):
                test_spans.append((m.start(), j))

        def in_test(pos):
            return test_only or any(a <= pos < b for a, b in test_spans)

        def module_at(pos):
            inner = [s for s in spans if s[0] < pos < s[1]]
            inner.sort()
            return modpath + tuple(s[2] for s in inner)

        for s0, _, name in spans:
            p = module_at(s0) + (name,)
            self.modules.setdefault(p, Module(p, file))
        # file modules declared here
        for m in re.finditer(r"(#\[path\s*=\s*\"[^\"]*\"\]\s*)?(?:pub(?:\([^)]*\))?\s+)?\bmod\s+(\w+)\s*;", text):
            is_test = in_test(m.start()) or bool(re.search(r"#\[cfg\(test\)\]\s*$", text[: m.start()]))
            name = m.group(2)
            here = module_at(m.start())
            base = file.parent if file.name in ("mod.rs", "lib.rs", "main.rs") else file.parent / file.stem
            raw = file.read_text(encoding="utf-8")
            pm = re.match(r"#\[path\s*=\s*\"([^\"]*)\"\]", raw[m.start():m.end()]) if m.group(1) else None
            if pm:
                child = file.parent / pm.group(1)
            else:
                child = base / f"{name}.rs" if (base / f"{name}.rs").exists() else base / name / "mod.rs"
            if child.exists() and child not in self.files:
                self._load(child, here + (name,), is_test)
        # items
        for m in re.finditer(r"\b(?:struct|enum|trait|fn|type|const|static|union)\s+(\w+)|macro_rules!\s*(\w+)", text):
            name = m.group(1) or m.group(2)
            if name in KEYWORDS:
                continue
            self.modules[module_at(m.start())].items.setdefault(name, file)
        # use items
        for m in re.finditer(r"(\bpub(?:\([^)]*\))?\s+)?\buse\s+([^;]*);", text):
            here = module_at(m.start())
            is_pub = bool(m.group(1))
            line = text.count("\n", 0, m.start()) + 1
            for rel, alias in self._use_tree(m.group(2)):
                absolute = self._absolute(rel, here)
                if absolute is None:
                    continue
                target = self.modules.setdefault(here, Module(here, file))
                if alias == "*":
                    target.globs.append(absolute)
                else:
                    target.uses.setdefault(alias, absolute)
                if not in_test(m.start()):
                    self.refs.append((file, line, here, absolute, rel, is_pub))
        # paths in expressions (those not in `use` items)
        use_spans = [(m.start(), m.end()) for m in re.finditer(r"\buse\s+[^;]*;", text)]
        for m in re.finditer(r"(?<![\w:])(\$?\w+)((?:\s*::\s*\w+)+)", text):
            if any(a <= m.start() < b for a, b in use_spans):
                continue
            segs = [m.group(1)] + [s for s in re.split(r"\s*::\s*", m.group(2)) if s]
            if segs[0] in ("Self", "std", "core", "alloc"):
                continue
            if in_test(m.start()):
                continue
            here = module_at(m.start())
            line = text.count("\n", 0, m.start()) + 1
            self.refs.append((file, line, here, None, tuple(segs), False))

    @staticmethod
    def _use_tree(s):
        """(path, local name) for each leaf of a use tree (`a::{b, c as d, e::*}`)."""
        # `c as d` → `c@d` before the whitespace goes (an `as` inside a name, such
        # as `mxm_hash`, is not an alias)
        s = re.sub(r"\s+", "", re.sub(r"\s+as\s+", "@", s))
        out = []

        def walk(prefix, t):
            parts, depth, cur = [], 0, ""
            for ch in t:
                if ch == "," and depth == 0:
                    parts.append(cur)
                    cur = ""
                    continue
                depth += {"{": 1, "}": -1}.get(ch, 0)
                cur += ch
            parts.append(cur)
            for p in parts:
                if not p:
                    continue
                if "{" in p:
                    head, rest = p.split("{", 1)
                    walk(prefix + [x for x in head.split("::") if x], rest[: rest.rfind("}")])
                    continue
                alias = None
                if "@" in p:
                    p, alias = p.split("@", 1)
                segs = prefix + [x for x in p.split("::") if x]
                if segs and segs[-1] == "self":
                    segs = segs[:-1]
                if segs and segs[-1] == "*":
                    out.append((tuple(segs[:-1]), "*"))
                elif segs:
                    out.append((tuple(segs), alias or segs[-1]))

        walk([], s)
        return out

    def _absolute(self, segs, here):
        """The absolute path of a use path written in module `here`, or None
        (another crate, the standard library)."""
        if not segs:
            return None
        head = segs[0]
        if head in ("crate", "$crate"):
            return tuple(segs[1:])
        if head == "self":
            return here + tuple(segs[1:])
        if head == "super":
            p, rest = here, list(segs)
            while rest and rest[0] == "super":
                p, rest = p[:-1], rest[1:]
            return p + tuple(rest)
        if here + (head,) in self.modules or self._child_file_exists(here, head):
            return here + tuple(segs)
        return None

    def _child_file_exists(self, here, name):
        m = self.modules.get(here)
        if m is None:
            return False
        f = m.file
        base = f.parent if f.name in ("mod.rs", "lib.rs", "main.rs") else f.parent / f.stem
        return (base / f"{name}.rs").exists() or (base / name / "mod.rs").exists()

    def resolve(self, segs, seen=None):
        """The file that defines the item at absolute path `segs` (or the
        module's file when it names a module), or None."""
        seen = set() if seen is None else seen
        if segs in seen:
            return None
        seen.add(segs)
        mod = ()
        for i, s in enumerate(segs):
            m = self.modules.get(mod)
            if m is None:
                return None
            if mod + (s,) in self.modules:
                mod = mod + (s,)
                continue
            if s in m.items:
                return m.items[s]
            if s in m.uses:
                return self.resolve(m.uses[s] + tuple(segs[i + 1:]), seen)
            for g in m.globs:
                r = self.resolve(g + tuple(segs[i:]), seen)
                if r is not None:
                    return r
            return None
        return self.modules[mod].file

    def resolve_in(self, here, segs):
        """Resolve a path written in module `here` (expressions: a head that
        is a child module or an imported name)."""
        head = segs[0]
        if head in ("crate", "$crate", "self", "super"):
            a = self._absolute(segs, here)
            return None if a is None else self.resolve(a)
        p = here
        while True:
            m = self.modules.get(p)
            if m is None:
                return None
            if p + (head,) in self.modules:
                return self.resolve(p + tuple(segs))
            if head in m.uses:
                return self.resolve(m.uses[head] + tuple(segs[1:]))
            if head in m.items:
                return m.items[head]
            for g in m.globs:
                r = self.resolve(g + tuple(segs))
                if r is not None:
                    return r
            return None

    def edges(self):
        """(from file, to file, line, is a re-export) for every reference
        that leaves its file; a module re-exporting its children's items is
        not an edge."""
        out = []
        for file, line, here, absolute, segs, is_pub in self.refs:
            target = self.resolve(absolute) if absolute is not None else self.resolve_in(here, segs)
            if target is None or target == file:
                continue
            if is_pub and absolute is not None:
                filemod = self.module_of(file)
                if absolute[: len(filemod)] == filemod:
                    continue  # the module's interface: its children's items
            out.append((file, target, line, is_pub))
        return out

    def module_of(self, file):
        return self.file_module[file]


def cycles(nodes, edges):
    """The strongly connected components with more than one node (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    adj = defaultdict(set)
    for a, b in edges:
        adj[a].add(b)
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(adj[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def rel(p):
    return str(p.relative_to(ROOT))


def dependency_errors(show_graph):
    errors, warnings = [], []
    lib = Crate("kronograph", ROOT / "src" / "lib.rs")
    cli = Crate("kronograph (CLI)", ROOT / "src" / "bin" / "kronograph" / "main.rs")
    # modules
    top = {f: (p[0] if p else None) for f, p in lib.file_module.items()}
    mod_edges = defaultdict(list)  # (a, b) -> [(file, line, is re-export)]
    lib_edges = lib.edges()
    for a, b, line, is_pub in lib_edges:
        ta, tb = top.get(a), top.get(b)
        if ta and tb and ta != tb and ROOT_LEVEL.isdisjoint((ta, tb)):
            mod_edges[(ta, tb)].append((a, line, is_pub))
    checked = []
    for (ta, tb), where in mod_edges.items():
        if (ta, tb) in REEXPORTS and all(p for _, _, p in where):
            continue
        checked.append((ta, tb))
    seen_known = set()
    for comp in cycles({t for e in checked for t in e}, checked):
        lines = [f"module cycle: {' ↔ '.join(comp)}:"]
        for ta, tb in checked:
            if ta in comp and tb in comp:
                f, line, _ = mod_edges[(ta, tb)][0]
                lines.append(f"    {ta} → {tb} ({rel(f)}:{line}, {len(mod_edges[(ta, tb)])} references)")
        known = KNOWN_CYCLES.get(frozenset(comp))
        if known:
            seen_known.add(frozenset(comp))
            warnings.append("\n".join(lines) + f"\n    known, not broken yet: {known}")
        else:
            errors.append("\n".join(lines))
    # files
    for crate, es in ((lib, lib_edges), (cli, cli.edges())):
        # a file and the files of its enclosing modules (a `mod.rs` and its
        # children) are one module's interface and parts: edges between them
        # are not file cycles
        def nested(a, b):
            ma, mb = crate.module_of(a), crate.module_of(b)
            return ma[: len(mb)] == mb or mb[: len(ma)] == ma

        def compat(a, b):  # an allowed re-export (REEXPORTS), or the crate's Error
            ta, tb = top.get(a), top.get(b)
            return (ta, tb) in REEXPORTS or not ROOT_LEVEL.isdisjoint((ta, tb))

        es = [e for e in es if not nested(e[0], e[1]) and not (crate is lib and compat(e[0], e[1]) and e[3])]
        es = [e for e in es if not (crate is lib and not ROOT_LEVEL.isdisjoint((top.get(e[0]), top.get(e[1]))))]
        fe = {(a, b) for a, b, _, _ in es}
        for comp in cycles({x for e in fe for x in e}, fe):
            names = [rel(f) for f in comp]
            lines = [f"file cycle in {crate.name}: {' ↔ '.join(names)}:"]
            for a, b, line, _ in sorted(es, key=lambda e: (str(e[0]), e[2])):
                if a in comp and b in comp and (a, b) in fe:
                    lines.append(f"    {rel(a)}:{line} → {rel(b)}")
                    fe.discard((a, b))
            text = "\n".join(lines)
            known = KNOWN_CYCLES.get(frozenset(names))
            if known:
                seen_known.add(frozenset(names))
                warnings.append(text + f"\n    known, not broken yet: {known}")
            elif all(n.startswith(FILE_CYCLE_WARN_ONLY) for n in names):
                warnings.append(text + "\n    (in the GraphBLAS area, under rework)")
            else:
                errors.append(text)
    for gone in set(KNOWN_CYCLES) - seen_known:
        errors.append(f"KNOWN_CYCLES lists {sorted(gone)}, which is no longer a cycle: remove it from the list")
    # docs/ARCHITECTURE.md's claims
    doc = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    sec = re.search(r"^## Dependencies\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
    actual = set(mod_edges)
    if sec is None:
        errors.append("docs/ARCHITECTURE.md: no '## Dependencies' section listing the module graph")
    else:
        claimed = set()
        for m in re.finditer(r"^- `(\w+)` → (.*)$", sec.group(1), re.M):
            for b in re.findall(r"`(\w+)`", m.group(2)):
                claimed.add((m.group(1), b))
        for a, b in sorted(claimed - actual):
            errors.append(f"docs/ARCHITECTURE.md claims `{a}` → `{b}`, which the code does not have")
        for a, b in sorted(actual - claimed):
            f, line, _ = mod_edges[(a, b)][0]
            errors.append(
                f"docs/ARCHITECTURE.md does not list `{a}` → `{b}` ({rel(f)}:{line}): add it to its Dependencies section"
            )
    if show_graph:
        for a in sorted({a for a, _ in actual}):
            print(f"- `{a}` → " + ", ".join(f"`{b}`" for b in sorted(b for x, b in actual if x == a)))
    return errors, warnings


def main() -> int:
    errors = []
    for folder, suffixes in (("src", {".rs"}), ("kernels", {".cu", ".cuh", ".h"})):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in suffixes and path.is_file():
                n = len(path.read_text(encoding="utf-8").splitlines())
                if n > MAX_LINES:
                    errors.append(f"{path.relative_to(ROOT)}: {n} lines (at most {MAX_LINES}): split it by what it does")
    for path in sorted((ROOT / "src" / "cuda").rglob("*.rs")):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = UPWARD.search(code_of(line))
            if m:
                errors.append(
                    f"{path.relative_to(ROOT)}:{i}: cuda/ names crate::{m.group(1)}; "
                    "cuda/ is the bottom layer (move the item up, or into cuda/)"
                )
    dep_errors, warnings = dependency_errors("--graph" in sys.argv)
    errors += dep_errors
    for w in warnings:
        print("warning: " + w.replace("\n", "\n  "))
    for e in errors:
        print(e)
    if not errors:
        for (a, b), why in REEXPORTS.items():
            print(f"note: `{a}` → `{b}` only by a re-export kept for compatibility ({why})")
        print(
            "architecture: no file over 600 lines in src/ or kernels/; src/cuda imports nothing from mgk, rw, "
            "matrix, algorithms; no module or file cycle but the known ones"
            + (f" ({len(warnings)} reported above as warnings)" if warnings else "")
            + "; docs/ARCHITECTURE.md's dependency list matches the code"
        )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
