#!/usr/bin/env python3
"""`make lint`'s layout check: the top-level modules of `src/` import each other
without a cycle, so the tree reads bottom to top (docs/design.md, "Layout").

A top-level module is a folder or file directly under `src/` (`engine/`,
`error.rs`); `main.rs` and `lib.rs` are the roots and may use anything. Module
A uses module B when A's library code names `crate::B` (in a `use` or a path,
`crate::{B, ...}` included). Test code is left out — files named `tests.rs`,
`*_tests.rs`, `*fixture*.rs`, folders named `tests`, and what follows a
`#[cfg(test)]` attribute in a file — since a test may build its inputs from
any layer.

Prints each cycle with the files and items that close it, and exits 1; prints
the layers from the bottom and exits 0 when there is none. `--graph` prints
every edge.
"""

import os
import re
import sys
from collections import defaultdict

ROOTS = {"main", "lib"}
USE = re.compile(r"crate::(\w+)")
GROUP = re.compile(r"crate::\{([^}]*)\}")


def is_test_file(rel):
    parts = rel.split("/")
    name = parts[-1]
    return (
        name == "tests.rs"
        or name.endswith("_tests.rs")
        or "fixture" in name
        or "tests" in parts[:-1]
    )


def library_code(text):
    """The text without comments and without everything after the first
    `#[cfg(test)]` (test modules come last in this code base's files)."""
    text = re.sub(r"//[^\n]*", "", text)
    cut = text.find("#[cfg(test)]")
    return text if cut < 0 else text[:cut]


def edges(src):
    found = defaultdict(lambda: defaultdict(set))
    tops = set()
    for name in os.listdir(src):
        top = name[:-3] if name.endswith(".rs") else name
        if top not in ROOTS:
            tops.add(top)
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)
            top = rel.split("/")[0].removesuffix(".rs")
            if top in ROOTS or is_test_file(rel):
                continue
            with open(path, encoding="utf-8") as fh:
                code = library_code(fh.read())
            names = [m.group(1) for m in USE.finditer(code)]
            for m in GROUP.finditer(code):
                names += re.findall(r"(?:^|,)\s*(\w+)", m.group(1))
            for other in names:
                if other != top and other in tops:
                    found[top][other].add(rel)
    return tops, found


def cycles(tops, found):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in found[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(tops):
        if v not in index:
            visit(v)
    return out


def layers(tops, found):
    """Each module's height: 0 for one that uses no other, else one more than
    the highest it uses."""
    height = {}

    def h(v):
        if v not in height:
            height[v] = 0
            height[v] = 1 + max((h(w) for w in found[v]), default=-1)
        return height[v]

    for v in tops:
        h(v)
    by = defaultdict(list)
    for v, n in height.items():
        by[n].append(v)
    return [sorted(by[n]) for n in sorted(by)]


def main():
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    tops, found = edges(src)
    if "--graph" in sys.argv:
        for a in sorted(found):
            print(f"{a} -> {' '.join(sorted(found[a]))}")
    bad = cycles(tops, found)
    if bad:
        for component in bad:
            print(f"layout: import cycle among {', '.join(component)}:", file=sys.stderr)
            inside = set(component)
            for a in component:
                for b in sorted(found[a]):
                    if b in inside:
                        files = sorted(found[a][b])
                        shown = ", ".join(files[:4]) + (" …" if len(files) > 4 else "")
                        print(f"  {a} -> {b}: {shown}", file=sys.stderr)
        print(
            "layout: a module may only use the modules below it (docs/design.md, Layout)",
            file=sys.stderr,
        )
        return 1
    print("layout: no import cycle; layers from the bottom:")
    for n, layer in enumerate(layers(tops, found)):
        print(f"  {n}: {' '.join(layer)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
