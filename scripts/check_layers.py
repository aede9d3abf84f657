#!/usr/bin/env python3
"""Checks that the crate's layers only point down (docs/architecture.md):

    sync -> topology -> layout -> groups -> runtime -> pool -> iter, slice, str,
    collections (and the std-type sources beside them) -> sim

A file may import from its own layer and the layers before it. Fails (exit 1)
when non-test code imports from a later layer, or when files of different
layers import each other in a circle. Imports in test code (files named
tests.rs or test_support.rs, files under a tests/ folder, and a trailing
`#[cfg(test)]` module) may reach
up, to drive a lower layer through the public API: they are listed, not
counted. Usage: python3 scripts/check_layers.py [--all-circles] [SRC_DIR]

With --all-circles it also lists, without failing, the circles inside a
layer (modules of one layer that import each other, counting a parent's
items and re-exports as the parent's): the structure standard asks for
none, but some remain (see docs/architecture.md).

It reads `use` items and `crate::`/`super::` paths as text, with the crate
root's `pub use` re-exports resolved; a module declaration is not an import.
"""
import collections
import os
import re
import sys

ORDER = ["sync", "topology", "layout", "groups", "runtime", "pool", "iter", "sim"]
LEVEL = {name: i for i, name in enumerate(ORDER)}
for name in ["slice", "str", "collections", "option", "range", "range_inclusive",
             "vec", "array", "string", "result", "prelude"]:
    LEVEL[name] = LEVEL["iter"]

args = [a for a in sys.argv[1:] if a != "--all-circles"]
all_circles = len(args) != len(sys.argv) - 1
root = args[0] if args else "src"
files = {}  # module path (tuple) -> file
for directory, _, names in os.walk(root):
    for name in names:
        if name.endswith(".rs"):
            path = os.path.join(directory, name)
            module = os.path.relpath(path, root)[:-3].split(os.sep)
            if module[-1] in ("mod", "lib"):
                module = module[:-1]
            files[tuple(module)] = path


def layer(module):
    return LEVEL.get(module[0]) if module else None


def expand(tree):
    """The paths of a use tree such as `a::{b, c::{d, e as f}}`."""
    out = []

    def walk(prefix, text):
        depth, parts, cur = 0, [], ""
        for ch in text:
            depth += (ch == "{") - (ch == "}")
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        parts.append(cur)
        for part in (p.strip() for p in parts):
            if not part:
                continue
            nested = re.match(r"^([\w:]*?)::\{(.*)\}$", part, re.S)
            if nested:
                walk(prefix + [x for x in nested.group(1).split("::") if x], nested.group(2))
            elif part.startswith("{") and part.endswith("}"):
                walk(prefix, part[1:-1])
            else:
                name = part.split(" as ")[0].strip()
                out.append(prefix + [x for x in name.split("::") if x])

    walk([], tree)
    return out


REEXPORT = {}
with open(os.path.join(root, "lib.rs"), encoding="utf-8") as f:
    for m in re.finditer(r"^pub use\s+([^;]*);", f.read(), re.S | re.M):
        for path in expand(m.group(1)):
            REEXPORT[path[-1]] = path


def resolve(segments):
    if segments and (segments[0],) not in files and segments[0] in REEXPORT:
        segments = REEXPORT[segments[0]] + segments[1:]
    for k in range(len(segments), 0, -1):
        if tuple(segments[:k]) in files:
            return tuple(segments[:k])
    return None


def imports(module, text):
    """(imported module, line, in test code) for each import of `module`."""
    lines = text.split("\n")
    test_from = len(lines)
    for i, line in enumerate(lines[:-1]):
        if re.match(r"\s*#\[cfg\((all\()?test\b", line) and re.match(
                r"\s*(pub(\(\w+\))?\s+)?mod \w+\s*\{", lines[i + 1]):
            test_from = i
            break
    body = "\n".join(re.sub(r"//.*", "", line) for line in lines)
    # `self` is the module itself and `super` its parent, for `a/b.rs` as for
    # `a/b/mod.rs` (both are module a::b).
    here = list(module)
    found = []
    for m in re.finditer(r"\buse\s+((?:crate|super|self)::[^;]*);", body, re.S):
        found += [(p, body.count("\n", 0, m.start())) for p in expand(m.group(1))]
    for m in re.finditer(r"\buse\s+((\w+)::[^;]*);", body, re.S):
        if tuple(here + [m.group(2)]) in files and m.group(2) not in ("crate", "super", "self"):
            found += [(["self"] + p, body.count("\n", 0, m.start())) for p in expand(m.group(1))]
    for m in re.finditer(r"(?<![\w:$])((?:crate|super)(?:::\w+)+)", body):
        found.append((m.group(1).split("::"), body.count("\n", 0, m.start())))
    out = []
    for path, line in found:
        segments = here
        if path[0] == "crate":
            segments, path = [], path[1:]
        while path and path[0] in ("super", "self"):
            if path[0] == "super":
                segments = segments[:-1]
            path = path[1:]
        target = resolve(segments + path)
        if target and target != module:
            out.append((target, line + 1, line >= test_from))
    return out


edges = collections.defaultdict(set)
upward, upward_in_tests = set(), set()
for module, path in sorted(files.items()):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    test_file = os.path.basename(path) in ("tests.rs", "test_support.rs") or "tests" in module[:-1]
    for target, line, in_test in imports(module, text):
        test = in_test or test_file
        if not test:
            edges[module].add(target)
        a, b = layer(module), layer(target)
        if a is not None and b is not None and b > a:
            (upward_in_tests if test else upward).add((path, line, "/".join(target)))

# Circles: strongly connected components of the non-test import graph.
index, low, stack, on_stack, circles, inner_circles = {}, {}, [], set(), [], []
sys.setrecursionlimit(10000)


def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on_stack.add(v)
    for w in edges.get(v, ()):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on_stack:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        component = []
        while True:
            w = stack.pop()
            on_stack.discard(w)
            component.append(w)
            if w == v:
                break
        if len({layer(m) for m in component}) > 1:
            circles.append(component)
        elif len(component) > 1:
            inner_circles.append(component)


for v in list(files):
    if v not in index:
        visit(v)

for path, line, target in sorted(upward):
    print(f"{path}:{line}: imports {target}, a later layer")
for component in circles:
    print("import circle across layers: " + " ".join("/".join(m) for m in sorted(component)))
if all_circles:
    for component in sorted(inner_circles):
        print("import circle inside a layer (listed, not counted): "
              + " ".join("/".join(m) for m in sorted(component)))
if upward_in_tests:
    print(f"(test code reaching a later layer, allowed: {len(upward_in_tests)} imports in "
          f"{len({p for p, _, _ in upward_in_tests})} files)")
if upward or circles:
    sys.exit(1)
print("layers point down: no import from a later layer, no circle across layers")
