#!/usr/bin/env bash
# soak.sh - `make soak`: one `swiftcam run` (release build) for SOAK_MINUTES (default 30) with a still every
# second, a filter change every 100 ms and a recording started and stopped every minute; prints RSS every
# minute and fails if RSS grows more than 5 MB after the first 5 minutes, if any still or recording is missing
# or unreadable, or if the source frame rate falls below 95 %. The driver is scripts/soak.py.
#
#   make soak                      # 30 minutes
#   SOAK_MINUTES=3 make soak       # a quick check (the warm-up shrinks to half the run)
#
# Environment: SOAK_MINUTES; SOAK_CONFIG (a config name or .json file; default: a 640x360@30 NV12 test
# pattern through a filter, JPEG stills, VP8/Matroska recordings — no camera needed); SOAK_DIR (where stills,
# recordings and the session's output go; default .build/soak/DATE); SOAK_RSS_MB (default 5); SOAK_SET (more
# --set overrides, space-separated, e.g. SOAK_SET="record.encoder=mjpeg").
# Installs Debian's python3-pil (to decode every still) when missing. Not part of `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."

swiftcam=${SOAK_SWIFTCAM:-.build/release/swiftcam}
[ -x "$swiftcam" ] || { echo "soak: $swiftcam missing; run 'make release' (make soak does)" >&2; exit 2; }
python=/usr/bin/python3
if ! "$python" -c 'import PIL' 2>/dev/null; then
  echo "soak: installing python3-pil (decodes the stills)"
  sudo=(); [ "$(id -u)" = 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends python3-pil
fi

dir=${SOAK_DIR:-.build/soak/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)
config=${SOAK_CONFIG:-}
if [ -z "$config" ]; then
  config=$dir/soak.json
  cat > "$config" <<'JSON'
{
  "description": "soak: test pattern through a changing filter, a still every second, a recording every minute",
  "sources": [{ "kind": "test", "pattern": "ball" }],
  "caps": { "width": 640, "height": 360, "framerate": "30/1", "format": "NV12" },
  "filter": "sepia",
  "preview": "none",
  "still": { "format": "jpeg", "quality": 90 },
  "record": { "container": "matroska", "encoder": "vp8" }
}
JSON
fi
# The config's frame rate, which the source must keep.
file=$config
case "$file" in *.json|*/*) ;; *) file=pipelines/$file.json ;; esac
fps=$("$python" -c 'import json, sys; n, d = (json.load(open(sys.argv[1]))["caps"].get("framerate", "30/1") + "/1").split("/")[:2]; print(int(n) / int(d))' "$file")

SOAK_SWIFTCAM=$swiftcam SOAK_CONFIG=$config SOAK_DIR=$dir SOAK_FPS=$fps SOAK_MINUTES=${SOAK_MINUTES:-30} \
  exec "$python" scripts/soak.py
