#!/usr/bin/env python3
"""Every `import` in a target's sources names a dependency the target declares in Package.swift.

The compiler stops an undeclared arrow to one of our Swift modules (InternalImportsByDefault, MemberImportVisibility),
but SwiftPM hands every target the header search paths of the C modules its dependencies use, so `import CGStreamer`
would compile in a target that declares only `GStreamer`. This check closes that gap for every module, ours and C.
Usage: scripts/check-imports.py (from anywhere; reads `swift package dump-package`). Exit 1 lists each stray import.
"""
import json
import pathlib
import re
import subprocess
import sys

# The toolchain's modules: any target may import them.
TOOLCHAIN = {"Foundation", "FoundationEssentials", "Dispatch", "Glibc", "Synchronization", "Testing", "XCTest",
             "_Concurrency", "Darwin", "CoreFoundation", "_Builtin_intrinsics"}
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:public |package |internal |fileprivate |private )?import\s+"
                    r"(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)", re.MULTILINE)

root = pathlib.Path(__file__).resolve().parent.parent
package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True,
                                    capture_output=True, text=True).stdout)
stray = []
for target in package["targets"]:
    if target["type"] == "system":
        continue
    declared = {next(iter(dependency.values()))[0] for dependency in target["dependencies"]}
    folder = root / (target.get("path") or ("Tests" if target["type"] == "test" else "Sources")) / (
        "" if target.get("path") else target["name"])
    for source in sorted(folder.rglob("*.swift")):
        for module in IMPORT.findall(source.read_text()):
            if module not in TOOLCHAIN and module not in declared and module != target["name"]:
                stray.append(f"{source.relative_to(root)}: imports {module}, which target {target['name']} does not declare")
for line in stray:
    print(line)
if stray:
    sys.exit(1)
print(f"imports: every target imports only what it declares ({len(package['targets'])} targets)")
