#!/usr/bin/env bash
# make docs: DocC archives of the public modules, Filters, GStreamer and Analysis (the contract plugins link), in
# .build/docs/NAME.doccarchive, built from the debug build's modules with the toolchain's swift-symbolgraph-extract and
# docc (no package plugin). Fails when a public symbol written in the source has no summary line (what the compiler
# synthesizes — ==, hash(into:), init(rawValue:) — is not ours to document).
set -euo pipefail
cd "$(dirname "$0")/.."
toolchain=$(dirname "$(dirname "$(command -v swift)")")
for target in Filters GStreamer Analysis; do swift build --target "$target"; done
modules=$(swift build --show-bin-path)/Modules
out=.build/docs
rm -rf "$out"
mkdir -p "$out"
# GStreamer's module imports CGStreamer (its module map and GStreamer's headers) and, through Base, CBase.
includes=(-I Sources/CGStreamer -I Sources/CBase/include)
for flag in $(pkg-config --cflags-only-I gstreamer-app-1.0 gstreamer-video-1.0); do includes+=(-Xcc "$flag"); done
status=0
for module in Filters GStreamer Analysis; do
  graphs=$out/$module-symbol-graphs
  mkdir -p "$graphs"
  "$toolchain/bin/swift-symbolgraph-extract" -module-name "$module" -I "$modules" "${includes[@]}" \
    -target "$(uname -m)-unknown-linux-gnu" -minimum-access-level public -output-dir "$graphs"
  "$toolchain/bin/docc" convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name "$module" --fallback-bundle-identifier "org.swiftcam.$module" \
    --output-path "$out/$module.doccarchive" --warnings-as-errors \
    --experimental-documentation-coverage --coverage-summary-level none
  python3 scripts/docs-coverage.py "$graphs" "$out/$module.doccarchive/documentation-coverage.json" || status=1
done
[ "$status" = 0 ] && echo "docs: $out/Filters.doccarchive, $out/GStreamer.doccarchive, $out/Analysis.doccarchive"
exit "$status"
