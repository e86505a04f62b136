#!/usr/bin/env bash
# Installs the Debian packages SwiftCam needs, only those missing; `apt-get update` runs once, only if needed.
set -euo pipefail
packages=(
  pkg-config
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-base-apps
  gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  frei0r-plugins
  gstreamer1.0-plugins-ugly   # x264enc, for H.264 recordings
  python3-pil   # tests decode stills with a decoder other than GStreamer's (PIL)
  libsoup-3.0-dev   # the browser screen's HTTP and WebSocket server (Web)
  libgstreamer-plugins-bad1.0-dev gstreamer1.0-nice   # webrtcbin's headers and its ICE agent (Web)
  libssl-dev   # libcrypto: the ECDSA certificates of the page's WebRTC viewers and of its HTTPS (Web)
  glib-networking   # GLib's TLS backend: the page's HTTPS beyond loopback (Web)
  openssl   # the tests read certificates and speak TLS to the page with a tool that is not ours
  libgstrtspserver-1.0-dev gstreamer1.0-rtsp   # RTSP serving and pushing (Publish)
  chromium chromium-driver   # the browser the Web tests drive, headless
  firefox-esr   # the second browser of the Web tests (no H.264 in its WebRTC: it gets VP8), driven by marionette
  iproute2   # `ip link set lo up` in the Web tests' network namespace
  python3-venv   # the metrics test's venv for PyPI's prometheus-client (Prometheus's own text parser)
  nginx-light libnginx-mod-rtmp   # a real RTMP ingest for the publishing tests (started by them on loopback only)
  ffmpeg   # reads what was pushed back with a tool that is not GStreamer (ffprobe)
  janus   # a real WebRTC server for the publishing tests: the host feeds its streaming plugin (started by them)
)
missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "Installing: ${missing[*]}"
sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update -qq
# No package's service starts as it installs (nginx would listen on port 80): the tests start what they need, on
# loopback in a namespace of their own, and stop it. A policy-rc.d this made is removed afterwards.
made_policy=
if [[ ! -e /usr/sbin/policy-rc.d ]]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee /usr/sbin/policy-rc.d >/dev/null
  "${sudo_cmd[@]}" chmod 755 /usr/sbin/policy-rc.d
  made_policy=1
fi
status=0
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" || status=$?
[[ -z $made_policy ]] || "${sudo_cmd[@]}" rm -f /usr/sbin/policy-rc.d
exit "$status"
