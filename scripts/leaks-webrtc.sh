#!/usr/bin/env bash
# make leaks-webrtc: is the host's memory after many WebRTC viewer lifetimes a leak? Runs WebTests.ViewerLifetimeTests
# (Chromium: watch, ICE, DTLS, a decoded frame, close) twice against the debug host with LeakSanitizer's standalone
# runtime preloaded (Debian's liblsan0: no sanitizer build of the host needed), LEAK_SHORT (20) and LEAK_LIFETIMES
# (1000) lifetimes, each in a network namespace with only lo. LeakSanitizer reports what the host had not freed when it
# exited; a leak of ours grows with the lifetimes, GStreamer's and GLib's once-per-process allocations do not. Prints
# both summaries, the stacks whose leaked objects grew between the runs, and each run's RSS line (the RSS bound of the
# test is not the point here: LeakSanitizer's allocator keeps freed memory in its own quarantine). Reports are kept in
# .build/leaks/.
set -euo pipefail
cd "$(dirname "$0")/.."
short=${LEAK_SHORT:-20}
long=${LEAK_LIFETIMES:-1000}
runtime=$(ls /usr/lib/x86_64-linux-gnu/liblsan.so.0 2>/dev/null || true)
if [[ -z "$runtime" ]]; then
  apt-get install -y -qq liblsan0 >/dev/null
  runtime=/usr/lib/x86_64-linux-gnu/liblsan.so.0
fi
swift build --build-tests
out=$PWD/.build/leaks
rm -rf "$out" && mkdir -p "$out"
sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
for lifetimes in "$short" "$long"; do
  wrapper=$out/swiftcam-$lifetimes
  # Slow unwinding: GLib and GStreamer have no frame pointers, and the stacks must reach our code to be read.
  cat >"$wrapper" <<EOF
#!/bin/sh
exec env LD_PRELOAD=$runtime LSAN_OPTIONS=exitcode=0:fast_unwind_on_malloc=0:malloc_context_size=12:log_path=$out/lsan-$lifetimes:suppressions=$PWD/scripts/lsan.supp "$PWD/.build/debug/swiftcam" "\$@"
EOF
  chmod +x "$wrapper"
  "${sudo_cmd[@]}" env SWIFTCAM_BINARY="$wrapper" SWIFTCAM_VIEWER_LIFETIMES="$lifetimes" \
    unshare --net --pid --fork --mount-proc bash -c "ip link set lo up && swift test --skip-build --filter WebTests.ViewerLifetimeTests" \
    >"$out/test-$lifetimes.log" 2>&1 || true
  echo "$lifetimes lifetimes: $(grep -m1 'viewer lifetimes:' "$out/test-$lifetimes.log" || echo 'no RSS line (see .build/leaks/test-'"$lifetimes"'.log)')"
done
python3 scripts/lsan_compare.py "$out" "$short" "$long"
