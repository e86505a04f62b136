#!/usr/bin/env bash
# package-check.sh - installs the Debian package where no Swift toolchain is, and uses it as a user would.
#
#   scripts/package-check.sh [--keep] [DEB]   # as root, in a disposable machine (DEB: the one `make package` built)
#
# `make test-package` and scripts/test-hardware.sh run it in the vivid VM booted with systemd as init.
#
# /opt/swift (the toolchain) is hidden under an empty read-only tmpfs in a private mount namespace, then:
# `dpkg -i DEB` (its Depends must already be met: Debian's GStreamer packages), the version SwiftFilterElement
# carries in the package, `gst-inspect-1.0 swiftfilter` and `gst-launch-1.0 videotestsrc ! swiftfilter
# chain=sepia ! …` with no GST_* variable set, `swiftcam --version`, the installed configs found from a folder
# without pipelines/, `swiftcam run demo` writing its stills, the camera page served from the installed
# files; where systemd is PID 1, the swiftcam@ unit (scripts/service-check.sh: READY after the first frame,
# the watchdog restarting a stalled source, reload, a stop finalizing a recording); then `dpkg -r` (the plugin is
# gone, the edited conffiles stay) and `dpkg -P`. --keep leaves the package installed and skips those two (each
# dpkg run reads the whole package database: a minute in the VM).
# Prints `ok package: …` per check and `FAIL package: …` for each failure; exit 0 only when all passed.
set -u
service_check=$(dirname "$(readlink -f "$0")")/service-check.sh
header=Sources/CFilterPlugin/include/SwiftCamVersion.h
version=$(sed -n 's/^#define SWIFTCAM_VERSION "\(.*\)"$/\1/p' "$header" 2>/dev/null)
[ -n "$version" ] || { echo "package-check: no SWIFTCAM_VERSION in $header (run from the repository root)" >&2; exit 2; }
keep=0
if [ "${1:-}" = --keep ]; then keep=1; shift; fi
if [ "${SWIFTCAM_PACKAGE_NAMESPACE:-}" != 1 ]; then
  deb=${1:-.build/package/swiftcam_${version}_$(dpkg --print-architecture).deb}
  [ -f "$deb" ] || { echo "usage: $0 [DEB] (as root); $deb does not exist: make package" >&2; exit 2; }
  [ "$(id -u)" = 0 ] || { echo "package-check: dpkg -i needs root" >&2; exit 2; }
  deb=$(readlink -f "$deb")
  # The mask must not outlive the check: everything after it runs in a mount namespace of its own.
  flags=(); [ "$keep" = 1 ] && flags=(--keep)
  exec env SWIFTCAM_PACKAGE_NAMESPACE=1 unshare --mount --propagation private bash "$0" "${flags[@]}" "$deb"
fi
deb=$1
status=0
# Each line says how long the check took: under emulation the VM's figures are the ones to watch.
ok() { echo "ok package [${SECONDS}s]: $*"; }
fail() { echo "FAIL package: $*"; status=1; }
# A user's shell: no GST_PLUGIN_PATH, GST_REGISTRY, LD_LIBRARY_PATH or toolchain on PATH.
user=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8)

if [ -d /opt/swift ]; then
  mount -t tmpfs -o ro,size=4k,mode=755 swift-hidden /opt/swift || { echo "FAIL package: cannot mask /opt/swift"; exit 1; }
fi
if [ -e /opt/swift/usr/bin/swift ] || "${user[@]}" sh -c 'command -v swift' >/dev/null || ldconfig -p | grep -q libswiftCore; then
  echo "FAIL package: a Swift toolchain is still visible"; exit 1
fi
ok "no Swift toolchain: /opt/swift masked, no swift on PATH, no libswiftCore known to ldconfig"

if ! log=$(DEBIAN_FRONTEND=noninteractive dpkg -i "$deb" 2>&1); then
  printf '%s\n' "$log" | tail -n 15
  echo "FAIL package: dpkg -i ${deb##*/}"; exit 1
fi
installed=$(dpkg-query -W -f='${Status} ${Version}' swiftcam)
[ "$installed" = "install ok installed $version" ] && ok "dpkg -i ${deb##*/}: $installed" \
  || fail "dpkg -i: the package is '$installed', expected installed $version"
conffiles=$(dpkg-query -W -f='${Conffiles}\n' swiftcam)
grep -q '^ /etc/swiftcam/pipelines/demo.json ' <<<"$conffiles" && ok "the configs in /etc/swiftcam/pipelines are conffiles" \
  || fail "/etc/swiftcam/pipelines/demo.json is not a conffile: $conffiles"

plugin=$(pkg-config --variable=pluginsdir gstreamer-1.0 2>/dev/null || echo "/usr/lib/$(gcc -dumpmachine 2>/dev/null)/gstreamer-1.0")/libgstswiftfilter.so
# Both carry the Swift runtime inside them: no Swift library is loaded, none is installed.
for f in "$(readlink -f /usr/bin/swiftcam)" "$plugin"; do
  libs=$(ldd "$f" 2>&1)
  if grep -q 'not found' <<<"$libs"; then fail "$f: $(grep 'not found' <<<"$libs" | tr -s ' \t' ' ' | head -3)"
  elif grep -E 'libswift|Foundation|libdispatch' <<<"$libs" >/dev/null; then fail "$f loads a Swift library: $(grep -E 'libswift|Foundation|libdispatch' <<<"$libs" | head -2)"
  else ok "ldd $f: every library found, the Swift runtime linked in (no Swift library loaded)"; fi
done
if ls /usr/lib/swiftcam/*.so* >/dev/null 2>&1; then fail "the package installs libraries in /usr/lib/swiftcam: $(ls /usr/lib/swiftcam/*.so* | head -3)"; fi

if inspect=$("${user[@]}" gst-inspect-1.0 swiftfilter 2>&1); then
  # GStreamer may name the folder by another path to it (/lib is /usr/lib on a merged-/usr system).
  loaded=$(sed -n 's/^ *Filename *//p' <<<"$inspect")
  [ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$(readlink -f "$plugin")" ] \
    || fail "gst-inspect-1.0 swiftfilter loads '$loaded', not $plugin"
  grep -Eq "^ +Version +$version\$" <<<"$inspect" && ok "gst-inspect-1.0 swiftfilter: $plugin, version $version" \
    || fail "gst-inspect-1.0 swiftfilter shows $(grep -E '^ +Version' <<<"$inspect" | tr -s ' '), expected $version"
else
  fail "gst-inspect-1.0 swiftfilter: $(tail -n 1 <<<"$inspect")"
fi

scratch=$(mktemp -d)
if "${user[@]}" gst-launch-1.0 -q videotestsrc num-buffers=30 ! video/x-raw,width=320,height=240 ! swiftfilter chain=sepia \
     ! jpegenc ! multifilesink location="$scratch/frame-%02d.jpg" > "$scratch/launch.log" 2>&1; then
  frames=$(find "$scratch" -name 'frame-*.jpg' | wc -l)
  [ "$frames" -eq 30 ] && ok "gst-launch-1.0 videotestsrc num-buffers=30 ! swiftfilter chain=sepia ! …: 30 frames" \
    || fail "gst-launch-1.0 … swiftfilter chain=sepia wrote $frames frames, expected 30"
else
  fail "gst-launch-1.0 … ! swiftfilter chain=sepia ! …: $(tail -n 1 "$scratch/launch.log")"
fi

line=$("${user[@]}" swiftcam --version 2>&1)
[[ $line == "swiftcam $version (GStreamer "* ]] && ok "swiftcam --version: $line" || fail "swiftcam --version: '$line'"

# From a folder without pipelines/: the installed configs, the stills and the page.
mkdir "$scratch/home"
cd "$scratch/home" || exit 1
list=$("${user[@]}" swiftcam list 2>&1)
grep -q '^demo' <<<"$list" && ok "swiftcam list finds the configs in /etc/swiftcam/pipelines" \
  || fail "swiftcam list from a folder without pipelines/: $list"
# The page's address is printed once the server listens and a line per still: fetch the page at the first,
# stop the host with SIGTERM (as systemd would) at the first still, then look at what it left.
mkfifo "$scratch/run.out"
# Small frames: `make test` installs its debug build, whose filters run many times slower than the release's.
"${user[@]}" swiftcam run demo --no-control --http 127.0.0.1:0 --duration 3600 --set caps.width=160 --set caps.height=120 \
  > "$scratch/run.out" 2> "$scratch/run.err" &
run_pid=$!
url='' page='' still=''
while IFS= read -r out; do
  printf '%s\n' "$out" >> "$scratch/run.log"
  if [ -z "$url" ] && [[ $out =~ ^camera\ screen\ (http://127\.0\.0\.1:[0-9]+/[^ ]*) ]]; then
    url=${BASH_REMATCH[1]}
    page=$(curl -sS --max-time 60 "$url" 2>&1)
  elif [ -z "$still" ] && [[ $out =~ ^still\ (.+)$ ]]; then
    still=${BASH_REMATCH[1]}
    kill -TERM "$run_pid" 2>/dev/null
  fi
done < "$scratch/run.out"
wait "$run_pid"; rc=$?
if [ "$rc" -ne 0 ]; then fail "swiftcam run demo (installed config) exited $rc: $(tail -n 2 "$scratch/run.err")"
elif [ -z "$still" ]; then fail "swiftcam run demo wrote no still: $(tail -n 2 "$scratch/run.log")"
elif ! gst-launch-1.0 -q filesrc location="$still" ! jpegdec ! fakesink > /dev/null 2>&1; then fail "the still $still does not decode"
else ok "swiftcam run demo (installed config, from a folder without pipelines/): a decodable still $still, exit 0 on SIGTERM"; fi
if [ -z "$url" ]; then fail "swiftcam run demo --http printed no address: $(head -n 3 "$scratch/run.log")"
elif grep -qi '<html' <<<"$page"; then ok "the camera page from the installed files (/usr/lib/swiftcam/web): $url"
else fail "GET $url: $(head -c 200 <<<"$page")"; fi
cd / || exit 1
if [ "$(ps -p 1 -o comm=)" = systemd ]; then
  bash "$service_check" || status=1
else
  echo "package: PID 1 is $(ps -p 1 -o comm=), not systemd: the swiftcam@ unit is left unchecked"
fi
if [ "$keep" = 1 ]; then
  rm -rf "$scratch"
  exit $status
fi

echo '{ "edited": true }' > /etc/swiftcam/pipelines/demo.json
dpkg -r swiftcam > "$scratch/remove.log" 2>&1 || fail "dpkg -r swiftcam: $(tail -n 1 "$scratch/remove.log")"
if "${user[@]}" gst-inspect-1.0 swiftfilter > /dev/null 2>&1 || [ -e /usr/bin/swiftcam ] || [ -e /usr/lib/swiftcam ]; then
  fail "dpkg -r left swiftcam or the plugin behind"
elif ! grep -q edited /etc/swiftcam/pipelines/demo.json; then fail "dpkg -r did not keep the edited conffile"
else ok "dpkg -r: the command and the plugin are gone, the edited config stays"; fi
dpkg -P swiftcam > /dev/null 2>&1
[ ! -e /etc/swiftcam ] && ok "dpkg -P removes /etc/swiftcam" || fail "dpkg -P left $(find /etc/swiftcam | head -3)"
rm -rf "$scratch"
exit $status
