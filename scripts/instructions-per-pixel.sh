#!/usr/bin/env bash
# Instructions per pixel of each named filters-bench entry at 1080p, one thread, from callgrind:
# (instructions of 3 calls − 1 call) / 2 / pixels, so set-up and the first call's allocations cancel.
# Repeatable whatever the machine's load. Usage: scripts/instructions-per-pixel.sh RGBA|NV12 NAME…
set -euo pipefail
# Valgrind does not run AVX-512 (it hides it from CPUID, but SIMDPath reads /proc/cpuinfo): AVX2 unless told.
export SWIFTCAM_SIMD=${SWIFTCAM_SIMD:-avx2}
format=$1; shift
bin=${BENCH_BIN:-.build/release/filters-bench}
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" --calls "$1" --format "$format" "$2" 2>&1 \
        | sed -n 's/.*I *refs: *//p' | tr -d ,
}
for name in "$@"; do
    one=$(count 1 "$name"); three=$(count 3 "$name")
    awk -v a="$one" -v b="$three" -v n="$name" -v f="$format" \
        'BEGIN { printf "%-10s %-40s %8.2f instructions/pixel\n", f, n, (b - a) / 2 / (1920 * 1080) }'
done
