#!/usr/bin/env bash
# test-hardware.sh - run SwiftCam's real-driver tests against the kernel's vivid camera in a VM.
#
#   scripts/test-hardware.sh            # from the repository root: every real-driver suite
#   scripts/test-hardware.sh faults     # only the fault matrix (one VM boot, ~3 min)
#
# Builds the test bundle on the host (`swift build --build-tests`), then boots the vivid VM
# (scripts/vivid-vm.sh, which installs QEMU and a kernel when missing) and, inside it, runs the
# already-built Swift Testing binary:
#   1. as root: `HardwareTests` (controls vs `v4l2-ctl --list-ctrls`, set + `--get-ctrl` read-back, every
#      control type, torch/zoom/focus outcome lines, errno mapping, busy holder) and `HardwareSessionTests`
#      (v4l2src → swiftfilter in YUYV/NV12/BGRx at two sizes, `swiftcam run preview --frames 60` + a decoding
#      snapshot, `swiftcam controls --json` = v4l2-ctl, `ctl` colour/flip read back, torch/zoom/focus lines,
#      spot metering on a dark scene, recovery from disconnect + module reload and
#      from a fatal streaming error with a recording across it) and `HardwareFaultTests`, the fault matrix
#      (disconnect, driver reload, vivid's STREAMON/DQBUF/QBUF errors, 20 % and 50 % dropped buffers, full disk
#      while recording and while taking a still, an unwritable still directory, kill -9 and SIGTERM while
#      recording: what is reported, which files survive, recovery and its time), whose rows become a table;
#   2. as nobody (setpriv, no groups): `HardwarePermissionTests` (EACCES → permissionDenied, `unauthorized`) and
#      `HardwarePermissionCLITests` (`run` on the camera exits 77; a mode-000 config: 77 and one line from `show`,
#      `validate` and `run`);
#   3. in a second VM with two cameras (n_devs=2): `HardwareTwoCameraTests` (switch-cameras live, and `show`'s
#      gst-launch line of each camera config played to EOS through /bin/sh on the two cameras), then, with an
#      MJPEG-only webcam beside them (v4l2loopback fed by ffmpeg: scripts/mjpeg-camera.sh), `HardwareMJPEGTests`
#      (every shipped v4l2 config on it with only the device overridden, vivid raw beside it, stills' colours,
#      a recording, `swiftcam init` on both kinds of camera). Unless SWIFTCAM_SKIP_PACKAGE=1, this VM boots Debian's
#      systemd as init (VIVID_INIT=systemd) and ends with the Debian package (`scripts/package.sh`, built on the host
#      first; `make test` packages its debug build): `scripts/package-check.sh --keep` installs it with /opt/swift
#      hidden, uses it as a user would, and runs the swiftcam@ unit under systemd (scripts/service-check.sh).
#   4. last in the first VM, libcamera on the kernel's vimc (scripts/vimc-camera.sh builds it from Debian's kernel source
#      and starts it with udev): `HardwareLibcameraTests` (`devices` lists Sensor B and not vimc's raw nodes, `init`
#      writes a config that runs, a config previews, takes a still with vimc's bars at full range and records a file
#      that decodes; `kill -SEGV` of the source's child process and vimc unbound under libcamera during a recording leave
#      the host running and the recording going on in its next part).
#   scripts/test-hardware.sh cameras    # only the second VM (3.)
#   scripts/test-hardware.sh libcamera  # only the libcamera suite (4.), in a VM of its own without vivid (~2 min)
# SWIFTCAM_HARDWARE_FILTER=REGEX runs only the matching root tests (one VM).
# The fault matrix's measured table is printed at the end and written to .build/fault-matrix.md.
# Exit status: 0 all passed; 1 a test failed; other = build or VM failure (vivid-vm.sh's 124 timeout,
# 125 the VM did not run).
#
# Environment: SWIFTCAM_SKIP_PACKAGE=1 leaves the package and the service out of the second VM (`make test-package`
# alone runs them); SWIFTCAM_PACKAGE_CONFIG=debug packages the debug build (no release build needed);
# SWIFTCAM_SKIP_BUILD=1 reuses the built binary; VIVID_RUN overrides the VM script
# (same interface as scripts/vivid-vm.sh); VIVID_TIMEOUT, VIVID_ACCEL etc. pass through to it.
set -euo pipefail

cd "$(dirname "$0")/.."
mode=${1:-all}
case "$mode" in
  all|cameras) ;;
  faults) SWIFTCAM_HARDWARE_FILTER='CaptureTests\.HardwareFaultTests' ;;
  libcamera) SWIFTCAM_HARDWARE_FILTER='CaptureTests\.HardwareLibcameraTests'; export VIVID_MODPROBE=${VIVID_MODPROBE-} ;;
  *) echo "usage: $0 [all|faults|cameras|libcamera]" >&2; exit 2 ;;
esac
VIVID_RUN=${VIVID_RUN:-scripts/vivid-vm.sh}
[ -f "$VIVID_RUN" ] || { echo "test-hardware: $VIVID_RUN not found" >&2; exit 2; }

if [ "${SWIFTCAM_SKIP_BUILD:-0}" != 1 ]; then
  swift build --build-tests >&2
fi
# The package the second VM installs, built here (SWIFTCAM_PACKAGE_CONFIG: release unless asked for debug; a build
# that is up to date costs only swift build's check).
deb=''
if [ "$mode" != faults ] && [ -z "${SWIFTCAM_HARDWARE_FILTER:-}" ] && [ "${SWIFTCAM_SKIP_PACKAGE:-0}" != 1 ]; then
  deb=$(SWIFTCAM_SKIP_BUILD=0 bash scripts/package.sh) || { echo "test-hardware: scripts/package.sh failed" >&2; exit 2; }
fi
# The fault matrix reads each run's /metrics with Prometheus's own parser, from this venv (the guest sees it read-only).
bash scripts/metrics-venv.sh >/dev/null || { echo "test-hardware: scripts/metrics-venv.sh failed" >&2; exit 2; }
BIN="$(swift build --show-bin-path)/SwiftCamPackageTests.xctest"
[ -x "$BIN" ] || { echo "test-hardware: $BIN missing; run swift build --build-tests" >&2; exit 2; }

# The guest sees this filesystem read-only; it starts in this directory.
read -r -d '' GUEST <<GUEST_EOF || true
set -u
status=0
run_suite() {  # run_suite LABEL FILTER [prefix command…]: fails when a test fails or nothing ran
  label=\$1; filter=\$2; shift 2
  out=\$("\$@" env SWIFTCAM_HARDWARE=1 NO_COLOR=1 "$BIN" --testing-library swift-testing --filter "\$filter" 2>&1)
  rc=\$?
  if [ -n "\${VERBOSE:-}" ]; then printf '%s\n' "\$out"; else
  printf '%s\n' "\$out" | grep -E '^ok |^devices:|^matrix\||✘|Expectation failed|recorded an issue|known issue|skipped|Test run with' || true; fi
  if [ \$rc -ne 0 ]; then echo "FAIL \$label (exit \$rc)"; status=1; return; fi
  if printf '%s\n' "\$out" | grep -q 'skipped'; then echo "FAIL \$label: tests were skipped"; status=1; return; fi
  if ! printf '%s\n' "\$out" | grep -qE 'Test run with [1-9][0-9]* tests? .*passed'; then echo "FAIL \$label: no tests ran"; status=1; return; fi
  echo "PASS \$label"
}
libcamera_suite() {  # vimc started (module, udev), then the suite with its camera's id
  if id=\$(bash scripts/vimc-camera.sh start); then
    echo "libcamera camera: \$id"
    run_suite HardwareLibcameraTests 'CaptureTests\.HardwareLibcameraTests' env SWIFTCAM_VIMC_CAMERA="\$id"
  else
    echo "FAIL HardwareLibcameraTests: vimc did not come up"; status=1
  fi
}
if [ -n "\${ONLY:-}" ] && printf '%s' "\$ONLY" | grep -q Libcamera; then
  libcamera_suite
  exit \$status
fi
echo "== v4l2-ctl --list-ctrls (reference)"
v4l2-ctl -d /dev/video0 --list-ctrls | head -5
if [ -n "\${ONLY:-}" ]; then
  run_suite "\$ONLY" "\$ONLY"
  exit \$status
fi
# One process per suite, one after another: suites in one process run in parallel, and these share one camera.
echo "== HardwareTests as root"
run_suite HardwareTests 'CaptureTests\.HardwareTests'
echo "== HardwareSessionTests as root"
run_suite HardwareSessionTests 'CaptureTests\.HardwareSessionTests'
echo "== HardwareRecoveryTests as root (a process of its own: the driver is unloaded)"
run_suite HardwareRecoveryTests 'CaptureTests\.HardwareRecoveryTests'
echo "== HardwareFaultTests as root (the fault matrix; a process of its own: the driver is unloaded)"
run_suite HardwareFaultTests 'CaptureTests\.HardwareFaultTests'
echo "== HardwarePermission tests as nobody"
ls -l /dev/video0
run_suite HardwarePermissionTests 'CaptureTests\.HardwarePermission' setpriv --reuid=nobody --regid=nogroup --clear-groups
echo "== HardwareLibcameraTests as root (last: vimc joins vivid; the earlier suites' /dev listings stay vivid's)"
libcamera_suite
exit \$status
GUEST_EOF

read -r -d '' TWO <<TWO_EOF || true
$(printf '%s\n' "$GUEST" | sed -n '1,/^echo "== v4l2-ctl/p' | sed '$d')
echo "== HardwareTwoCameraTests (n_devs=2)"
v4l2-ctl --list-devices
run_suite HardwareTwoCameraTests 'CaptureTests\.HardwareTwoCameraTests'
echo "== HardwareMJPEGTests (an MJPEG-only webcam beside vivid)"
if mjpeg=\$(bash scripts/mjpeg-camera.sh start); then
  v4l2-ctl -d "\$mjpeg" --list-formats-ext | grep -E "'|Size|Interval"
  export SWIFTCAM_MJPEG_DEVICE=\$mjpeg
  run_suite HardwareMJPEGTests 'CaptureTests\.HardwareMJPEGTests'
  bash scripts/mjpeg-camera.sh stop
else
  echo "FAIL HardwareMJPEGTests: the MJPEG camera did not come up"; status=1
fi
if [ -n "$deb" ]; then
  echo "== the Debian package, /opt/swift hidden, and its swiftcam@ unit (systemd is PID 1: \$(ps -p 1 -o comm=))"
  if bash scripts/package-check.sh --keep "$deb"; then echo "PASS package"; else echo "FAIL package"; status=1; fi
fi
exit \$status
TWO_EOF

# The matrix rows (`matrix|N|fault|injected|reported|files|recovery|time`) as a Markdown table, in case order.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
table() {
  # Cells escape a '|' of their own as '\|': kept aside while the row is split.
  echo "| Fault | Injected | Reported (stderr · \`stats\` · socket) | Files written before it | Recovery | Time |"
  echo "|---|---|---|---|---|---|"
  grep -a '^matrix|' "$log" | sed 's/\\|/\x01/g' | sort -t'|' -k2,2n \
    | awk -F'|' '{ line = "|"; for (i = 3; i <= NF; i++) line = line " " $i " |"; print line }' | sed 's/\x01/\\|/g'
}
matrix() {
  grep -qa '^matrix|' "$log" || return 0
  mkdir -p .build
  table > .build/fault-matrix.md
  printf '\n== fault matrix (measured; also in .build/fault-matrix.md)\n'
  cat .build/fault-matrix.md
}

if [ -n "${SWIFTCAM_HARDWARE_FILTER:-}" ]; then
  rc=0  # pipefail: the VM's status (tee's is 0)
  bash "$VIVID_RUN" "ONLY='$SWIFTCAM_HARDWARE_FILTER'; VERBOSE='${SWIFTCAM_HARDWARE_VERBOSE:-}'; $GUEST" | tee "$log" || rc=$?
  matrix
  exit $rc
fi
rc=0
if [ "$mode" = all ]; then
  bash "$VIVID_RUN" "$GUEST" | tee "$log" || rc=$?
  matrix
fi
two=0
# Booted with systemd as init when it ends with the package (a service manager's world); busybox otherwise (quicker).
# The package and the service add minutes under emulation on a loaded machine: the safety net grows with them.
VIVID_INIT=${VIVID_INIT:-$([ -n "$deb" ] && echo systemd || echo busybox)} \
  VIVID_TIMEOUT=${VIVID_TIMEOUT:-$([ -n "$deb" ] && echo 1800 || echo 900)} \
  VIVID_MODPROBE="vivid n_devs=2 node_types=0x1,0x1" bash "$VIVID_RUN" "$TWO" || two=$?
[ $rc -ne 0 ] && exit $rc
exit $two
