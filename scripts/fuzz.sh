#!/usr/bin/env bash
# The libFuzzer targets of Tests/Fuzz (a package of their own, so no plain build links them), built once
# with -sanitize=fuzzer,address and run from the repository root, as many side by side as there are cores (FUZZ_JOBS).
#
# Usage: fuzz.sh [full|short|build] [TARGET…]      targets: Grammar Cube Config Command Launch Signalling (default: all)
#   full  (make fuzz): FUZZ_RUNS inputs per target (default 1000000); FUZZ_MAX_SECONDS (default 10800) bounds
#         each run as a safety net, and a run it cuts short fails, because it did not reach FUZZ_RUNS. On two
#         shared cores the GStreamer targets take the longest (Config ~1 h, Launch ~2 h); the rest minutes.
#   short (make test): FUZZ_SHORT_SECONDS per target (default 12), whatever number of inputs that is.
#   build: only the build (test.sh makes it ahead, in the background); FUZZ_SKIP_BUILD=1 then runs on what it built.
# Every run: a trap or a broken property (a crash), a slow input (-timeout: 1 s, 10 s for the GLib targets) or a leak
# (-detect_leaks=1 under LeakSanitizer) fails it; the input is kept in .build/fuzz/artifacts/ and the
# last lines of the log are shown. Inputs that found new coverage collect in .build/fuzz/corpus/TARGET,
# next to the checked-in seeds in Tests/Fuzz/Corpus/TARGET (and its dictionary, Tests/Fuzz/TARGET.dict).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-full}
shift || true
case "$mode" in full|short|build) ;; *) echo "usage: $0 [full|short|build] [TARGET…]"; exit 64 ;; esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(Grammar Cube Command Config Launch Signalling)

# Release (FUZZ_CONFIG, default release): the same traps as debug (overflow, preconditions, exclusivity; SwiftCam has
# no assert), and about twice the inputs per second. make test's short run builds debug (FUZZ_CONFIG=debug): minutes
# less compiling, for a run that is bounded by seconds, not inputs.
# swiftc keeps only the last -sanitize= it is given, and SwiftPM passes --sanitize=fuzzer --sanitize=address
# as two flags in a per-process order: each build would get either coverage or ASan in the Swift code, never
# both. -Xswiftc -sanitize=fuzzer,address comes last and asks for both; the counters check and the ASan
# canary below prove it.
scratch=.build/fuzz
config=${FUZZ_CONFIG:-release}
case "$config" in debug|release) ;; *) echo "FUZZ_CONFIG is debug or release, not '$config'"; exit 64 ;; esac
build=(swift build -c "$config" --package-path Tests/Fuzz --scratch-path "$scratch" --sanitize=fuzzer --sanitize=address
       -Xswiftc -sanitize=fuzzer,address)
if [ "${FUZZ_SKIP_BUILD:-0}" = 1 ]; then
  printf '\n== fuzz targets: built ahead (%s)\n' "${build[*]}"
else
  printf '\n== fuzz targets: building (%s)\n' "${build[*]}"
  mkdir -p "$scratch"
  # SwiftCam is a path dependency of this package, and SwiftPM reuses its build plan (release.yaml, debug.yaml) when only the
  # dependency's files changed: sources added since the last build were left out ("module 'FiltersAVX2' has no member
  # named 'GaussianCore'"). Without the plan it plans again; what is compiled stays compiled.
  rm -f "$scratch/$config.yaml"
  if ! "${build[@]}" >"$scratch/build.log" 2>&1; then
    grep -E 'error:' "$scratch/build.log" | sort -u | head -20
    echo "FAIL: the fuzz targets do not build (log: $scratch/build.log)"
    exit 1
  fi
  tail -n 1 "$scratch/build.log"
fi
bin=$("${build[@]}" --show-bin-path)
[ "$mode" = build ] && exit 0

# Swift's own crash backtracer would race ASan's report and libFuzzer's crash handling.
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS=suppressions=$PWD/scripts/lsan.supp:print_suppressions=0
# GStreamer in the Launch and Config targets: no plugin registry rescans mid-run, no debug output.
export GST_REGISTRY_UPDATE=no GST_DEBUG=0

# fuzz_one TARGET: runs one target; its part of the report on stdout, its summary line in $scratch/TARGET.summary and
# FAIL in $scratch/TARGET.failed when it fails.
fuzz_one() {
  local target=$1 exe="$bin/Fuzz$1" counters corpus artifacts log start status seconds runs line timeout limits
  # Targets that load GLib (Capture, GStreamer) record whole allocation stacks, because GLib has no frame
  # pointers and the suppressions match by library (its one-time constructor allocation, `_dl_init`); eight
  # frames reach it and keep those targets about twice as fast as thirty. Filters alone: the fast unwinder.
  # Set before the coverage check, which runs the target too (`fuzz.sh full Launch` alone exited there, silently,
  # on GLib's allocation reported as a leak).
  # Their slow unwinder, the first use of a plugin (loaded by the first input naming it) and GStreamer's caps
  # intersections take an input past 1 s on a loaded machine (a v4l2src config: 0.2-4.6 s at load 16), so there an
  # input counts as slow, i.e. hung, past 10 s.
  case "$target" in
    Grammar|Cube) export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 ;;
    *) export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:fast_unwind_on_malloc=0:malloc_context_size=8 ;;
  esac
  # Signalling makes a new webrtcbin viewer every 200 inputs and waits for its offer (up to 10 s on a loaded machine).
  case "$target" in Config|Launch|Signalling) timeout=10 ;; *) timeout=1 ;; esac
  # A target whose dependencies lost their coverage instrumentation would "fuzz" blind and find nothing.
  # (`|| true`: the count is what is checked, not how the zero-input run exits.)
  counters=$("$exe" -runs=0 </dev/null 2>&1 | sed -n 's/.*(\([0-9]*\) inline 8-bit counters).*/\1/p' | head -n 1 || true)
  if [ "${counters:-0}" -lt 5000 ]; then
    echo "FAIL: Fuzz$target has ${counters:-no} coverage counters; rebuild it: rm -rf $scratch/x86_64-unknown-linux-gnu"
    echo FAIL >"$scratch/$target.failed"; return
  fi
  corpus="$scratch/corpus/$target" artifacts="$scratch/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  if [ "$mode" = full ]; then
    limits=(-runs="${FUZZ_RUNS:-1000000}" -max_total_time="${FUZZ_MAX_SECONDS:-10800}")
  else
    limits=(-max_total_time="${FUZZ_SHORT_SECONDS:-12}")
  fi
  log="$scratch/$target.log"
  printf '\n== fuzz %s: %s\n' "$target" "${limits[*]}"
  start=$SECONDS
  status=0
  "$exe" "${limits[@]}" -timeout="$timeout" -detect_leaks=1 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
    -dict="Tests/Fuzz/$target.dict" -artifact_prefix="$artifacts/" "$corpus" "Tests/Fuzz/Corpus/$target" </dev/null >"$log" 2>&1 || status=$?
  seconds=$((SECONDS - start))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  line="$target: ${runs:-?} inputs in ${seconds} s"
  echo "$line" >"$scratch/$target.summary"
  if [ "$status" -ne 0 ]; then
    echo "FAIL: $line, exit $status"
    grep -E 'PROPERTY VIOLATED|ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|SUMMARY|Test unit written|^    #[0-9]' "$log" | head -40 || true
    echo FAIL >"$scratch/$target.failed"
  elif [ "$mode" = full ] && [ "${runs:-0}" -lt "${FUZZ_RUNS:-1000000}" ]; then
    echo "FAIL: $line: -max_total_time=${FUZZ_MAX_SECONDS:-10800} stopped it before ${FUZZ_RUNS:-1000000} inputs"
    echo FAIL >"$scratch/$target.failed"
  else
    echo "ok: $line, no crash, hang or leak"
  fi
}

# libFuzzer runs one input at a time on one thread: FUZZ_JOBS targets side by side (default: one a core), each report
# printed whole, in the targets' order, once all have ended.
for target in "${targets[@]}"; do
  [ -x "$bin/Fuzz$target" ] || { echo "no fuzz target $target (known: Grammar Cube Command Config Launch Signalling)"; exit 64; }
done
jobs_max=${FUZZ_JOBS:-$(nproc)}
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  rm -f "$scratch/$target.summary" "$scratch/$target.failed"
  fuzz_one "$target" >"$scratch/$target.report" 2>&1 &
done
wait
failed=()
summary=()
for target in "${targets[@]}"; do
  cat "$scratch/$target.report"
  [ -e "$scratch/$target.failed" ] && failed+=("$target")
  [ -s "$scratch/$target.summary" ] && summary+=("$(cat "$scratch/$target.summary")")
done

# AddressSanitizer is in the Swift code: an out-of-bounds read in FuzzGrammar is reported.
printf '\n== fuzz: AddressSanitizer reports an out-of-bounds read in Swift code\n'
log="$scratch/asan-canary.log"
if SWIFTCAM_FUZZ_ASAN_CANARY=1 ASAN_OPTIONS=detect_leaks=0 "$bin/FuzzGrammar" -runs=1 -artifact_prefix="$scratch/asan-canary-" \
    </dev/null >"$log" 2>&1; then
  echo "FAIL: the out-of-bounds read went unreported"; failed+=(asan-canary)
elif ! grep -q "AddressSanitizer: heap-buffer-overflow" "$log"; then
  echo "FAIL: the canary run failed for another reason"; tail -20 "$log"; failed+=(asan-canary)
else
  echo "ok: the out-of-bounds read was reported"
fi

# The suppressions match GLib's own one-time allocations only: a GLib string our code leaks is reported.
if [[ " ${targets[*]} " == *" Launch "* ]]; then
  printf '\n== fuzz: LeakSanitizer still reports a deliberate leak through GLib\n'
  log="$scratch/leak-canary.log"
  if SWIFTCAM_FUZZ_LEAK_CANARY=1 ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:malloc_context_size=8 \
      "$bin/FuzzLaunch" -runs=20 -detect_leaks=1 -artifact_prefix="$scratch/leak-canary-" Tests/Fuzz/Corpus/Launch </dev/null >"$log" 2>&1; then
    echo "FAIL: the deliberate leak went unreported"; failed+=(leak-canary)
  elif ! grep -q "LeakSanitizer: detected memory leaks" "$log"; then
    echo "FAIL: the canary run failed for another reason"; tail -20 "$log"; failed+=(leak-canary)
  else
    echo "ok: the deliberate leak was reported"
  fi
fi

printf '\n== fuzz summary (%s)\n' "$mode"
printf '  %s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAIL: ${failed[*]} (logs: $scratch/TARGET.log, inputs: $scratch/artifacts/)"
  exit 1
fi
