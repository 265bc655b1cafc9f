#!/usr/bin/env python3
"""`make lint`'s error check: no `Result<_, String>` (or `&str`) in `src/`.

Errors are typed (src/error.rs says where each kind lives): a caller can match
on them, and their texts are written once, in their `Display`. This finds
every `Result<T, E>` whose `E` is a string, however deeply `T` nests, and
exits 1 naming each; 0 when there is none.
"""

import os
import re
import sys

STRINGS = {"String", "&str", "&'static str"}


def string_results(text):
    """(line, error type) of each `Result<…, E>` with a string `E`."""
    for m in re.finditer(r"\bResult<", text):
        depth, j, last_comma = 1, m.end(), None
        while depth and j < len(text):
            c = text[j]
            if c == "<":
                depth += 1
            elif c == ">" and text[j - 1] != "-":
                depth -= 1
            elif c == "," and depth == 1:
                last_comma = j
            j += 1
        if last_comma is not None:
            err = text[last_comma + 1 : j - 1].strip()
            if err in STRINGS:
                yield text.count("\n", 0, m.start()) + 1, err


def main():
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    found = 0
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith(".rs"):
                continue
            path = os.path.join(root, f)
            with open(path, encoding="utf-8") as fh:
                text = re.sub(r"//[^\n]*", "", fh.read())
            for line, err in string_results(text):
                found += 1
                rel = os.path.relpath(path, os.path.join(src, ".."))
                print(f"{rel}:{line}: Result<_, {err}>: give it a typed error", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
