#!/usr/bin/env bash
# The WebRTC send path's CPU per RTP packet, piece by piece (make bench-webrtc-send): what a viewer's packets would cost
# on paths other than webrtcbin's, beside `make load-web`, which measures webrtcbin's whole path in the host.
#
# One input: 60 s of 640x480@30 SMPTE bars at 2 Mbit/s (x264, as the live encoder makes it: ≈ 7.6 RTP packets a
# frame), repeated BENCH_REPEAT (8) times. Each line is a gst-launch pipeline run to the end as fast as it goes,
# `filesrc ! h264parse ! rtph264pay` then the pieces named; its CPU (user + system, the best of BENCH_RUNS, 3) less
# that of the same pipeline ending in fakesink, divided by the packets. UDP goes to a reader on lo in a network
# namespace of its own, so the kernel's receive half is counted as it is in the host (on lo it runs in the sender).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" != inside ]]; then
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  exec "${sudo_cmd[@]}" env BENCH_REPEAT="${BENCH_REPEAT:-8}" BENCH_RUNS="${BENCH_RUNS:-3}" \
    unshare --net bash "$0" inside
fi
ip link set lo up
dir=.build/webrtc-send-bench
mkdir -p "$dir"
clip=$dir/smpte-2mbit.h264
input=$dir/input.h264
if [[ ! -s $clip ]]; then
  gst-launch-1.0 -q videotestsrc pattern=smpte num-buffers=1800 ! video/x-raw,width=640,height=480,framerate=30/1 \
    ! x264enc tune=zerolatency speed-preset=ultrafast bitrate=2000 key-int-max=60 ! h264parse \
    ! video/x-h264,stream-format=byte-stream,alignment=au ! filesink location="$clip"
fi
: >"$input"
for ((i = 0; i < BENCH_REPEAT; i++)); do cat "$clip" >>"$input"; done

source="filesrc location=$input ! h264parse ! rtph264pay config-interval=-1 aggregate-mode=zero-latency"
packets=$(gst-launch-1.0 -v $source ! fakesink silent=false 2>/dev/null | grep -c "chain" || true)
# Master keys: 30 bytes (AES-128 key + 14-byte salt) for AES-CM; AES-GCM with both RTP and RTCP in GCM takes 28.
cm="srtpenc key=$(printf '1%.0s' {1..60}) rtp-cipher=aes-128-icm rtp-auth=hmac-sha1-80"
gcm="srtpenc key=$(printf '2%.0s' {1..56}) rtp-cipher=aes-128-gcm rtp-auth=null rtcp-cipher=aes-128-gcm rtcp-auth=null"
udp="udpsink host=127.0.0.1 port=5004 sync=false"

gst-launch-1.0 -q udpsrc port=5004 buffer-size=8388608 ! fakesink >/dev/null 2>&1 &
reader=$!
trap 'kill $reader 2>/dev/null || true' EXIT

# The best (least disturbed) CPU seconds of BENCH_RUNS runs of one pipeline.
cpu() {
  local best="" run
  for ((run = 0; run < BENCH_RUNS; run++)); do
    local took
    took=$( { TIMEFORMAT='%U %S'; time timeout 120 gst-launch-1.0 -q $1 >/dev/null 2>&1; } 2>&1 | awk '{print $1 + $2}')
    if [[ -z $best ]] || awk -v a="$took" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$took; fi
  done
  echo "$best"
}

base=$(cpu "$source ! fakesink")
echo "webrtc send path per RTP packet: $packets packets; source + payloader alone $(awk -v c="$base" -v n="$packets" 'BEGIN { printf "%.1f", c * 1e6 / n }') µs/packet (subtracted below)"
line() {
  local seconds
  seconds=$(cpu "$2")
  awk -v c="$seconds" -v b="$base" -v n="$packets" -v what="$1" 'BEGIN { printf "  %-62s %5.1f µs/packet\n", what, (c - b) * 1e6 / n }'
}
# rtpbin comes first in its lines: gst-launch links a request pad by name only to an element it has already made.
rtpbin="rtpbin name=r $source ! r.send_rtp_sink_0 r.send_rtp_src_0"
line "srtpenc AES-CM-128 + HMAC-SHA1-80 (what webrtcbin's DTLS picks)" "$source ! $cm ! fakesink"
line "srtpenc AEAD-AES-128-GCM" "$source ! $gcm ! fakesink"
line "udpsink, one packet a sendmmsg (identity splits the lists)" "$source ! identity ! $udp"
line "udpsink, the payloader's buffer lists (sendmmsg)" "$source ! $udp"
line "rtpbin's send path (rtpsession), the payloader's lists" "$rtpbin ! fakesink"
line "rtpbin's send path, one packet at a time (as in webrtcbin)" \
  "rtpbin name=r $source ! identity ! r.send_rtp_sink_0 r.send_rtp_src_0 ! fakesink"
line "webrtcbin's elements without ICE/DTLS (clocksync to udpsink)" \
  "rtpbin name=r $source ! clocksync sync=false ! rtpulpfecenc ! rtpredenc ! r.send_rtp_sink_0 r.send_rtp_src_0 ! $cm ! funnel ! $udp"
line "lean: srtpenc AES-CM ! udpsink (lists)" "$source ! $cm ! $udp"
line "lean: srtpenc AES-GCM ! udpsink (lists)" "$source ! $gcm ! $udp"
