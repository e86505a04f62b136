#!/usr/bin/env python3
"""Every public symbol in a module's source has a summary: usage: docs-coverage.py SYMBOL_GRAPH_DIR COVERAGE_JSON

COVERAGE_JSON is what `docc convert --experimental-documentation-coverage` wrote; it says which pages have an
abstract, counting one inherited from a protocol of this module. Pages for what the compiler synthesized (symbols the
graph marks `::SYNTHESIZED::`, implicit members with no source location that carry another module's comment,
operators, docc's collection groups) are skipped; a member written in the source that only inherits the standard
library's comment (`description`, `init(rawValue:)`, a literal initializer) is ours and needs its own summary.
Prints each symbol left without one.
"""
import json
import os
import re
import sys


def synthesized_paths(folder):
    """The reference paths (module/Type/member, no disambiguation) of synthesized symbols, and the module's name."""
    paths, module = set(), None
    for name in os.listdir(folder):
        graph = json.load(open(os.path.join(folder, name), encoding="utf-8"))
        module = module or graph["module"]["name"]
        for symbol in graph["symbols"]:
            # Synthesized, or implicit with the summary of the protocol it comes from (a raw-value enum's
            # init(rawValue:)): no source location. One written in the source keeps its location and is checked.
            inherited = symbol.get("docComment", {}).get("module") not in (None, graph["module"]["name"])
            implicit = inherited and "location" not in symbol
            if "::SYNTHESIZED::" in symbol["identifier"]["precise"] or implicit:
                paths.add("/".join([graph["module"]["name"]] + symbol["pathComponents"]))
    return paths, module


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: docs-coverage.py SYMBOL_GRAPH_DIR COVERAGE_JSON")
    synthesized, module = synthesized_paths(sys.argv[1])
    missing = []
    for page in json.load(open(sys.argv[2], encoding="utf-8")):
        kind = page["kind"]["name"]
        if page.get("hasAbstract") or kind in ("Operator", "CollectionGroup"):
            continue
        path = page["referencePath"].split("/documentation/", 1)[1]
        plain = re.sub(r"-(swift\.[a-z.]+|[0-9a-z]{4,5})(?=/|$)", "", path)
        if plain in synthesized:
            continue
        missing.append(f"{kind}: {plain}")
    for line in sorted(missing):
        print(f"warning: no summary: {line}")
    print(f"docs-coverage {module}: {len(missing)} public symbols without a summary")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
