#!/usr/bin/env bash
# Every test SwiftCam has, in the order a failure is cheapest to find. Usage: test.sh [all|unit|plugin|asan|tsan|hardware]
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
step() { printf '\n== %s\n' "$*"; }

unit() {
  step "unit and pipeline tests (debug build)"
  swift build --build-tests
  swift test --skip-build
}

asan() {
  # LeakSanitizer on, full stacks (GLib has no frame pointers) so the suppressions can match by library.
  local scratch=.build/asan supp="$PWD/scripts/lsan.supp"
  step "the same tests under AddressSanitizer + LeakSanitizer"
  swift build --build-tests --sanitize=address --scratch-path "$scratch"
  # The CLI suite runs the built binary as a child process and checks its behaviour in the plain run;
  # the sanitizers check the code in this process.
  ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 LSAN_OPTIONS="suppressions=$supp" \
    swift test --skip-build --sanitize=address --scratch-path "$scratch" --skip SwiftcamTests
  step "LeakSanitizer still reports a deliberate leak"
  local log
  log=$(mktemp)
  if SWIFTCAM_LEAK_CANARY=1 ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 LSAN_OPTIONS="suppressions=$supp" \
      swift test --skip-build --sanitize=address --scratch-path "$scratch" --filter LeakCanary >"$log" 2>&1; then
    echo "FAIL: the deliberate leak went unreported"; tail -20 "$log"; exit 1
  fi
  grep -q "LeakSanitizer: detected memory leaks" "$log" || { echo "FAIL: the canary run failed for another reason"; tail -20 "$log"; exit 1; }
  echo "ok: the deliberate leak was reported"
  rm -f "$log"
}

tsan() {
  # The element and wrapper suites: streaming threads, property setters and bus watches meet here.
  local scratch=.build/tsan
  step "element and wrapper tests under ThreadSanitizer"
  swift build --build-tests --sanitize=thread --scratch-path "$scratch"
  TSAN_OPTIONS=halt_on_error=1 swift test --skip-build --sanitize=thread --scratch-path "$scratch" \
    --filter 'SwiftFilterElementTests|GStreamerTests'
}

hardware() {
  # The real-camera suite boots a VM with the kernel's vivid driver; skipped, with the reason, where it cannot.
  step "real V4L2 driver (vivid in a VM): scripts/test-hardware.sh"
  local vm=../shared/tools/vivid-run.sh
  if [ "${SWIFTCAM_SKIP_HARDWARE:-0}" = 1 ]; then
    echo "SKIPPED: SWIFTCAM_SKIP_HARDWARE=1 is set"; return 0
  fi
  if [ ! -x "$vm" ]; then
    echo "SKIPPED: $vm is not here, so no VM with a V4L2 camera can boot"; return 0
  fi
  if [ ! -e /dev/kvm ] && ! command -v qemu-system-x86_64 >/dev/null && ! command -v apt-get >/dev/null; then
    echo "SKIPPED: neither /dev/kvm nor qemu-system-x86_64 (nor apt-get to install it) is available"; return 0
  fi
  SWIFTCAM_SKIP_BUILD=1 bash scripts/test-hardware.sh
}

plugin() {
  step "the plugin from plain gst-inspect-1.0 / gst-launch-1.0"
  bash scripts/plugin-check.sh debug
}

case "$what" in
  unit) unit ;;
  asan) asan ;;
  tsan) tsan ;;
  plugin) plugin ;;
  hardware) swift build --build-tests; hardware ;;
  all) unit; plugin; hardware; asan; tsan ;;
  *) echo "usage: $0 [all|unit|plugin|asan|tsan|hardware]"; exit 64 ;;
esac
