#!/usr/bin/env bash
# The house format (.swift-format, read by the toolchain's `swift format`) over every Swift file in the repository.
#   scripts/lint.sh        lint: lists each place that differs from the format and fails when there is one
#   scripts/lint.sh fix    rewrites the files in the format (then read the diff: a rule the formatter cannot apply,
#                          e.g. a `forEach` that should be a `for` loop, is left for you and still listed by lint)
set -euo pipefail
cd "$(dirname "$0")/.."
# Symbolic links (the kernels shared by the SIMD modules) are formatted once, through the file they point at.
paths=(Package.swift Sources Tests Examples)
case "${1:-lint}" in
  lint) swift format lint --strict --recursive --parallel "${paths[@]}" ;;
  fix) swift format format --in-place --recursive --parallel "${paths[@]}" ;;
  *) echo "usage: $0 [lint|fix]" >&2; exit 2 ;;
esac
