#!/usr/bin/env bash
# source-boundary-bench.sh - what running a source in a child process costs per frame: the same frames made in one
# process, and made in a child and handed over as SwiftCam's libcamera sources are (shmsink in the child, shmsrc in the
# host), both measured as CPU time (user + system, every process) over FRAMES frames.
#
#   bash scripts/source-boundary-bench.sh              # 1920x1080 NV12, 900 frames (30 s a run), best of 3
#   BENCH_SIZE=1280x720 BENCH_FORMAT=RGB BENCH_FRAMES=300 bash scripts/source-boundary-bench.sh
#
# The frames come from a live `videotestsrc pattern=black` at 30 fps, as a camera sends them (FRAMES/30 s a run), so
# what differs between the two runs is the boundary: shmsink's writes into shared memory (upstream allocates from shmsink's allocator, so a frame is
# written there once, not copied), the control socket's messages, shmsrc wrapping each block without a copy, the
# acknowledgement that frees it, and the two processes' wake-ups. Prints one Markdown table row per run and the cost.
set -euo pipefail

size=${BENCH_SIZE:-1920x1080}
format=${BENCH_FORMAT:-NV12}
frames=${BENCH_FRAMES:-900}
rounds=${BENCH_ROUNDS:-3}
width=${size%x*} height=${size#*x}
caps="video/x-raw,format=$format,width=$width,height=$height,framerate=30/1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cpu() {  # cpu FILE: user+system seconds that /usr/bin/time wrote (its last line; a failed exit is said first)
  tail -n 1 "$1" | awk '{ print $1 + $2 }'
}

inprocess() {
  /usr/bin/time -f '%U %S %e' -o "$work/one" \
    gst-launch-1.0 -q videotestsrc is-live=true num-buffers="$frames" pattern=black ! "$caps" ! fakesink sync=false enable-last-sample=false
  cpu "$work/one"
}

boundary() {
  local socket=$work/bench.sock
  rm -f "$socket"
  # The host first would find no socket: the child starts, waits for its reader (wait-for-connection), then sends.
  # (A source that is not live prerolls into shmsink, which then waits for a reader that waits for it.)
  # The child ends at EOS once every frame it sent is released: a fakesink keeping its last sample would hold one.
  /usr/bin/time -f '%U %S %e' -o "$work/child" \
    gst-launch-1.0 -q videotestsrc is-live=true num-buffers="$frames" pattern=black ! "$caps" \
    ! shmsink socket-path="$socket" shm-size=$((width * height * 4 * 8)) wait-for-connection=true sync=false >/dev/null 2>&1 &
  local child=$!
  while [ ! -S "$socket" ]; do sleep 0.05; done
  /usr/bin/time -f '%U %S %e' -o "$work/host" \
    gst-launch-1.0 -q shmsrc socket-path="$socket" is-live=true do-timestamp=true ! "$caps" ! fakesink sync=false enable-last-sample=false \
    > /dev/null 2>&1 || true  # it ends with an error when the child, and its socket, go away
  wait "$child" || true
  awk -v a="$(cpu "$work/child")" -v b="$(cpu "$work/host")" 'BEGIN { print a + b, b }'
}

best() { sort -n | head -n 1; }  # the run with the least CPU (its whole line)
# Each run pays for starting its processes (two for the boundary): the same runs of one frame measure that, and the
# difference of the differences is what the frames cost at the boundary.
measure() {  # measure FRAMES: "IN-ONE-PROCESS BOUNDARY HOST-SIDE", best of the rounds
  local saved=$frames
  frames=$1
  local a b
  a=$(for _ in $(seq "$rounds"); do inprocess; done | best)
  b=$(for _ in $(seq "$rounds"); do boundary; done | best)
  frames=$saved
  echo "$a $b"
}
read -r one two host < <(measure "$frames")
read -r one0 two0 host0 < <(measure 1)
echo "| frames | in one process (CPU s) | child → shm → host (CPU s; the host's part) | 1 frame (start-up) | per frame: boundary, the host's part |"
echo "|---|---|---|---|---|"
awk -v n="$frames" -v a="$one" -v b="$two" -v h="$host" -v a0="$one0" -v b0="$two0" -v h0="$host0" -v s="$size $format" 'BEGIN {
  per = ((b - a) - (b0 - a0)) / (n - 1) * 1000
  side = (h - h0) / (n - 1) * 1000
  printf "| %d × %s at 30 fps | %.2f | %.2f (%.2f) | %.2f / %.2f | %.3f ms, %.3f ms (%.1f %% of a 30 fps frame interval on one core) |\n",
    n, s, a, b, h, a0, b0, per, side, side / 33.3 * 100 }'
