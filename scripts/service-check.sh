#!/usr/bin/env bash
# service-check.sh - the installed package's swiftcam@ unit run by systemd, as a service manager would use it.
#
#   scripts/service-check.sh    # as root, where systemd is PID 1, the package is installed and vivid gives
#                               # /dev/video0 (scripts/package-check.sh calls it in the systemd-booted VM)
#
# Configs written to /etc/swiftcam/pipelines for the check (removed at the end):
#   svc-ready  a test pattern whose first frame reaches the filter 6 s after the graph plays (a queue holds the
#              filter's branch; a second branch lets the graph reach PLAYING, and the host log `running`, at once):
#              systemd logs `Started` (READY=1, which the first filtered frame sends) at least 3 s after the host
#              logged `running` (the graph plays): the unit was `activating` until the first frame.
#   svc-stall  a test pattern with the stall test hook (SWIFTCAM_TEST_STALL_AFTER_FRAMES) and WatchdogSec=3 in a
#              drop-in: frames stop, WATCHDOG=1 stops, systemd logs the watchdog timeout and restarts it (NRestarts).
#   svc-cam    the vivid camera, recording (MJPEG in Matroska): `systemctl reload` after the filter changed in the file
#              sets it on the running graph (the camera opened once: one `camera /dev/video0:` line, the same main
#              PID); a reload of a config with a bad key is refused in one line naming the file and the key, at
#              journald's error priority, and the camera plays on; `systemctl stop` finalizes the recording, which
#              gst-discoverer reads and a decode plays to EOS.
# Every wait is for an event (systemctl's own job waits, a journal line through `journalctl -f`); `timeout` only
# bounds a wait that would otherwise hang. Prints `ok service [Ns]: …` per check and `FAIL service: …` for each
# failure; exit 0 only when all passed.
set -u
status=0
ok() { echo "ok service [${SECONDS}s]: $*"; }
fail() { echo "FAIL service: $*"; status=1; }
[ "$(ps -p 1 -o comm=)" = systemd ] || { echo "FAIL service: PID 1 is $(ps -p 1 -o comm=), not systemd"; exit 1; }
[ -f /lib/systemd/system/swiftcam@.service ] || { echo "FAIL service: the package installed no swiftcam@.service"; exit 1; }
pipelines=/etc/swiftcam/pipelines
dropins=/run/systemd/system/swiftcam@svc-stall.service.d
# The services see no toolchain either (package-check.sh masks /opt/swift in its own mount namespace only).
hide=/run/systemd/system/swiftcam@.service.d
units=(swiftcam@svc-ready.service swiftcam@svc-stall.service swiftcam@svc-cam.service)
cleanup() {
  systemctl stop "${units[@]}" 2>/dev/null
  rm -f "$pipelines"/svc-ready.json "$pipelines"/svc-stall.json "$pipelines"/svc-cam.json
  rm -rf "$dropins" "$hide"
  systemctl daemon-reload
}
trap cleanup EXIT
mkdir -p "$hide"
printf '[Service]\nInaccessiblePaths=-/opt/swift\n' > "$hide/hide-toolchain.conf"
systemctl daemon-reload

prop() { systemctl show -p "$2" --value "swiftcam@$1.service"; }
cursor() { journalctl -n 0 -q --show-cursor | sed -n 's/^-- cursor: //p'; }
# journal_wait NAME CURSOR REGEX: prints the unit's first journal line after CURSOR that matches REGEX (systemd's own
# lines about the unit included); 1 when none came within the safety net.
journal_wait() {
  local line found=1 fd pid
  exec {fd}< <(exec timeout 120 journalctl -f -q -o cat -u "swiftcam@$1.service" --after-cursor "$2")
  pid=$!
  while IFS= read -r -u "$fd" line; do
    if [[ $line =~ $3 ]]; then printf '%s\n' "$line"; found=0; break; fi
  done
  kill "$pid" 2>/dev/null
  exec {fd}<&-
  return $found
}
ctl() { XDG_RUNTIME_DIR=/run swiftcam ctl "$@" 2>&1; }

# GStreamer's registry for the user swiftcam (the unit's XDG_CACHE_HOME), made before the first start from the one this
# machine has: under emulation a scan of every plugin takes minutes, which no start should wait for here.
install -d -o swiftcam -g swiftcam -m 0750 /var/cache/swiftcam /var/cache/swiftcam/gstreamer-1.0
for registry in "/root/.cache/gstreamer-1.0/registry.$(uname -m).bin" "${GST_REGISTRY_1_0:-}"; do
  if [ -f "$registry" ]; then
    install -o swiftcam -g swiftcam -m 0640 "$registry" "/var/cache/swiftcam/gstreamer-1.0/registry.$(uname -m).bin"
    break
  fi
done
runuser -u swiftcam -- env -i PATH=/usr/bin:/bin HOME=/var/lib/swiftcam XDG_CACHE_HOME=/var/cache/swiftcam \
  gst-inspect-1.0 swiftfilter > /dev/null 2>&1 || fail "gst-inspect-1.0 swiftfilter as the user swiftcam"
id swiftcam 2>/dev/null | grep -q '(video)' && ok "the package made the system user swiftcam, in group video" \
  || fail "no system user swiftcam in group video: $(id swiftcam 2>&1)"
verify=$(systemd-analyze verify swiftcam@svc-cam.service 2>&1) && ok "systemd-analyze verify swiftcam@.service: clean" \
  || fail "systemd-analyze verify: $verify"
exposure=$(systemd-analyze security swiftcam@svc-cam.service 2>&1 | sed -n 's/.*Overall exposure level for [^:]*: //p')
[ -n "$exposure" ] && ok "systemd-analyze security: exposure $exposure" || fail "systemd-analyze security printed no exposure level"

# --- READY=1 only after the first filtered frame
cat > "$pipelines/svc-ready.json" <<'JSON'
{ "description": "service check: the first frame reaches the filter 6 s after the graph plays",
  "launch": "videotestsrc name=source0 is-live=true pattern=ball ! video/x-raw,width=160,height=120,framerate=15/1 ! tee name=t ! queue ! fakesink sync=false t. ! queue min-threshold-time=6000000000 max-size-time=0 max-size-buffers=0 max-size-bytes=0 ! swiftfilter chain=sepia ! fakesink sync=false async=false" }
JSON
start=$(cursor)
if ! systemctl start swiftcam@svc-ready; then  # waits for the start job: READY=1, or its failure
  fail "swiftcam@svc-ready did not start: $(journalctl -q -o cat -u swiftcam@svc-ready --after-cursor "$start" | tail -n 3)"
else
  # The journal's monotonic times: the host's `running` line (the graph plays), then systemd's `Started` (READY=1).
  lines=$(journalctl -q -o short-monotonic -u swiftcam@svc-ready.service --after-cursor "$start")
  at() { grep -m1 "$1" <<<"$lines" | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p'; }
  running=$(at 'running svc-ready') started=$(at 'Started swiftcam@svc-ready')
  gap=$(awk -v a="$running" -v b="$started" 'BEGIN { if (a == "" || b == "") print "none"; else printf "%.1f", b - a }')
  state=$(prop svc-ready ActiveState) text=$(prop svc-ready StatusText)
  if [ "$gap" != none ] && awk -v g="$gap" 'BEGIN { exit !(g >= 3) }' && [ "$state" = active ]; then
    ok "swiftcam@svc-ready: activating for ${gap}s after the host logged 'running' (its first frame held 6 s), then active with READY=1 (status: $text)"
  else
    fail "swiftcam@svc-ready: 'running' at ${running:-?}, 'Started' at ${started:-?} (gap $gap, expected ≥ 3 s), state $state"
  fi
fi
systemctl stop swiftcam@svc-ready

# --- a stalled source: the watchdog restarts the service
cat > "$pipelines/svc-stall.json" <<'JSON'
{ "description": "service check: frames stop after 30 (the test hook)",
  "sources": [{ "kind": "test", "pattern": "ball" }],
  "caps": { "width": 160, "height": 120, "framerate": "15/1" }, "filter": "sepia", "preview": "none" }
JSON
mkdir -p "$dropins"
printf '[Service]\nEnvironment=SWIFTCAM_TEST_STALL_AFTER_FRAMES=30\nWatchdogSec=3\nRestartSec=1\n' > "$dropins/stall.conf"
systemctl daemon-reload
start=$(cursor)
if ! systemctl start swiftcam@svc-stall; then
  fail "swiftcam@svc-stall did not start: $(journalctl -q -o cat -u swiftcam@svc-stall --after-cursor "$start" | tail -n 3)"
elif ! why=$(journal_wait svc-stall "$start" 'Watchdog timeout'); then
  fail "swiftcam@svc-stall: no watchdog timeout after the stall: $(journalctl -q -o cat -u swiftcam@svc-stall --after-cursor "$start" | tail -n 3)"
elif ! journal_wait svc-stall "$start" 'Scheduled restart job' > /dev/null; then
  fail "swiftcam@svc-stall: not restarted after '$why'"
else
  restarts=$(prop svc-stall NRestarts)
  stalled=$(journalctl -q -o cat -u swiftcam@svc-stall --after-cursor "$start" | grep -m1 '^test hook:')
  [ "${restarts:-0}" -ge 1 ] && ok "swiftcam@svc-stall: '$stalled' → '$why' → restarted (NRestarts=$restarts)" \
    || fail "swiftcam@svc-stall: NRestarts=$restarts after '$why'"
fi
systemctl stop swiftcam@svc-stall
rm -rf "$dropins"
systemctl daemon-reload

# --- reload on the camera, a refused reload, and the stop that finalizes a recording
cam_config() {
  printf '{ "description": "service check: vivid, recording",\n'
  printf '  "sources": [{ "kind": "v4l2", "device": "/dev/video0" }],\n'
  printf '  "caps": { "width": %s, "height": 180, "framerate": "15/1" }, "filter": "%s", "preview": "none",\n' "$1" "$2"
  printf '  "record": { "directory": "recordings", "encoder": "mjpeg", "container": "matroska" } }\n'
}
if [ ! -e /dev/video0 ]; then
  fail "no /dev/video0 (vivid): the camera checks need it"
  exit $status
fi
cam_config 320 sepia > "$pipelines/svc-cam.json"
start=$(cursor)
if ! systemctl start swiftcam@svc-cam; then
  fail "swiftcam@svc-cam did not start: $(journalctl -q -o cat -u swiftcam@svc-cam --after-cursor "$start" | tail -n 3)"
  exit $status
fi
pid=$(prop svc-cam MainPID)
recording=$(ctl svc-cam record start)
[[ $recording == "ok recording "* ]] && ok "ctl svc-cam record start (socket in /run/swiftcam): $recording" || fail "record start: $recording"
cam_config 320 'vignette radius=2' > "$pipelines/svc-cam.json"
mark=$(cursor)
systemctl reload swiftcam@svc-cam
said=$(journal_wait svc-cam "$mark" '^reload')
opens=$(journalctl -q -o cat -u swiftcam@svc-cam --after-cursor "$start" | grep -c '^camera /dev/video0:')
chain=$(ctl svc-cam stats)
if [[ $said == *vignette*"on the running graph"* ]] && [ "$opens" = 1 ] && [ "$(prop svc-cam MainPID)" = "$pid" ] \
   && [[ $chain == *'chain "vignette radius=2"'* ]]; then
  ok "systemctl reload: '$said'; the camera opened once, the same process ($pid)"
else
  fail "systemctl reload: '$said'; camera opened $opens times; PID $pid → $(prop svc-cam MainPID); stats: ${chain:0:160}"
fi
cam_config -5 sepia > "$pipelines/svc-cam.json"
mark=$(cursor)
systemctl reload swiftcam@svc-cam
said=$(journal_wait svc-cam "$mark" '^(swiftcam: )?reload')
# priority CURSOR TEXT: the PRIORITY the journal stored for the unit's first line after CURSOR containing TEXT.
priority() {
  journalctl -q -o json -u swiftcam@svc-cam.service --after-cursor "$1" | python3 -c '
import json, sys
for line in sys.stdin:
    entry = json.loads(line)
    message = entry.get("MESSAGE") or ""
    if isinstance(message, list):
        message = bytes(message).decode("utf-8", "replace")
    if sys.argv[1] in message:
        print(entry.get("PRIORITY", ""))
        break' "$2"
}
as_error=$(priority "$mark" 'reload refused')
info=$(priority "$start" 'running svc-cam')
if [[ $said == *"reload refused"*"$pipelines/svc-cam.json"*"caps.width"* ]] && [ "$as_error" = 3 ] && [ "$info" = 6 ] \
   && [[ $(ctl svc-cam wait 10) == "ok "*" frames" ]]; then
  ok "a bad config on reload: '$said' (journal priority 3, err; 'running' at 6, info), the camera plays on"
else
  fail "a bad config on reload: '$said'; its priority $as_error (expected 3, err); 'running' at $info (expected 6, info)"
  # What the journal stored for the line, and what the host was told its stream is.
  journalctl -q -o export -u swiftcam@svc-cam.service --after-cursor "$mark" | grep -aE '^(PRIORITY|MESSAGE|SYSLOG_IDENTIFIER)=' | tail -n 6
  tr '\0' '\n' < "/proc/$(prop svc-cam MainPID)/environ" | grep -a JOURNAL_STREAM
  ls -lL /proc/"$(prop svc-cam MainPID)"/fd/2 2>&1 | head -2
fi
ctl svc-cam wait 25 > /dev/null
systemctl stop swiftcam@svc-cam
file=$(journalctl -q -o cat -u swiftcam@svc-cam --after-cursor "$start" | sed -n 's/^recorded //p' | tail -n 1)
[[ $file == /* ]] || file=/var/lib/swiftcam/$file
result=$(prop svc-cam Result)
duration=$(gst-discoverer-1.0 "$file" 2>/dev/null | sed -n 's/^ *Duration: //p')
if [ "$result" = success ] && [ -f "$file" ] && [ -n "$duration" ] \
   && gst-launch-1.0 -q filesrc location="$file" ! matroskademux ! jpegdec ! fakesink > /dev/null 2>&1; then
  ok "systemctl stop finalized $file (duration $duration; decodes to EOS); the unit ended with $result"
else
  fail "systemctl stop: result $result, recording '$file' (duration '$duration'): $(journalctl -q -o cat -u swiftcam@svc-cam --after-cursor "$start" | tail -n 3)"
fi
exit $status
