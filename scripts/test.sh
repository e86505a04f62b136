#!/usr/bin/env bash
# Every test SwiftCam has, in the order a failure is cheapest to find, each stage timed. Usage: test.sh [all|STAGE] (stages: below)
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
step() { printf '\n== %s (%s)\n' "$*" "$(date +%T)"; }

# Each stage's minutes, printed when the run ends (a failed one too, naming where): what make test costs, stage by stage.
timings=() current='' current_start=0
stage() {
  current=$1 current_start=$SECONDS
  "$1"
  timings+=("$1 $((SECONDS - current_start))")
  current=''
}
minutes() { awk -v seconds="$1" 'BEGIN { printf "%.1f", seconds / 60 }'; }
print_timings() {
  [ ${#timings[@]} -gt 0 ] || [ -n "$current" ] || return 0
  printf '\n== minutes per stage\n'
  local entry
  for entry in "${timings[@]}"; do printf '  %-10s %5s\n' "${entry% *}" "$(minutes "${entry##* }")"; done
  [ -z "$current" ] || printf '  %-10s %5s  (ended here)\n' "$current" "$(minutes $((SECONDS - current_start)))"
  printf '  %-10s %5s\n' total "$(minutes "$SECONDS")"
}
trap 'print_timings' EXIT

# In a whole run the sanitizer and fuzz builds (about 5 min of compiling on two cores) and the ARM64 root and
# cross-builds (about 4 min of packages, 4 of compiling) start once the debug build is
# done, in the background at the lowest priority: they take the CPU the test steps leave idle (the publishing suite
# and the VM wait on real time) and yield the rest, so those steps keep their pace. asan, fuzz and tsan wait for theirs.
ahead_dir='' ahead_pid=''
build_ahead() {
  # A folder per run, so a status left by an earlier run (killed before its EXIT trap) is never read as this one's.
  rm -rf .build/ahead.*
  ahead_dir=$(mktemp -d .build/ahead.XXXXXX)
  # setsid: a session and group of their own, led by the inner shell, whose pid it writes first; ended with the run
  # however the run ends. A new session is a scheduler autogroup of its own where the kernel has them, and the nice
  # value of its processes counts only inside it: against the test steps the group would take half the CPU (the VM's
  # emulated suites ran much slower beside it). The group itself is made nice 19, so it takes only what is idle.
  AHEAD_DIR=$ahead_dir setsid nice -n 19 bash -c '
    echo $$ >"$AHEAD_DIR/pid"
    [ -w /proc/self/autogroup ] && echo 19 >/proc/self/autogroup 2>/dev/null
    ahead() { local name=$1; shift; "$@" >"$AHEAD_DIR/$name.log" 2>&1; echo $? >"$AHEAD_DIR/$name.status"; }
    ahead asan swift build --build-tests --sanitize=address --scratch-path .build/asan
    ahead tsan swift build --build-tests --sanitize=thread --scratch-path .build/tsan
    ahead fuzz env FUZZ_CONFIG=debug bash scripts/fuzz.sh build
    ahead arm64 bash scripts/test-arm64.sh build' &
  ahead_pid=$!
  trap 'stop_ahead; print_timings' EXIT
  echo "building the asan, tsan, fuzz and arm64 trees in the background (logs: $ahead_dir/)"
}
# signal_ahead SIGNAL: to the whole background group (its compilers too), if there is one.
signal_ahead() {
  local group
  [ -n "$ahead_dir" ] || return 0
  group=$(cat "$ahead_dir/pid" 2>/dev/null) || return 0
  [ -n "$group" ] && kill "-$1" -- "-$group" 2>/dev/null || true
}
stop_ahead() { signal_ahead CONT; signal_ahead TERM; }
# built_ahead NAME: true once the background build NAME has succeeded, false when there is none (build it here);
# a failed one fails the run with its errors.
built_ahead() {
  local name=$1 leader
  [ -n "$ahead_pid" ] || return 1
  while [ ! -s "$ahead_dir/$name.status" ]; do
    # Before the inner shell has written its pid, the background job's own (the same process: no job control here).
    leader=$(cat "$ahead_dir/pid" 2>/dev/null || echo "$ahead_pid")
    if ! kill -0 "$leader" 2>/dev/null; then
      # It may have written the status just before it ended.
      [ -s "$ahead_dir/$name.status" ] && break
      echo "FAIL: the background builds ended before the $name build (logs: $ahead_dir/)"; exit 1
    fi
    sleep 2
  done
  [ "$(cat "$ahead_dir/$name.status")" = 0 ] && return 0
  grep -E 'error:|FAIL' "$ahead_dir/$name.log" | sort -u | head -20
  echo "FAIL: the $name build (log: $ahead_dir/$name.log)"
  exit 1
}

# watched MINUTES COMMAND…: runs COMMAND (a swift test, or a namespace around one) with its output kept in a log as
# well, and returns its status. One still going after MINUTES is stopped and fails (124), naming the tests that had
# started and not ended: a hang would otherwise run on to CI's limit and leave only the last lines it printed. No
# test's own pace is judged by it: each stage's whole run normally takes a small part of its MINUTES.
watched() {
  local minutes=$1 log status=0
  shift
  log=$(mktemp "${TMPDIR:-/tmp}/swiftcam-tests.XXXXXX")
  # Output through a process substitution, not a pipe: bash does not wait for it, so a grandchild that kept the
  # output open cannot hold the run after the command ended. timeout puts the command in a process group of its own,
  # which a Ctrl-C at the terminal does not reach: an interrupted run passes it on (timeout hands it to the group).
  timeout --kill-after=60 "${minutes}m" "$@" > >(tee "$log") 2>&1 &
  local pid=$!
  trap "kill -TERM $pid 2>/dev/null; wait $pid; rm -f '$log'; exit 130" INT TERM
  wait "$pid" || status=$?
  trap - INT TERM
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    sleep 1 # what tee still had
    {
      echo "FAIL: still running after $minutes min, stopped (exit $status): $*"
      echo "tests started and not ended:"
      python3 scripts/unfinished-tests.py "$log"
    } >&2
    rm -f "$log"
    return 124
  fi
  rm -f "$log"
  return "$status"
}

unit() {
  step "unit and pipeline tests (debug build)"
  bash scripts/lint.sh
  python3 scripts/check-imports.py
  python3 scripts/check-architecture.py
  python3 scripts/check-house.py
  swift build --build-tests
  [ "$what" != all ] || build_ahead
  # Every command the README and docs/ print, run (the ones that need no camera) or checked against its --help.
  python3 scripts/check-docs.py .build/debug
  # make docs: the DocC archives build, every public symbol with its summary line.
  bash scripts/docs.sh
  watched 40 swift test --skip-build --skip PublishTests --skip HostTests.HostServiceTests --skip HostTests.CommandValueTests
}

publish() {
  # RTSP servers, pushes and their stand-ins open sockets: in a network namespace with only loopback up, so no
  # packet can leave this machine whatever address a component picks (root, or a user namespace, needed), and (as
  # root) a PID namespace, so no reader or stand-in outlives the run.
  # One suite at a time: each runs a host, encoders and reader processes, and side by side on two cores a reader
  # could miss its 60 s safety net (seen once in CI: an RTSP reader next to the latency suite decoded nothing).
  # The host's own suites of its page and RTSP server and of every command's values through every transport (in this
  # process, on TCP) run here too.
  local suites='PublishTests|HostTests.HostServiceTests|HostTests.CommandValueTests'
  step "publishing (RTSP serve, RTSP/SRT push, stand-ins) and the host's servers inside unshare --net, loopback only"
  if unshare --net --pid --fork --mount-proc true 2>/dev/null; then
    watched 20 unshare --net --pid --fork --mount-proc sh -c "ip link set lo up && swift test --skip-build --no-parallel --filter '$suites'; exit \$?"
  elif unshare --user --map-root-user --net true 2>/dev/null; then
    watched 20 unshare --user --map-root-user --net sh -c "ip link set lo up && swift test --skip-build --no-parallel --filter '$suites'; exit \$?"
  else
    echo "note: no network namespace available here; every server and client in these tests uses 127.0.0.1"
    watched 20 swift test --skip-build --no-parallel --filter "$suites"
  fi
}

web() {
  # Headless Chromium against `swiftcam run --http`, WebRTC included; then, one suite at a time after the page's (sixty
  # viewers churned beside a page test could push its WebRTC past the page's 6 s MJPEG fallback), hostile /ws clients,
  # viewer lifetimes, an independent WebRTC client (aiortc), the HTTP server's limits and the token's life (a wildcard
  # bind). Host, chromedriver and browser share a network
  # namespace whose only interface is lo, so no ICE candidate or check can reach another address of this machine, and a
  # PID namespace, so whatever the tests leave running (a chromedriver of a test killed mid-way) ends with them.
  step "the camera page in headless Chromium, in a network namespace with only lo"
  # The page's plugin test loads Examples/MyFilters' plugin, which the plugin stage builds (before this one in a whole
  # run); without it that test is skipped and says so.
  [ -f .build/myfilters/debug/libgstmyfilters.so ] || echo "note: .build/myfilters/debug/libgstmyfilters.so is not built (scripts/test.sh myfilters): the plugin page test is skipped"
  # The independent WebRTC client (aiortc from PyPI) of IndependentClientTests, in a venv under .build, made once
  # (out here: the namespace has no network).
  local venv=.build/webrtc-venv
  if ! "$venv/bin/python" -c "import aiortc, numpy" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet aiortc==1.16.0 numpy || { echo "FAIL: cannot install aiortc into $venv"; exit 1; }
  fi
  local sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  watched 30 "${sudo_cmd[@]}" unshare --net --pid --fork --mount-proc bash -c 'ip link set lo up && swift test --skip-build --filter "WebTests.PageTests" \
    && swift test --skip-build --no-parallel --filter "WebTests.HostileClientTests|WebTests.ViewerLifetimeTests|WebTests.IndependentClientTests|WebTests.HTTPServerTests|WebTests.TokenLifeTests|WebTests.HTTPSTests|WebTests.RelayFallbackTests"; exit $?'
  # Chromium (H.264) and Debian's Firefox ESR (VP8 only) from a second host: two network namespaces joined by a veth pair,
  # the page over HTTPS with the host's own certificate, WebRTC settings the defaults; Firefox driven with marionette_driver
  # from PyPI, in a venv made out here (the namespaces have no network).
  bash scripts/firefox-venv.sh >/dev/null
  watched 10 "${sudo_cmd[@]}" unshare --net --mount --pid --fork --mount-proc python3 scripts/browsers_test.py "$(swift build --show-bin-path)/swiftcam" \
    "${SWIFTCAM_SCREENSHOTS:-.build/screenshots}"
  # The same page played through Debian's Janus (publish.janus): the host relays the signalling, Janus sends the media,
  # Chromium in H.264 and Firefox in VP8 (fed while it watches); Janus's ICE skips lo, so this too is two hosts.
  watched 10 "${sudo_cmd[@]}" unshare --net --mount --pid --fork --mount-proc python3 scripts/janus_page_test.py "$(swift build --show-bin-path)/swiftcam" \
    "${SWIFTCAM_SCREENSHOTS:-.build/screenshots}"
  echo "screenshots: ${SWIFTCAM_SCREENSHOTS:-.build/screenshots}/"
}

metrics() {
  # /metrics from running hosts, read by Prometheus's own parser (PyPI prometheus-client, in a venv under .build,
  # installed outside the namespace), in a network namespace with only lo.
  step "/metrics parsed by prometheus-client, in a network namespace with only lo"
  local python sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  python=$(bash scripts/metrics-venv.sh)
  "${sudo_cmd[@]}" unshare --net --pid --fork --mount-proc bash -c \
    "ip link set lo up && $python scripts/metrics_test.py '$(swift build --show-bin-path)/swiftcam'"
}

asan() {
  # LeakSanitizer on, stacks from the slow unwinder (GLib has no frame pointers) so the suppressions can match by
  # library; eight frames reach the library and take a third of the time thirty do (a thousand pipelines: 17 s, not 49).
  local scratch=.build/asan supp="$PWD/scripts/lsan.supp" reports
  # The reports go to files (log_path), printed when a run fails: a report is written whole whatever reads the
  # run's output, and ends up among the run's last lines.
  reports=$(mktemp -d)
  # A Swift trap (SIGILL) is reported by ASan (handle_sigill), with the stack, and ends the process: Swift's own crash
  # backtracer is off (SWIFT_BACKTRACE), as its helper reads other threads' stacks, which ASan reports as an error of
  # its own, and the run then hung until CI's limit.
  local common=handle_sigill=1:handle_abort=1:log_path=$reports/asan
  local options=detect_leaks=1:fast_unwind_on_malloc=0:malloc_context_size=8:$common
  step "the same tests under AddressSanitizer + LeakSanitizer"
  built_ahead asan || swift build --build-tests --sanitize=address --scratch-path "$scratch"
  # The plugin registry brought up to date first, outside the sanitizer: a registry that rebuilds inside a sanitized
  # test loads every plugin of the machine into it, and their start-up allocations are theirs, not SwiftCam's.
  gst-inspect-1.0 >/dev/null 2>&1 || true
  # The CLI, Web and Publish suites run child processes (Foundation's Process leaks under LSan) and are checked in
  # the plain run; so is LibcameraSessionTests, whose sessions run their sources as children (the leak reported is the
  # environment a Process holds, made in SourceProcess.init); the sanitizers check the code in this process.
  sanitized "$reports" env SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="$options" LSAN_OPTIONS="suppressions=$supp" \
    swift test --skip-build --sanitize=address --scratch-path "$scratch" --skip SwiftcamTests --skip PublishTests --skip WebTests \
      --skip FiltersTests --skip CaptureTests.LibcameraSessionTests
  # Filters is Swift only, with frame pointers all the way: the fast unwinder gives whole stacks there, and the slow one
  # made its allocation-heavy accuracy sweeps 8x slower (one sweep: 217 s against 27 s).
  step "Filters under AddressSanitizer + LeakSanitizer (fast unwinder)"
  # SWIFTCAM_SANITIZER=1: OddSizeTests' large odd frame is 721x401 here (still split between threads), 1921x1081 in
  # the plain run.
  sanitized "$reports" env SWIFT_BACKTRACE=enable=no SWIFTCAM_SANITIZER=1 ASAN_OPTIONS="detect_leaks=1:malloc_context_size=8:$common" \
    LSAN_OPTIONS="suppressions=$supp" swift test --skip-build --sanitize=address --scratch-path "$scratch" --filter FiltersTests
  step "LeakSanitizer still reports a deliberate leak"
  local log
  log=$(mktemp)
  if watched 10 env SWIFT_BACKTRACE=enable=no SWIFTCAM_LEAK_CANARY=1 ASAN_OPTIONS="$options" LSAN_OPTIONS="suppressions=$supp" \
      swift test --skip-build --sanitize=address --scratch-path "$scratch" --filter LeakCanary >"$log"; then
    echo "FAIL: the deliberate leak went unreported"; tail -20 "$log"; exit 1
  fi
  if ! grep -qs "LeakSanitizer: detected memory leaks" "$reports"/asan.*; then
    echo "FAIL: the canary run failed for another reason"; tail -20 "$log"; print_reports "$reports"; exit 1
  fi
  echo "ok: the deliberate leak was reported"
  rm -rf "$log" "$reports"
}

# sanitized REPORTS COMMAND…: a sanitizer run (watched) whose reports go to REPORTS/asan.PID; a failed run prints
# them and fails, a clean one leaves none.
sanitized() {
  local reports=$1 status=0
  shift
  watched 30 "$@" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "FAIL: the run under the sanitizer failed (exit $status)"
    print_reports "$reports"
    exit 1
  fi
  rm -f "$reports"/asan.*
}

# print_reports DIR: each sanitizer report in DIR that found something, its first 120 lines.
print_reports() {
  local file
  for file in "$1"/asan.*; do
    [ -e "$file" ] && grep -q "ERROR:" "$file" || continue
    printf '\n-- %s\n' "$file"
    head -n 120 "$file"
  done
}

tsan() {
  # Where streaming threads, property setters, bus watches, taps and session commands meet, and the filters' row pieces.
  # G_SLICE=always-malloc: GLib's slice allocator recycles memory out of TSan's sight, which would
  # read as races between unrelated buffers.
  local scratch=.build/tsan
  step "element, wrapper and session tests under ThreadSanitizer"
  built_ahead tsan || swift build --build-tests --sanitize=thread --scratch-path "$scratch"
  watched 30 env G_SLICE=always-malloc TSAN_OPTIONS=halt_on_error=1 swift test --skip-build --sanitize=thread --scratch-path "$scratch" \
    --filter 'SwiftFilterElementTests|GStreamerTests|CaptureTests.SessionTests|FiltersTests.RowParallelTests'
}

bench() {
  # Whether every case runs and is measured, not how fast: the debug build make test has already made, at two small
  # sizes (a release build would add minutes of compiling to every run). The figures come from the release binary
  # (docs/benchmarks.md says how).
  step "swiftcam bench --quick --json (debug build, small frames): every case measured or skipped with a reason"
  local dir json log
  dir=$(mktemp -d)
  json="$dir/bench.json" log="$dir/bench.log"
  # The background builds hold still while it measures, so its two-thread rows are not read beside a compiler.
  signal_ahead STOP
  if ! "$(swift build --show-bin-path)/swiftcam" bench --quick --sizes 320x240,160x120 --json "$json" >"$log" 2>&1; then
    signal_ahead CONT
    echo "FAIL: swiftcam bench --quick"; tail -20 "$log"; exit 1
  fi
  signal_ahead CONT
  cat "$log" | grep -v '^bench \[' || true
  local id sizes
  sizes=$(grep -c '"id" : "sepia"' "$json" || true)
  [[ "$sizes" -ge 2 ]] || { echo "FAIL: bench.json has sepia at $sizes sizes, expected two"; exit 1; }
  for id in sepia colorcontrols vignette blur blur-conversion gaussianblur-ayuv edges chain3 chain6 memcpy-rgba \
            nv12-roundtrip nv12-c-chain nv12-conversion memcpy-nv12 mjpeg-decode scaling-chain3 scaling-blur scaling-sharpen \
            scaling-edges scaling-zoom scaling-pixelate scaling-mirror scaling-nv12-chain3 scaling-memcpy motion-nv12 preroll-memory; do
    [[ $(grep -c "\"id\" : \"$id\"" "$json") -eq "$sizes" ]] || { echo "FAIL: bench.json lacks case $id at some size"; exit 1; }
  done
  if grep -q '"status" : "failed"' "$json"; then
    echo "FAIL: a bench case failed:"; grep -A1 '"failed" :' "$json" | head; exit 1
  fi
  local measured skipped
  measured=$(grep -c '"status" : "measured"' "$json" || true)
  skipped=$(grep -c '"status" : "skipped"' "$json" || true)
  echo "ok: bench.json has every case at $sizes sizes ($measured sides measured, $skipped skipped with a reason)"
  # docs/benchmarks.md's tables are made from this JSON by scripts/bench-doc.py: it renders this fresh one and finds
  # every marker pair in the document (make bench-doc writes them from the release build).
  python3 scripts/bench-doc.py --check --bench "$json" || { echo "FAIL: scripts/bench-doc.py --check"; exit 1; }
  rm -rf "$dir"
}

hardware() {
  # The real-camera suite boots a VM with the kernel's vivid driver (scripts/vivid-vm.sh installs QEMU and
  # a kernel when missing); a VM that cannot boot is a failure. Only SWIFTCAM_SKIP_HARDWARE=1 skips it.
  step "real V4L2 driver (vivid in a VM): scripts/test-hardware.sh"
  if [ "${SWIFTCAM_SKIP_HARDWARE:-0}" = 1 ]; then
    echo "SKIPPED: SWIFTCAM_SKIP_HARDWARE=1 is set"; return 0
  fi
  # The second VM boots systemd and ends with the Debian package and its swiftcam@ unit; the package is made from
  # the debug build this run already has, so no release build is needed for it.
  SWIFTCAM_PACKAGE_CONFIG=${SWIFTCAM_PACKAGE_CONFIG:-debug} SWIFTCAM_SKIP_BUILD=1 bash scripts/test-hardware.sh
}

fuzz() {
  # Each libFuzzer target for FUZZ_SHORT_SECONDS (12 s), from its seeds and what earlier runs kept; `make fuzz`
  # is the long run (10^6 inputs each).
  step "fuzz targets, ${FUZZ_SHORT_SECONDS:-12} s each, as many at once as there are cores: scripts/fuzz.sh short"
  # A debug build: the run is bounded by seconds, and a release build of the dependencies would cost minutes more.
  if built_ahead fuzz; then FUZZ_CONFIG=debug FUZZ_SKIP_BUILD=1 bash scripts/fuzz.sh short; else FUZZ_CONFIG=debug bash scripts/fuzz.sh short; fi
}

arm64() {
  # SwiftCam cross-built for aarch64 in an emulated Debian root (scripts/test-arm64.sh): the Filters tests, the element
  # in the arm64 gst-launch-1.0 beside the x86 plugin's bytes, the host's demo, the arm64 package installed and run
  # with the toolchains hidden. Built in the background in a whole run.
  step "ARM64 under emulation: scripts/test-arm64.sh all"
  if built_ahead arm64; then SWIFTCAM_ARM64_SKIP_BUILD=1 bash scripts/test-arm64.sh all; else bash scripts/test-arm64.sh all; fi
}

plugin() {
  step "the plugin from plain gst-inspect-1.0 / gst-launch-1.0"
  bash scripts/plugin-check.sh debug
}

myfilters() {
  # Examples/MyFilters is a user's package: built in its own folder with SwiftCam as a dependency, its plugin used from
  # gst-launch-1.0, swiftcam filters and the host's loader, and a copy stamped with another version refused.
  step "a plugin of your own filters: Examples/MyFilters (scripts/myfilters-check.sh)"
  bash scripts/myfilters-check.sh
}

# The stages, flat, in the order a failure is cheapest to find. plugin and myfilters before web: myfilters builds
# Examples/MyFilters (.build/myfilters), whose filters the page test lists and applies.
stages=(unit publish plugin myfilters web metrics bench hardware asan fuzz tsan arm64)
case "$what" in
  all) for name in "${stages[@]}"; do stage "$name"; done ;;
  unit|asan|tsan|plugin|arm64|fuzz) stage "$what" ;;
  bench) swift build; stage bench ;;
  web|metrics|publish|myfilters|hardware) swift build --build-tests; stage "$what" ;;
  *) (IFS='|'; echo "usage: $0 [all|${stages[*]}]"); exit 64 ;;
esac
