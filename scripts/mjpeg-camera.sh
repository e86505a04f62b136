#!/usr/bin/env bash
# mjpeg-camera.sh - a V4L2 camera that behaves like a USB (UVC) webcam offering only MJPEG:
# `MJPG 1280x720 @ 30 fps` and no raw format. It is a v4l2loopback device fed by ffmpeg, for the
# vivid VM (scripts/vivid-vm.sh builds the module for the guest's kernel), so SwiftCam's tests
# can run the MJPEG → decoder path against a real V4L2 node.
#
#   bash scripts/mjpeg-camera.sh start    # load the module, start the feed, print the node: /dev/video10
#   bash scripts/mjpeg-camera.sh node     # print the node of the running camera (exit 1 if none)
#   bash scripts/mjpeg-camera.sh stop     # stop the feed: the node stays, offering no capture
#                                         # (as a webcam that stopped sending); `start` again reloads
#                                         # the module, which needs the node closed by every reader
#   bash scripts/mjpeg-camera.sh unload   # stop, then remove the module
#   bash scripts/mjpeg-camera.sh frames FILE  # only encode the looped frames into FILE (NUT), no root
#   VIVID_MODPROBE=vivid scripts/vivid-vm.sh 'node=$(bash scripts/mjpeg-camera.sh start) && v4l2-ctl -d "$node" --all'
#
# `start` returns once the node is a capture device whose only mode is MJPG 1280x720 at 30/1 and
# frames flow; it prints nothing else on stdout. It is idempotent: a running camera is reused.
# The camera is found by its card name (`SwiftCam MJPEG webcam`), so tests need not know the number.
#
# The picture (full-range JPEG, 4:2:0, as webcams send), in 1280x720 pixel coordinates:
#   rows y 0-319 and 320-639: eight 320x320 blocks of solid colour (R,G,B):
#     y 0-319:   x 0-319 white (255,255,255)  320-639 yellow (255,255,0)  640-959 cyan (0,255,255)  960-1279 green (0,255,0)
#     y 320-639: x 0-319 magenta (255,0,255)  320-639 red (255,0,0)       640-959 blue (0,0,255)    960-1279 black (0,0,0)
#   y 640-719: a grey (128,128,128) strip with an 80x80 white square whose left edge steps 40 px a
#     frame, x = 40, 80, … 1200, then again from 40 (30 frames a loop): frames differ, and a still
#     tells which of the loop's frames it is.
# Decoded, each block's inside (16 px from its edges) is within 2 levels of its colour; the
# blocks' edges lie on 16-pixel JPEG MCU boundaries.
#
# The 30 frames are encoded once, then looped by ffmpeg as they are (stream copy, paced by -re):
# the feed costs next to no CPU, which matters in a VM under software emulation where it would
# otherwise compete with the test. vivid-vm.sh encodes them natively on the host (`frames`) and
# passes them in MJPEG_FRAMES, which saves the guest one ffmpeg start (seconds under TCG).
#
# What v4l2loopback 0.12.7 (Debian 12's) does unlike a UVC webcam, which a test may meet:
# - Every VIDIOC_REQBUFS resets all buffers' metadata, so a reader's first dequeued buffer has
#   sequence 0 and bytesused 3686400 (a whole JPEG, then stale bytes) and its next one the writer's
#   real count: that first jump is not a drop.
# - A reader's VIDIOC_S_PARM changes the interval the node reports (to every reader), not the 30 fps
#   ffmpeg sends; `start` sets 30 again.
# - After `stop` a streaming reader gets no error (an unplugged webcam gives ENODEV): its DQBUF, and
#   GStreamer's v4l2src, wait for ever.
#
# Exit status: 0 ready; 1 the camera did not come up (ffmpeg's log follows on stderr); 2 usage;
# 69 the module, ffmpeg or v4l2-ctl is unavailable; 77 not root.
#
# Environment:
#   MJPEG_VIDEO_NR   the /dev/videoN number asked for (default 10, clear of vivid's nodes; the
#                    kernel takes the next free one when it is taken)
#   MJPEG_LABEL      the card name (default "SwiftCam MJPEG webcam")
#   MJPEG_TIMEOUT    seconds `start` waits for the first frames (default 60: a cold ffmpeg under TCG)
#   MJPEG_STATE      where the pid, the log and the encoded frames live (default /run/swiftcam-mjpeg)
#   MJPEG_FRAMES     frames made by `frames` to loop instead of encoding them here (vivid-vm.sh sets it)
#   MJPEG_VERBOSE=1  print the steps of `start` with their times on stderr
set -euo pipefail

prog=mjpeg-camera
say() { printf '%s: %s\n' "$prog" "$*" >&2; }
die() { say "$*"; exit 69; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

[ $# -ge 1 ] || usage
mode=$1
case "$mode:$#" in start:1|node:1|stop:1|unload:1|frames:2) ;; *) usage ;; esac

video_nr=${MJPEG_VIDEO_NR:-10}
label=${MJPEG_LABEL:-SwiftCam MJPEG webcam}
timeout_s=${MJPEG_TIMEOUT:-60}
state=${MJPEG_STATE:-/run/swiftcam-mjpeg}
[[ $video_nr =~ ^[0-9]+$ && $timeout_s =~ ^[0-9]+$ ]] || { say "MJPEG_VIDEO_NR and MJPEG_TIMEOUT must be whole numbers"; exit 2; }
# The card name reaches the kernel inside double quotes (it has spaces); it cannot hold one.
case "$label" in *'"'*|'') say "MJPEG_LABEL must be non-empty and hold no double quote"; exit 2 ;; esac

width=1280 height=720 fps=30
pidfile=$state/ffmpeg.pid
log=$state/ffmpeg.log
frames=$state/pattern-${width}x${height}.nut
# Frames given but unreadable (a stale cache path) are encoded here instead.
[ -n "${MJPEG_FRAMES:-}" ] && [ -s "$MJPEG_FRAMES" ] && frames=$MJPEG_FRAMES
# Files are read with the `read` builtin, not cat: under TCG every fork costs tens of milliseconds.
note() { local up; [ "${MJPEG_VERBOSE:-0}" != 1 ] || { read -r up _ < /proc/uptime; say "[$up] $*"; }; }

# encode_frames FILE: the 30 looped frames. Eight blocks drawn in RGB, then converted once to
# full-range 4:2:0 (yuvj420p, what ffmpeg's MJPEG encoder writes as a JFIF webcam frame); quality 3
# keeps flat colours within 2 levels. NUT keeps their timestamps exact (1/30 s apart), which the
# looping below paces by; a raw .mjpeg stream's, made up while reading, drifted at each loop.
encode_frames() {
  local b=320 colours=(FFFFFF FFFF00 00FFFF 00FF00 FF00FF FF0000 0000FF 000000)
  local graph='' inputs='' layout='' i
  for i in "${!colours[@]}"; do
    graph+="color=c=0x${colours[$i]}:s=${b}x${b}:r=$fps,format=rgb24[c$i];"
    inputs+="[c$i]"
    layout+="${layout:+|}$(( i % 4 * b ))_$(( (i / 4) * b ))"
  done
  graph+="${inputs}xstack=inputs=${#colours[@]}:layout=${layout}[top];"
  graph+="color=c=0x808080:s=${width}x$(( height - 2 * b )):r=$fps,format=rgb24[strip];"
  graph+="color=c=0xFFFFFF:s=80x80:r=$fps,format=rgb24[square];"
  graph+="[strip][square]overlay=x=n*40:y=0:format=rgb,format=rgb24[bottom];"
  graph+="[top][bottom]vstack,format=yuvj420p"
  ffmpeg -nostdin -hide_banner -loglevel error -y -filter_complex "$graph" -frames:v "$fps" \
    -c:v mjpeg -q:v 3 -f nut "$1.part" >&2 && mv "$1.part" "$1"
}

if [ "$mode" = frames ]; then
  command -v ffmpeg >/dev/null || die "ffmpeg is not installed"
  encode_frames "$2" || die "ffmpeg could not encode the test pattern into $2"
  exit 0
fi
[ "$(id -u)" = 0 ] || { say "run as root: it loads a kernel module and writes its sysfs settings"; exit 77; }

# The node whose card name is ours, from sysfs (v4l2loopback names the video device after card_label).
find_node() {
  local d name
  for d in /sys/class/video4linux/video*; do
    read -r name 2>/dev/null < "$d/name" || continue
    [ "$name" = "$label" ] && { echo "/dev/${d##*/}"; return 0; }
  done
  return 1
}

# The pid of the running feed, if any: a pid file whose process is still our ffmpeg.
feed_pid() {
  local pid comm
  read -r pid 2>/dev/null < "$pidfile" || return 1
  [[ $pid =~ ^[0-9]+$ ]] && read -r comm 2>/dev/null < "/proc/$pid/comm" && [ "$comm" = ffmpeg ] && echo "$pid"
}

stop_feed() {
  local pid
  if pid=$(feed_pid); then
    kill -TERM "$pid" 2>/dev/null || true
    # Not our child, so `wait` cannot see it: poll its /proc entry, bounded, then force.
    for _ in $(seq 50); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
    [ -d "/proc/$pid" ] && kill -KILL "$pid" 2>/dev/null
  fi
  rm -f "$pidfile"
}

# True when the node is a capture device whose one and only mode is MJPG ${width}x${height} @ 30/1,
# as the V4L2 ioctls report it (ENUM_FMT, ENUM_FRAMESIZES, ENUM_FRAMEINTERVALS) — what a
# webcam-only-MJPEG looks like to SwiftCam and to GStreamer's v4l2src.
offers_only_mjpeg() {
  local out listing
  # The whole listing, compared as a whole: one format, one size, one interval, nothing else.
  printf -v listing '%s\n\t%s\n\n\t%s\n\t\t%s\n\t\t\t%s' 'ioctl: VIDIOC_ENUM_FMT' 'Type: Video Capture' \
    "[0]: 'MJPG' (Motion-JPEG, compressed)" "Size: Discrete ${width}x${height}" 'Interval: Discrete 0.033s (30.000 fps)'
  out=$(v4l2-ctl -d "$1" --info --list-formats-ext 2>/dev/null) || return 1
  [[ $out == *'Device Caps'*'Video Capture'* && $out == *$'\n'"$listing" ]]
}

case "$mode" in
  node)
    node=$(find_node) && feed_pid >/dev/null && offers_only_mjpeg "$node" || exit 1
    echo "$node"; exit 0 ;;
  stop)
    stop_feed; exit 0 ;;
  unload)
    stop_feed
    if [ -d /sys/module/v4l2loopback ]; then
      modprobe -r v4l2loopback || die "cannot remove v4l2loopback (is the node still open?)"
    fi
    exit 0 ;;
esac

# --- start ------------------------------------------------------------------------------------
note "start"
# shellcheck source-path=SCRIPTDIR source=debian-packages.sh
. "${BASH_SOURCE[0]%/*}/debian-packages.sh"
# Asking dpkg costs a second a package under TCG: only when a tool is not there.
if ! command -v ffmpeg >/dev/null || ! command -v v4l2-ctl >/dev/null || ! command -v modprobe >/dev/null; then
  install_missing kmod v4l-utils ffmpeg
fi
mkdir -p "$state"

if node=$(find_node) && feed_pid >/dev/null && offers_only_mjpeg "$node"; then
  echo "$node"; exit 0
fi

# A stale feed (a pid file, but the node does not offer the mode) is restarted, not trusted.
stop_feed

# v4l2loopback 0.12.7 marks only a streaming (VIDIOC_STREAMON) opener as its writer, so when
# ffmpeg, which uses write(), exits, the node keeps saying "no writer wanted": with exclusive_caps
# it announces neither output nor capture, and a new ffmpeg's VIDIOC_G_FMT fails. Only a reload
# of the module clears that, which needs the node closed by everyone.
if [ -d /sys/module/v4l2loopback ] && node=$(find_node) \
   && ! [[ $(v4l2-ctl -d "$node" --info 2>/dev/null) == *'Device Caps'*'Video Output'* ]]; then
  note "reloading v4l2loopback: $node is left without a writer by the last feed"
  modprobe -r v4l2loopback \
    || die "$node needs v4l2loopback reloaded before it can be fed again, and it is still open: close it first"
fi

if [ ! -d /sys/module/v4l2loopback ]; then
  # exclusive_caps: once a writer feeds it, the node says "capture" only, not also "output", as a
  # webcam does (programs that look for cameras by their capabilities, Chrome's among them, skip
  # a node that says both).
  load() { modprobe v4l2loopback devices=1 "video_nr=$video_nr" "card_label=\"$label\"" exclusive_caps=1; }
  # No module: the package may be missing (installing it builds it for the running kernel).
  load >&2 2>/dev/null || { install_missing v4l2loopback-dkms && load >&2; } \
    || die "cannot load v4l2loopback for kernel $(uname -r) (v4l2loopback-dkms builds it only where that kernel's headers are installed; in the VM, scripts/vivid-vm.sh builds it)"
fi
node=$(find_node) || die "v4l2loopback is loaded without a device named '$label': remove it first (modprobe -r v4l2loopback)"
sysfs=/sys/class/video4linux/${node#/dev/}
note "module loaded: $node"

# ffmpeg's v4l2 output sets only the format (VIDIOC_S_FMT); the frame interval the node reports
# is v4l2loopback's own, which a reader's VIDIOC_S_PARM may have changed since the module loaded.
# Writing "@30/1" to the sysfs `format` attribute (what v4l2loopback-ctl set-fps does) sets it.
echo "@$fps/1" > "$sysfs/format" || die "cannot set $fps fps on $node through $sysfs/format"

if [ ! -s "$frames" ]; then
  note "encoding the frames"
  encode_frames "$frames" || die "ffmpeg could not encode the test pattern into $frames"
fi

# -re paces the looped stream by its timestamps; -c:v copy writes each JPEG as it is, one write() per
# frame, which v4l2loopback hands to readers as one buffer. setsid and the redirections detach it:
# it must not hold the caller's stdout open (the caller reads the node from it) nor die with it.
: > "$log"
setsid ffmpeg -nostdin -hide_banner -loglevel warning -re -stream_loop -1 -i "$frames" \
  -c:v copy -f v4l2 "$node" < /dev/null >> "$log" 2>&1 &
feed=$!
echo "$feed" > "$pidfile"
note "ffmpeg started (pid $feed) looping $frames"
# Alive and not a zombie; its name may still be bash's for a moment, before the exec.
running() { local _p _c state; read -r _p _c state _ 2>/dev/null < "/proc/$feed/stat" && [ "$state" != Z ]; }

# The node becomes a capture device with the format once ffmpeg's first frame is written; sysfs
# `format` (empty until then) is the cheap thing to poll, the ioctls are then checked once.
deadline=$(( SECONDS + timeout_s ))
while :; do
  if ! running; then
    say "ffmpeg stopped before $node offered MJPG ${width}x${height}@$fps:"; sed 's/^/  ffmpeg: /' "$log" >&2
    rm -f "$pidfile"; exit 1
  fi
  format=''; read -r format 2>/dev/null < "$sysfs/format" || true
  if [ "$format" = "MJPG:${width}x${height}@$fps" ]; then
    note "first frame written"
    offers_only_mjpeg "$node" && break
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    say "$node did not offer only MJPG ${width}x${height}@$fps within ${timeout_s}s; it reports:"
    v4l2-ctl -d "$node" --info --list-formats-ext 2>&1 | sed 's/^/  /' >&2 || true
    sed 's/^/  ffmpeg: /' "$log" >&2
    stop_feed; exit 1
  fi
  sleep 0.1
done
note "ready: $node offers only MJPG ${width}x${height}@$fps"
echo "$node"
