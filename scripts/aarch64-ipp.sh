#!/usr/bin/env bash
# aarch64-ipp.sh — instructions per pixel of each filter on the portable path under aarch64 emulation, beside x86-64's
# SSE2 path, both counted the same way: (instructions of 3 calls − 1 call) / 2 / pixels of `filters-bench --calls N
# --format RGBA|NV12 NAME` at 1920×1080 on one thread, so set-up and the first call's allocations cancel.
#
#   scripts/aarch64-ipp.sh [--json FILE] [NAME…]     the default names: the main filters and the two chains
#   scripts/aarch64-ipp.sh --hot N FORMAT NAME       where one filter's 3 calls spend their aarch64 instructions: the
#                                                    N functions and N blocks (addresses as in `llvm-objdump -d`) that
#                                                    executed the most, with the binary to disassemble
#
# aarch64: the guest instructions QEMU executes (qemu-aarch64 of Debian 12's `qemu-user` 7.2, the only one here that
# loads TCG plugins, with scripts/qemu-insn-count.c), not cycles; no ARM machine runs anything. x86-64: callgrind's
# instruction count (scripts/instructions-per-pixel.sh, SWIFTCAM_SIMD=sse2). Fetched once and cached under
# .build/aarch64-ipp: the qemu-user package and the plugin header from QEMU 7.2's source (Debian's orig tarball). The
# aarch64 filters-bench is cross-built in scripts/arm64-root.sh's root (ARM64_ROOT) into .build/arm64/bench, the x86-64
# one is `swift build -c release`'s. SWIFTCAM_IPP_X86=0 leaves the x86-64 column out. As root (the root's mounts).
# A measurement, not a test: `make bench-arm64-ipp` runs it, `make test` does not.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${ARM64_ROOT:-$PWD/.build/arm64/root}
mirror=${ARM64_MIRROR:-http://deb.debian.org/debian}
cache=.build/aarch64-ipp
scratch=.build/arm64/bench
arm_bin=$scratch/aarch64-unknown-linux-gnu/release/filters-bench
x86_bin=.build/release/filters-bench
x86=${SWIFTCAM_IPP_X86:-1}
pixels=$((1920 * 1080))
json= hot=
if [ "${1:-}" = --json ]; then json=$2; shift 2; fi
if [ "${1:-}" = --hot ]; then
  [ $# = 4 ] || { echo "usage: scripts/aarch64-ipp.sh --hot N RGBA|NV12 NAME" >&2; exit 64; }
  hot=$2 x86=0; shift 2
fi
# filters-bench's entry texts (a name that is an entry's whole text selects it alone), as docs/benchmarks.md names them.
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(
  sepia mono "colorcontrols contrast=1.2 saturation=0.8" vignette "gamma value=1.5" posterize threshold invert
  blur sharpen edges mirror zoom pixelate
  "sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette"
  "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert"
)

die() { printf 'aarch64-ipp: %s\n' "$*" >&2; exit 69; }
[ "$(id -u)" = 0 ] || die "needs root (the root's mounts for the cross-build)"
# Not made here: scripts/arm64-root.sh would spend minutes and gigabytes on a second root where one exists elsewhere.
[ -e "$root/.swiftcam-root-ready" ] || die "no arm64 root at $root: make arm64-root, or ARM64_ROOT=the one you have"
mkdir -p "$cache"

# qemu-aarch64 with plugin support: Debian 12's qemu-user (qemu-user-static has none), unpacked here, not installed.
qemu=$cache/qemu-user/usr/bin/qemu-aarch64
if [ ! -x "$qemu" ]; then
  rm -rf "$cache/deb" "$cache/qemu-user" && mkdir -p "$cache/deb"
  (cd "$cache/deb" && apt-get download -qq qemu-user 2>/dev/null) || die "apt-get download qemu-user failed"
  dpkg-deb -x "$cache"/deb/qemu-user_*.deb "$cache/qemu-user" || die "cannot unpack the qemu-user package"
fi
"$qemu" --version >/dev/null || die "$qemu does not run here (its libraries: apt-get install qemu-user's dependencies)"

# The plugin API header of the same QEMU (7.2: API version 1), from Debian's source tarball of the package's version.
header=$cache/include/qemu-plugin.h
if [ ! -e "$header" ]; then
  version=$(dpkg-deb -f "$cache"/deb/qemu-user_*.deb Version 2>/dev/null) || die "no qemu-user package in $cache/deb"
  upstream=${version#*:}
  upstream=${upstream%-*}
  tarball=$cache/qemu_$upstream.orig.tar.xz
  curl -sSfo "$tarball" "$mirror/pool/main/q/qemu/qemu_$upstream.orig.tar.xz" \
    || die "cannot fetch qemu_$upstream.orig.tar.xz from $mirror"
  mkdir -p "$cache/include"
  tar -xJf "$tarball" -O --wildcards '*/include/qemu/qemu-plugin.h' >"$header.tmp" && [ -s "$header.tmp" ] \
    || die "no include/qemu/qemu-plugin.h in $tarball"
  mv "$header.tmp" "$header"
  rm -f "$tarball"
fi
plugin=$cache/qemu-insn-count.so
if [ ! -e "$plugin" ] || [ scripts/qemu-insn-count.c -nt "$plugin" ]; then
  cc -shared -fPIC -O2 -Wall -Wextra -Werror -I "$cache/include" scripts/qemu-insn-count.c -o "$plugin" \
    || die "the plugin did not build"
fi

# The portable filters-bench for aarch64 (SWIFTCAM_PORTABLE=1, as an ARM64 machine builds it), and x86-64's.
echo "aarch64-ipp: cross-building filters-bench for aarch64 (release) in $root" >&2
ARM64_ROOT=$root bash scripts/arm64-root.sh run "SWIFTCAM_PORTABLE=1 SWIFTCAM_TARGETS='Filters filters-bench Base CBase' \
  swift build -c release --destination /opt/swift-aarch64/sdk/swift-sdk.json --scratch-path $scratch \
  --product filters-bench" >"$cache/cross-build.log" 2>&1 || { tail -20 "$cache/cross-build.log" >&2; die "the cross-build failed"; }
if [ "$x86" = 1 ]; then
  echo "aarch64-ipp: building filters-bench for x86-64 (release)" >&2
  swift build -c release --product filters-bench >"$cache/x86-build.log" 2>&1 \
    || { tail -20 "$cache/x86-build.log" >&2; die "the x86-64 build failed"; }
fi

# aarch64_count CALLS FORMAT NAME: guest instructions of the whole run (the last line the plugin prints: a child
# process, had there been one, prints its own first).
aarch64_count() {
  "$qemu" -L "$root" -plugin "$plugin" "$arm_bin" --calls "$1" --format "$2" "$3" 2>&1 >/dev/null \
    | sed -n 's/^guest-instructions: //p' | tail -1
}
per_pixel() { awk -v a="$1" -v b="$2" -v n="$pixels" 'BEGIN { printf "%.2f", (b - a) / 2 / n }'; }

# --hot: the profile of one run of 3 calls, functions demangled, blocks at the binary's own addresses (a PIE).
if [ -n "$hot" ]; then
  profile=$("$qemu" -L "$root" -plugin "$plugin,hot=$hot" "$arm_bin" --calls 3 --format "$1" "$2" 2>&1 >/dev/null)
  # QEMU's code start is where the first executable segment was loaded, not the load address.
  text=$(readelf -lW "$arm_bin" | awk '$1 == "LOAD" && $(NF - 1) ~ /E/ { print $3; exit }')
  base=$(($(sed -n 's/^code-start: //p' <<<"$profile" | tail -1) - text))
  total=$(sed -n 's/^guest-instructions: //p' <<<"$profile" | tail -1)
  echo "$1 $2, 3 calls: $total aarch64 instructions; disassemble with llvm-objdump -d $arm_bin"
  sed -n 's/^hot-function: //p' <<<"$profile" | while read -r count symbol; do
    printf '%6.2f%%  %s\n' "$(awk -v a="$count" -v t="$total" 'BEGIN { print 100 * a / t }')" \
      "$(swift demangle --simplified "$symbol" 2>/dev/null | cut -c1-150)"
  done
  sed -n 's/^hot-block: //p' <<<"$profile" | while read -r count address symbol; do
    printf '%6.2f%%  block at 0x%x in %s\n' "$(awk -v a="$count" -v t="$total" 'BEGIN { print 100 * a / t }')" \
      "$((address - base))" "$(swift demangle --simplified "$symbol" 2>/dev/null | cut -c1-110)"
  done
  exit 0
fi

rows=()
printf '%-6s %-44s %16s %12s %8s\n' format filter "aarch64 portable" "x86-64 SSE2" ratio
for format in RGBA NV12; do
  for name in "${names[@]}"; do
    one=$(aarch64_count 1 "$format" "$name")
    three=$(aarch64_count 3 "$format" "$name")
    [ -n "$one" ] && [ -n "$three" ] || die "no count for $format $name (is $arm_bin an aarch64 filters-bench?)"
    arm=$(per_pixel "$one" "$three")
    sse2=null
    if [ "$x86" = 1 ]; then
      sse2=$(SWIFTCAM_SIMD=sse2 BENCH_BIN=$x86_bin bash scripts/instructions-per-pixel.sh "$format" "$name" \
        | awk '{ print $(NF - 1) }')
    fi
    label=$name
    [ ${#label} -le 44 ] || label="${label:0:41}..."
    printf '%-6s %-44s %16s %12s %8s\n' "$format" "$label" "$arm" "${sse2/null/-}" \
      "$(awk -v a="$arm" -v s="$sse2" 'BEGIN { if (s == "null" || s == 0) print "-"; else printf "%.2f×", a / s }')"
    rows+=("{\"format\": \"$format\", \"filter\": \"$name\", \"aarch64\": $arm, \"sse2\": $sse2}")
  done
done

if [ -n "$json" ]; then
  {
    printf '{\n  "emulator": "%s",\n  "pixels": %d,\n  "rows": [\n' "$("$qemu" --version | head -1)" "$pixels"
    for i in "${!rows[@]}"; do printf '    %s%s\n' "${rows[$i]}" "$([ "$i" -lt $((${#rows[@]} - 1)) ] && echo ,)"; done
    printf '  ]\n}\n'
  } >"$json"
  echo "aarch64-ipp: wrote $json" >&2
fi
