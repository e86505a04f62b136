#!/usr/bin/env python3
"""Links one of SwiftPM's products again, from the objects SwiftPM built, with the Swift runtime linked in statically.

The Debian package ships `swiftcam` and `libgstswiftfilter.so` this way: a shared Swift runtime beside them is ~25 MB
(libswiftCore, FoundationEssentials, Concurrency, Dispatch, …) of which each binary uses a part; linked statically,
the linker keeps what is reached (`--gc-sections`), hides the runtime's symbols (`--exclude-libs=ALL`, so a Swift plugin
loaded beside it keeps its own), and the plugin exports only GStreamer's entry points (packaging/plugin-exports.map).
Relinking costs seconds; building the same objects again with `--static-swift-stdlib` would be a second compile.

Usage: relink-static.py BIN PRODUCT OUT
  BIN      swift build's bin folder (`swift build --show-bin-path`), whose manifest (../CONFIG.yaml) holds the link
  PRODUCT  swiftcam or gstswiftfilter
  OUT      where the binary goes
Exit status: 0 linked; 1 the manifest has no such link, or the link failed (the linker's output is printed).
"""
import json
import pathlib
import re
import subprocess
import sys

bin_dir, product, out = pathlib.Path(sys.argv[1]).resolve(), sys.argv[2], pathlib.Path(sys.argv[3]).resolve()
manifest = bin_dir.parent.parent / f"{bin_dir.name}.yaml"
text = manifest.read_text()
kind = "exe" if product != "gstswiftfilter" else "dylib"
block = re.search(r'^  "C\.' + re.escape(product) + r'-[^"]*\.' + kind + r'":\n(?:    .*\n)*?    args: (\[.*\])$', text, re.M)
if not block:
    sys.exit(f"relink-static: {manifest} has no link of {product}")
args = json.loads(block.group(1))
# Same objects and libraries; a new output, no RUNPATH into the build, and the runtime from its static archives.
linked, skip = [], False
for index, arg in enumerate(args):
    if skip:
        skip = False
        continue
    if arg == "-o":
        linked += ["-o", str(out)]
        skip = True
    elif arg == "-Xlinker" and index + 1 < len(args) and args[index + 1].startswith("-rpath"):
        skip = True
    elif arg == "-resource-dir" and index > 0 and args[index - 1] != "-Xclang-linker" and index + 1 < len(args):
        # A Swift SDK's (a cross-build) names the shared runtime's folder; the static one is its `_static` sibling,
        # as SwiftPM passes it for --static-swift-stdlib.
        folder = args[index + 1]
        linked += [arg, folder + "_static" if pathlib.Path(folder + "_static").is_dir() else folder]
        skip = True
    else:
        linked.append(arg)
# The objects were compiled against the shared runtime, whose FoundationEssentials.so brings its own two helpers; the
# static archive needs them named (an archive nothing uses adds nothing).
linked += ["-static-stdlib", "-l_FoundationCollections", "-l_FoundationCShims"]
linked += ["-Xlinker", "--gc-sections", "-Xlinker", "--exclude-libs=ALL"]
if kind == "dylib":
    exports = pathlib.Path(__file__).resolve().parent.parent / "packaging" / "plugin-exports.map"
    linked += ["-Xlinker", f"--version-script={exports}"]
result = subprocess.run(linked, capture_output=True, text=True)
if result.returncode != 0:
    sys.stderr.write(result.stdout + result.stderr)
    sys.exit(f"relink-static: linking {product} statically failed")
