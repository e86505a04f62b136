#!/usr/bin/env python3
"""docs/architecture.md's module table says what Package.swift says: a row for every module in Sources, and in each
row's last column (Imports (ours)) exactly the modules that target declares, in its order, those a trait brings in
marked with the trait. What a module owns (the middle column) is written by hand; the rest is generated.

Usage: scripts/check-architecture.py [--write]   (from anywhere; reads `swift package dump-package`)
  without --write: exit 1, listing each row that differs, each module without a row and each row without a module;
  --write: rewrites the last column of every row from Package.swift (a missing row still has to be written by hand).
"""
import json
import os
import pathlib
import platform
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
document = root / "docs" / "architecture.md"
package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True,
                                    capture_output=True, text=True).stdout)
modules = {target["name"]: target for target in package["targets"]
           if target["type"] != "test" and not (target.get("path") or "").startswith("Tests")}
# The x86 kernel modules exist only in a manifest read on x86-64 without SWIFTCAM_PORTABLE=1; their rows stay.
x86_only = {"FiltersAVX2", "FiltersAVX512", "FiltersPortable"}
x86_manifest = platform.machine() in ("x86_64", "AMD64") and os.environ.get("SWIFTCAM_PORTABLE") != "1"


def imports(name):
    """The last column for `name`: its declared dependencies among our modules, in declaration order."""
    plain, by_trait = [], {}
    for dependency in modules[name]["dependencies"]:
        kind, value = next(iter(dependency.items()))
        dependency_name, condition = value[0], (value[-1] if len(value) > 1 else None)
        if dependency_name not in modules and dependency_name not in x86_only:
            continue
        traits = (condition or {}).get("traits") or []
        if traits:
            by_trait.setdefault(", ".join(f"`{trait}`" for trait in traits), []).append(dependency_name)
        else:
            plain.append(dependency_name)
    parts = [", ".join(plain)] if plain else []
    parts += [f"{', '.join(names)} (with the {trait} trait)" for trait, names in by_trait.items()]
    return ", ".join(parts) or "—"


lines = document.read_text().split("\n")
row = re.compile(r"^\| (`[^|]+`) \| (.*) \| ([^|]*) \|$")
problems, seen = [], set()
for index, line in enumerate(lines):
    match = row.match(line)
    if not match:
        continue
    names = re.findall(r"`([^`]+)`", match.group(1))
    present = [name for name in names if name in modules]
    for name in names:
        if name not in modules and not (name in x86_only and not x86_manifest):
            problems.append(f"docs/architecture.md:{index + 1}: `{name}` is not a module in Package.swift")
    seen.update(names)
    if not present:
        continue
    expected = {imports(name) for name in present}
    if len(expected) > 1:
        problems.append(f"docs/architecture.md:{index + 1}: {', '.join(present)} import different modules: give each a row")
        continue
    wanted = expected.pop()
    if match.group(3).strip() != wanted:
        if "--write" in sys.argv:
            lines[index] = f"| {match.group(1)} | {match.group(2)} | {wanted} |"
        else:
            problems.append(f"docs/architecture.md:{index + 1}: {', '.join(present)} imports {wanted}, "
                            f"the table says {match.group(3).strip()} (scripts/check-architecture.py --write)")
for name in sorted(set(modules) - seen):
    problems.append(f"docs/architecture.md: no row for module {name}: add one saying what it owns")
if "--write" in sys.argv:
    document.write_text("\n".join(lines))
for problem in problems:
    print(problem)
if problems:
    sys.exit(1)
print(f"architecture: docs/architecture.md has a row for each of the {len(modules)} modules, with its imports")
