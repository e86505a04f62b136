#!/usr/bin/env python3
"""Every `import` in a target's sources names a dependency the target declares in Package.swift; GStreamer's C API
(`CGStreamer`) is declared only by the bindings and the element; GLib ownership calls are made only there.

The compiler stops an undeclared arrow to one of our Swift modules (InternalImportsByDefault, MemberImportVisibility),
but SwiftPM hands every target the header search paths of the C modules its dependencies use, so `import CGStreamer`
would compile in a target that declares only `GStreamer`. This check closes that gap for every module, ours and C.

Only the bindings (`GStreamer`), the element (`SwiftFilterElement`, and `FilterPlugin`, the plugin descriptor and filter
table a user's plugin of filters links: the element's other half) and the C modules may declare `CGStreamer`; tests
may, to make stand-in elements. Everywhere else a GObject reference, a signal connection and a main loop go through
`ObjectReference`, `SignalConnection` and `MainContextThread`, so their raw calls are refused outside those modules.
The modules a user's plugin links beside FilterPlugin (`Filters`, `Analysis`: the analysis contract), `Camera` and
`Config` (configs as values, tested without GStreamer) stay free of GStreamer: none of them may declare `GStreamer` or
`CGStreamer`, nor depend on a module that does.
No module in Sources imports full `Foundation`: it loads ICU (lib_FoundationICU.so, 40 MB) into the package and every
process, where `FoundationEssentials` and `Base` (JSON, child processes, threads, text helpers) do; tests may.
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

# Full Foundation and the parts of it that load ICU: never in what ships.
FULL_FOUNDATION = {"Foundation", "FoundationInternationalization", "FoundationNetworking", "FoundationXML"}
# The modules that may call GStreamer's C API directly.
BINDINGS = {"GStreamer", "SwiftFilterElement", "FilterPlugin"}
# The modules that must not reach GStreamer, directly or through a dependency.
GSTREAMER_FREE = {"Filters", "Analysis", "Camera", "Config"}
# GLib's reference, signal and main-loop calls: one owner type each in GStreamer/GLib.
OWNERSHIP = re.compile(r"\b(g_object_ref|g_object_ref_sink|g_object_unref|gst_object_ref|gst_object_unref|g_signal_connect\w*"
                       r"|g_signal_handler_disconnect|g_main_loop_\w+|g_main_context_(?:new|ref|unref|push_thread_default"
                       r"|pop_thread_default|invoke\w*))\b")

root = pathlib.Path(__file__).resolve().parent.parent
package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True,
                                    capture_output=True, text=True).stdout)
stray = []
targets = {target["name"]: target for target in package["targets"]}


def reaches_gstreamer(name, seen=()):
    target = targets.get(name)
    if target is None or name in seen:
        return False
    names = {next(iter(dependency.values()))[0] for dependency in target["dependencies"]}
    return bool(names & {"GStreamer", "CGStreamer"}) or any(reaches_gstreamer(n, seen + (name,)) for n in names)


for name in sorted(GSTREAMER_FREE):
    if reaches_gstreamer(name):
        stray.append(f"Package.swift: target {name} reaches GStreamer; it must stay GStreamer-free")
for target in package["targets"]:
    if target["type"] == "system":
        continue
    declared = {next(iter(dependency.values()))[0] for dependency in target["dependencies"]}
    folder = root / (target.get("path") or ("Tests" if target["type"] == "test" else "Sources")) / (
        "" if target.get("path") else target["name"])
    # A C module (no Swift sources, e.g. CGstSwiftFilter) is the element's own C half.
    bound = target["name"] in BINDINGS or target["type"] == "test" or not any(folder.rglob("*.swift"))
    if "CGStreamer" in declared and not bound:
        stray.append(f"Package.swift: target {target['name']} declares CGStreamer; only {', '.join(sorted(BINDINGS))} call GStreamer's C API")
    for source in sorted(folder.rglob("*.swift")):
        text = source.read_text()
        for module in IMPORT.findall(text):
            if module not in TOOLCHAIN and module not in declared and module != target["name"]:
                stray.append(f"{source.relative_to(root)}: imports {module}, which target {target['name']} does not declare")
            if module in FULL_FOUNDATION and target["type"] != "test" and not target.get("path"):
                stray.append(f"{source.relative_to(root)}: imports {module} (ICU's 40 MB); use FoundationEssentials and Base")
        if not bound:
            for number, line in enumerate(text.splitlines(), 1):
                code = line.split("//", 1)[0]
                for call in OWNERSHIP.findall(code):
                    stray.append(f"{source.relative_to(root)}:{number}: calls {call}; use ObjectReference, SignalConnection or MainContextThread")
for line in stray:
    print(line)
if stray:
    sys.exit(1)
print(f"imports: every target imports only what it declares ({len(package['targets'])} targets)")
