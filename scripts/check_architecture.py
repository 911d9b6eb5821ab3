#!/usr/bin/env python3
"""Checks the layout claims of docs/ARCHITECTURE.md (run by scripts/test.sh):

- no source file in src/ or kernels/ is over 600 lines;
- `cuda/` is the bottom layer: no code in src/cuda/ names the crate's
  `mgk`, `matrix` or `algorithms` modules (comments and doc links aside).

Exits with status 1 and one line per violation.
"""
import pathlib
import re
import sys

MAX_LINES = 600
ROOT = pathlib.Path(__file__).resolve().parent.parent
UPWARD = re.compile(r"\bcrate::(mgk|matrix|algorithms)\b")


def code_of(line: str) -> str:
    """The line without its `//` comment (string literals holding `//` are rare in src/cuda)."""
    return line.split("//", 1)[0]


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
    for e in errors:
        print(e)
    if not errors:
        print("architecture: no file over 600 lines in src/ or kernels/; src/cuda imports nothing from mgk, matrix, algorithms")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
