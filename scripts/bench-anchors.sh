#!/usr/bin/env bash
# `make bench-anchors`: SwiftCam's filters beside the best CPU implementations on this machine —
# libyuv (Debian libyuv0, through ctypes), ffmpeg's libavfilter (Debian ffmpeg) and OpenCV
# (opencv-python-headless from PyPI, in a venv under .build) — one thread, 1080p, same content,
# one table of ratios. Installs what is missing first; nothing it installs is committed.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v ffmpeg >/dev/null || need+=(ffmpeg)
[ -e /usr/lib/x86_64-linux-gnu/libyuv.so.0 ] || [ -e /usr/lib/aarch64-linux-gnu/libyuv.so.0 ] || need+=(libyuv0)
command -v python3 >/dev/null || need+=(python3 python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]} (Debian)"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get install -y "${need[@]}" >/dev/null || echo "could not install ${need[*]}; those anchors are skipped"
fi
venv=.build/anchors-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -c "import cv2, numpy" 2>/dev/null \
  || "$venv/bin/pip" install --quiet opencv-python-headless numpy \
  || echo "could not install opencv-python-headless; the OpenCV anchors are skipped"
swift build -c release --product filters-bench >/dev/null
exec "$venv/bin/python" scripts/bench_anchors.py "$@"
