#!/usr/bin/env python3
"""Checks that checks/utils keeps its layers: no include runs up.

  check-layers.py SOURCE_ROOT

Reads the table under "## Layers" in SOURCE_ROOT/checks/utils/README.md (one row
per layer: its number, what it answers, its modules) and every `#include "..."`
of checks/utils/*.h and *.cpp. Fails, naming file and line, when
  - a file of checks/utils belongs to no layer of the table (or the table names a
    module that does not exist);
  - a file includes a module of a higher layer than its own;
  - a file includes a check's header (checks/*.h): the checks sit above utils;
  - the modules of one layer below the top include each other in a cycle
    (X.cpp includes Y.h and Y.cpp includes X.h counts).
"""
import os
import re
import sys


def read_layers(readme):
    """{module: layer} from the Layers table of the README."""
    if not os.path.isfile(readme):
        sys.exit(f"{readme}: missing (its Layers table places every module of checks/utils)")
    text = open(readme, encoding="utf-8").read()
    section = re.search(r"^## Layers\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not section:
        sys.exit(f"{readme}: no '## Layers' section")
    layers = {}
    for m in re.finditer(r"^\|\s*(\d+)\s*\|[^|\n]*\|([^|\n]*)\|\s*$", section.group(1), re.M):
        for module in m.group(2).split(","):
            module = module.strip().strip("`")
            if module:
                if module in layers:
                    sys.exit(f"{readme}: {module} is in layers {layers[module]} and {m.group(1)}")
                layers[module] = int(m.group(1))
    if not layers:
        sys.exit(f"{readme}: the Layers table has no rows")
    return layers


def module_of(name):
    return os.path.splitext(os.path.basename(name))[0]


def find_cycle(graph):
    """One cycle of the directed graph {node: set(nodes)}, as a list, or None."""
    state = {}
    for start in sorted(graph):
        if start in state:
            continue
        # Iterative depth-first search: (node, iterator over its successors).
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        state[start] = "open"
        while stack:
            node, succ = stack[-1]
            nxt = next(succ, None)
            if nxt is None:
                state[node] = "done"
                stack.pop()
                path.pop()
                continue
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                state[nxt] = "open"
                path.append(nxt)
                stack.append((nxt, iter(sorted(graph.get(nxt, ())))))
    return None


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    utils = os.path.join(root, "checks", "utils")
    checks = os.path.join(root, "checks")
    readme = os.path.join(utils, "README.md")
    layers = read_layers(readme)
    top = max(layers.values())
    files = sorted(f for f in os.listdir(utils) if f.endswith((".h", ".cpp")))
    errors = []
    present = {module_of(f) for f in files}
    for module in sorted(set(layers) - present):
        errors.append(f"{readme}: the Layers table names {module}, which checks/utils does not have")
    edges = {}  # module -> modules of the same layer it includes
    for f in files:
        mod = module_of(f)
        if mod not in layers:
            errors.append(f"checks/utils/{f}: in no layer of checks/utils/README.md's Layers table")
            continue
        own = layers[mod]
        path = os.path.join(utils, f)
        for lineno, line in enumerate(open(path, encoding="utf-8"), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            target = m.group(1)
            where = f"checks/utils/{f}:{lineno}"
            resolved = os.path.normpath(os.path.join(utils, target))
            if not os.path.isfile(resolved):
                continue  # clang's, LLVM's or clang-tidy's header
            if os.path.dirname(resolved) == os.path.normpath(utils):
                inc = module_of(target)
                if inc == mod or inc not in layers:
                    continue  # a file in no layer is reported on its own
                if layers[inc] > own:
                    errors.append(f"{where}: includes {target} (layer {layers[inc]}) "
                                  f"from {mod} (layer {own}): the include runs up")
                elif layers[inc] == own and own < top:
                    edges.setdefault(mod, set()).add(inc)
            elif resolved.startswith(os.path.normpath(checks) + os.sep):
                errors.append(f"{where}: includes {target}, a check's header: the checks sit above utils")
    for layer in sorted(set(layers.values())):
        if layer == top:
            continue
        graph = {m: {n for n in edges.get(m, ()) if layers.get(n) == layer}
                 for m in layers if layers[m] == layer}
        cycle = find_cycle(graph)
        if cycle:
            errors.append(f"checks/utils: the modules of layer {layer} include each other in a cycle: "
                          + " -> ".join(cycle))
    for e in errors:
        print(e)
    if errors:
        sys.exit(f"{len(errors)} layering error(s) in checks/utils (see checks/utils/README.md)")
    print(f"checks/utils: {len(files)} files in {len(set(layers.values()))} layers, no include runs up")


if __name__ == "__main__":
    main()
