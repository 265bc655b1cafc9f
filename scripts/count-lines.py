#!/usr/bin/env python3
"""The non-test lines of `src/` at a revision (default HEAD): every `.rs`
file except test files (`tests.rs`, `*_tests.rs`, files under a `tests/`
folder), each cut at its first `#[cfg(test)]` line. Prints all lines and the
non-blank ones; `-v` lists the 40 largest files. docs/design.md, "Size",
has the counts taken with it.

    python3 scripts/count-lines.py [REV] [-v]
"""
import subprocess, sys
args = [a for a in sys.argv[1:] if a != "-v"]
rev = args[0] if args else "HEAD"
files = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "src/"], capture_output=True, text=True).stdout.split()
total = 0; nonblank = 0; per = []
for f in files:
    if not f.endswith(".rs"): continue
    parts = f.split("/")
    if "tests" in parts[:-1] or parts[-1] in ("tests.rs",) or parts[-1].endswith("_tests.rs"): continue
    text = subprocess.run(["git", "show", f"{rev}:{f}"], capture_output=True, text=True).stdout
    lines = text.split("\n")
    n = 0; nb = 0
    for l in lines:
        if l.startswith("#[cfg(test)]"): break
        n += 1
        if l.strip(): nb += 1
    total += n; nonblank += nb; per.append((n, f))
print(rev, "lines", total, "nonblank", nonblank, "files", len(per))
if "-v" in sys.argv:
    for n, f in sorted(per)[-40:]: print(n, f)
