#!/usr/bin/env bash
# vivid-vm.sh - run a command in a disposable QEMU virtual machine whose Linux kernel has the
# `vivid` V4L2 test driver loaded: /dev/video0 is a real V4L2 camera (ioctls, formats, controls,
# the driver's own fault injection), so SwiftCam's hardware tests need no camera on the host.
#
#   scripts/vivid-vm.sh 'v4l2-ctl --list-devices'          # one argument: a bash script
#   scripts/vivid-vm.sh v4l2-ctl -d /dev/video0 --all      # several: the exact command line
#   VIVID_MODPROBE="vivid n_devs=2 node_types=0x1,0x1" scripts/vivid-vm.sh 'CMD'   # two cameras
#
# The guest runs Debian's own kernel (package linux-image-amd64) from an initramfs made here with
# busybox-static. Its root filesystem is this machine's / shared over 9p read-only, under an
# overlay whose writes stay in the guest's RAM and vanish with it, so every host file (the built
# tests, v4l2-ctl, GStreamer) is there at its host path. The command runs as root, in the host's
# current directory, with stdin from /dev/null; its stdout and stderr arrive here as they come.
# One folder is shared writable: $VIVID_OUT on the host is /tmp/out in the guest (and is also
# mounted at its host path there).
# Missing Debian packages are installed first (`apt-get update`, then `apt-get install`; root), and
# the v4l2loopback module is built (DKMS) for the guest's kernel: in the guest,
# `bash scripts/mjpeg-camera.sh start` adds an MJPEG-only webcam beside vivid. The kernel's vimc is
# built from Debian's linux-source-6.1 for the guest's kernel too (scripts/vimc-camera.sh, cached):
# in the guest, `bash scripts/vimc-camera.sh start` adds a libcamera camera (`cam -l`: Sensor B).
# VIVID_INIT=systemd boots Debian's systemd (this machine's /lib/systemd/systemd) as PID 1 over the same
# root instead of running the command from the initramfs: the command is then a unit of its own
# (vivid-vm-command.service, in vivid-vm.target after basic.target), so it can `systemctl start` units,
# read `journalctl` and see what systemd does with them; its output, /tmp/out and the exit status come
# back exactly as without systemd.
# KVM is used when /dev/kvm can run a stock kernel, else QEMU's software emulation (TCG): a boot
# then takes ~10 s and the guest runs several times slower than the host.
#
# Exit status: the command's; 124 the VM timed out; 125 the VM or guest setup failed; 2 usage.
#
# Environment:
#   VIVID_MODPROBE  modprobe arguments run before the command (default "vivid"; "" loads nothing)
#   VIVID_TIMEOUT   seconds before the VM is killed (default 900)
#   VIVID_OUT       the shared writable folder (default ${TMPDIR:-/tmp}/swiftcam-vivid-out)
#   VIVID_CACHE     initramfs, kernel and GStreamer registry cache (default ${TMPDIR:-/tmp}/swiftcam-vivid-cache)
#   VIVID_ACCEL     auto | kvm | tcg (default auto)
#   VIVID_KERNEL    kernel release to boot (default: the newest in /boot that has vivid.ko)
#   VIVID_MEM       guest RAM in MiB (default 1536)     VIVID_SMP  guest CPUs (default: host's, at most 4)
#   VIVID_APPEND    extra kernel command-line arguments
#   VIVID_INIT      busybox (default: the initramfs runs the command) | systemd (systemd as init runs it)
#   VIVID_VERBOSE=1 print the guest's console and timings on stderr
set -euo pipefail

prog=vivid-vm
say() { printf '%s: %s\n' "$prog" "$*" >&2; }
die() { say "$*"; exit 125; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

[ $# -gt 0 ] || usage
case "$1" in -h|--help) usage ;; esac

modprobe_args=${VIVID_MODPROBE-vivid}
init_kind=${VIVID_INIT:-busybox}
case "$init_kind" in
  busybox) ;;
  systemd) [ -x /lib/systemd/systemd ] || { say "VIVID_INIT=systemd needs /lib/systemd/systemd (Debian package systemd)"; exit 2; } ;;
  *) say "VIVID_INIT is busybox or systemd, not '$init_kind'"; exit 2 ;;
esac
timeout_s=${VIVID_TIMEOUT:-900}
out_dir=${VIVID_OUT:-${TMPDIR:-/tmp}/swiftcam-vivid-out}
cache=${VIVID_CACHE:-${TMPDIR:-/tmp}/swiftcam-vivid-cache}
mem=${VIVID_MEM:-1536}
cpus=${VIVID_SMP:-$(n=$(nproc); echo $((n > 4 ? 4 : n)))}
verbose=${VIVID_VERBOSE:-0}
[[ $timeout_s =~ ^[0-9]+$ && $mem =~ ^[0-9]+$ && $cpus =~ ^[0-9]+$ ]] \
  || { say "VIVID_TIMEOUT, VIVID_MEM and VIVID_SMP must be whole numbers"; exit 2; }

# --- Debian packages --------------------------------------------------------------------------
# The guest runs the host's own v4l2-ctl, modprobe and GStreamer, so they belong on the host too.
# The MJPEG webcam (scripts/mjpeg-camera.sh) is v4l2loopback fed by ffmpeg: its module is built by
# DKMS against the guest kernel's headers (linux-headers-amd64 matches linux-image-amd64).
packages=(qemu-system-x86 linux-image-amd64 busybox-static cpio kmod xz-utils v4l-utils
          gstreamer1.0-tools util-linux
          linux-headers-amd64 dkms v4l2loopback-dkms ffmpeg
          libcamera-ipa libcamera-tools gstreamer1.0-libcamera linux-source-6.1)
# shellcheck source-path=SCRIPTDIR source=debian-packages.sh
. "${BASH_SOURCE[0]%/*}/debian-packages.sh"
install_missing "${packages[@]}"

# --- the kernel -------------------------------------------------------------------------------
kver=${VIVID_KERNEL:-}
if [ -z "$kver" ]; then
  while read -r k; do
    if [ -n "$(find "/lib/modules/$k/kernel/drivers/media" -name 'vivid.ko*' -print -quit 2>/dev/null)" ]; then
      kver=$k; break
    fi
  done < <(find /boot -maxdepth 1 -name 'vmlinuz-*' -printf '%f\n' 2>/dev/null | sed 's/^vmlinuz-//' | sort -rV)
fi
[ -n "$kver" ] || die "no kernel in /boot has vivid.ko in /lib/modules (is linux-image-amd64 installed?)"
kernel=/boot/vmlinuz-$kver
[ -r "$kernel" ] || die "cannot read $kernel (root needed)"
[ -d "/lib/modules/$kver" ] || die "no /lib/modules/$kver for kernel $kver"

# --- v4l2loopback for the guest's kernel ------------------------------------------------------
# DKMS builds a module at install time only for the running kernel (and for kernels whose headers
# arrive later), but the guest boots the one picked above, which is not running here (a container
# or another distribution's kernel). The guest's modprobe reads this machine's /lib/modules, so a
# module installed here for $kver, with depmod run, is the guest's.
ensure_loopback() {
  modinfo -k "$kver" v4l2loopback >/dev/null 2>&1 && return 0
  # The headers of exactly this kernel: linux-headers-amd64 follows linux-image-amd64, but
  # VIVID_KERNEL or an older image left in /boot may be another release.
  if [ ! -e "/lib/modules/$kver/build" ]; then
    apt-cache show "linux-headers-$kver" >/dev/null 2>&1 || return 1
    install_missing "linux-headers-$kver"
  fi
  local version
  version=$(dpkg-query -W -f='${Version}' v4l2loopback-dkms 2>/dev/null) || return 1
  version=${version#*:}; version=${version%-*}
  say "building v4l2loopback $version for kernel $kver (DKMS)"
  # `dkms install` builds first when needed and runs depmod for $kver.
  "${as_root[@]}" dkms install "v4l2loopback/$version" -k "$kver" >&2 || return 1
  modinfo -k "$kver" v4l2loopback >/dev/null 2>&1
}

mkdir -p "$cache" || die "cannot create the cache $cache"
cache=$(cd "$cache" && pwd -P)

# Cache entries are built under a lock and renamed into place, so parallel runs share them.
exec {lock_fd}>"$cache/.lock"
flock "$lock_fd"

# Under the same lock, so that parallel first runs do not build the module twice at once. Only the
# MJPEG camera needs it: vivid alone still works when the build fails.
ensure_loopback || say "no v4l2loopback module for kernel $kver: scripts/mjpeg-camera.sh cannot run in this VM"

# vimc for the guest's kernel, from Debian's kernel source (scripts/vimc-camera.sh): the libcamera camera. Keyed by
# the kernel and the source package's version; only the libcamera suite needs it, so vivid runs without it.
vimc_module=''
vimc_source=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo none)
vimc_module=$(bash "${BASH_SOURCE[0]%/*}/vimc-camera.sh" build "$kver" "$cache/vimc-$kver-$vimc_source") \
  || { vimc_module=''; say "no vimc module for kernel $kver: scripts/vimc-camera.sh cannot start in this VM"; }

# --- the initramfs: busybox, the modules for virtio/9p/overlay, and /init ---------------------
read -r -d '' guest_init <<'INIT' || true
#!/bin/busybox sh
# PID 1 of the vivid VM: build the root from the host's / over 9p, run the command, power off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
note() { read -r up _ < /proc/uptime; echo "vivid-vm guest [$up]: $*"; }
stop() { sync; poweroff -f; sleep 30; }
broken() { note "setup failed: $*"; echo 125 > /ctl/status 2>/dev/null; stop; }
note "init"
# Loopback, for what the tests serve on 127.0.0.1 (the host's /metrics); the VM has no other interface.
ip link set lo up || note "cannot bring lo up"
while read -r mod; do insmod "/lib/vivid-vm/$mod" || note "insmod $mod failed"; done < /lib/vivid-vm/modules
opts=trans=virtio,version=9p2000.L,msize=262144
mkdir -p /ctl /host /mem /root
mount -t 9p -o "$opts" ctl /ctl || broken "no control share"
. /ctl/settings
mount -t 9p -o "$opts,ro,cache=loose" host /host || broken "no host root share"
mount -t tmpfs -o mode=755 mem /mem && mkdir /mem/upper /mem/work
R=/root
mount -t overlay -o lowerdir=/host,upperdir=/mem/upper,workdir=/mem/work root $R || broken "overlay failed"
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount -t devtmpfs dev $R/dev
mkdir -p $R/dev/pts $R/dev/shm
# devtmpfs lacks what udev would add: bash's process substitution <(...) needs /dev/fd.
ln -sf /proc/self/fd $R/dev/fd
ln -sf /proc/self/fd/0 $R/dev/stdin; ln -sf /proc/self/fd/1 $R/dev/stdout; ln -sf /proc/self/fd/2 $R/dev/stderr
mount -t devpts devpts $R/dev/pts
mount -t tmpfs shm $R/dev/shm
mount -t tmpfs -o mode=755 run $R/run
mkdir -p $R/tmp/out $R/run/vivid-vm
mount -t 9p -o "$opts" out $R/tmp/out || broken "no output share"
if [ "$OUT_PATH" != /tmp/out ]; then mkdir -p "$R$OUT_PATH" && mount --bind $R/tmp/out "$R$OUT_PATH"; fi
cp /ctl/command $R/run/vivid-vm/command
# The command's stdout and stderr go to the two named virtio ports (names come a moment after the driver).
out=/dev/console err=/dev/console
for _ in $(seq 50); do
  for p in /sys/class/virtio-ports/*; do
    case "$(cat "$p/name" 2>/dev/null)" in
      vivid.stdout) out=/dev/${p##*/} ;;
      vivid.stderr) err=/dev/${p##*/} ;;
    esac
  done
  [ "$out" != /dev/console ] && [ "$err" != /dev/console ] && break
  sleep 0.1
done
[ "$out" != /dev/console ] || note "no stdout port: the command's output goes to the console"
ENV="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root USER=root LOGNAME=root"
ENV="$ENV TERM=dumb LANG=C.UTF-8 VIVID_GUEST=1"
[ -n "$GST_REGISTRY" ] && ENV="$ENV GST_REGISTRY_1_0=$GST_REGISTRY"
[ -n "$MJPEG_FRAMES" ] && ENV="$ENV MJPEG_FRAMES=$MJPEG_FRAMES"
[ -n "$VIMC_MODULE" ] && ENV="$ENV VIMC_MODULE=$VIMC_MODULE"
note "root ready"
if [ "$INIT" = systemd ]; then
  # systemd as PID 1 runs the command as a unit: the same environment, ports, modprobe and status file.
  mkdir -p $R/run/vivid-vm/ctl $R/run/systemd/system
  mount --move /ctl $R/run/vivid-vm/ctl || broken "cannot move the control share into the root"
  { echo "OUT=$out"; echo "ERR=$err"; echo "ENV='$ENV'"; } > $R/run/vivid-vm/ports
  cat > $R/run/vivid-vm/run <<'RUN'
#!/bin/bash
. /run/vivid-vm/ctl/settings
. /run/vivid-vm/ports
note() { read -r up _ < /proc/uptime; echo "vivid-vm guest [$up]: $*" > /dev/console; }
note "systemd started the command"
if [ -n "$MODPROBE_ARGS" ]; then
  # shellcheck disable=SC2086
  /usr/bin/env -i $ENV /sbin/modprobe $MODPROBE_ARGS > "$ERR" 2>&1 || echo "vivid-vm: modprobe $MODPROBE_ARGS failed" > "$ERR"
fi
# shellcheck disable=SC2086
/usr/bin/env -i $ENV /bin/bash -c 'cd "$1" 2>/dev/null || cd /; exec /bin/bash /run/vivid-vm/command' \
  vivid-vm "$WORK_DIR" < /dev/null > "$OUT" 2> "$ERR"
status=$?
note "command exited $status"
echo "$status" > /run/vivid-vm/ctl/status
sync
RUN
  # Only what the command asks for starts: basic.target (udev, journald, sysusers), then the command; its end,
  # or a boot that never reaches it, powers the VM off.
  cat > $R/run/systemd/system/vivid-vm.target <<'UNIT'
[Unit]
Description=vivid-vm: the command after basic.target
Requires=basic.target vivid-vm-command.service
After=basic.target
AllowIsolate=yes
JobTimeoutSec=600
JobTimeoutAction=poweroff-immediate
UNIT
  cat > $R/run/systemd/system/vivid-vm-command.service <<'UNIT'
[Unit]
Description=vivid-vm: the command
After=basic.target
SuccessAction=poweroff-immediate
FailureAction=poweroff-immediate
[Service]
Type=exec
ExecStart=/bin/bash /run/vivid-vm/run
StandardInput=null
StandardOutput=journal+console
UNIT
  # Masked for this boot: tmpfiles' `D /tmp` would empty the writable host share mounted under /tmp, the
  # /etc caches that ConditionNeedsUpdate rebuilds (ldconfig, hwdb, journal catalog) cost minutes over 9p,
  # and the rest is of no use to a command (modules for disks, binfmt, the network clock, debug filesystems).
  for unit in systemd-tmpfiles-setup.service systemd-tmpfiles-clean.service systemd-tmpfiles-clean.timer \
              ldconfig.service systemd-hwdb-update.service systemd-journal-catalog-update.service systemd-update-done.service \
              modprobe@drm.service modprobe@dm_mod.service modprobe@loop.service modprobe@fuse.service \
              modprobe@efi_pstore.service systemd-pstore.service systemd-binfmt.service proc-sys-fs-binfmt_misc.automount \
              systemd-timesyncd.service dev-hugepages.mount sys-kernel-debug.mount sys-kernel-tracing.mount \
              sys-fs-fuse-connections.mount; do
    ln -sf /dev/null $R/run/systemd/system/$unit
  done
  # No generators either (fstab, getty, SysV scripts, …): the root is mounted and nothing else is wanted, and
  # they cost most of the boot under emulation.
  mkdir -p $R/run/systemd/system-generators
  for gen in $R/lib/systemd/system-generators/* $R/usr/lib/systemd/system-generators/*; do
    [ -e "$gen" ] && ln -sf /dev/null "$R/run/systemd/system-generators/${gen##*/}"
  done
  # This machine may be a container: its marker would make systemd act as a container's init (no udev, the
  # kernel command line ignored).
  rm -f $R/.dockerenv $R/run/.containerenv
  note "switching to systemd"
  exec switch_root $R /lib/systemd/systemd --unit=vivid-vm.target --show-status=false
  broken "switch_root to systemd failed"
fi
if [ -n "$MODPROBE_ARGS" ]; then
  # shellcheck disable=SC2086
  chroot $R /usr/bin/env -i $ENV /sbin/modprobe $MODPROBE_ARGS > "$err" 2>&1 \
    || echo "vivid-vm: modprobe $MODPROBE_ARGS failed" > "$err"
fi
note "modprobe done"
chroot $R /usr/bin/env -i $ENV /bin/bash -c 'cd "$1" 2>/dev/null || cd /; exec /bin/bash /run/vivid-vm/command' \
  vivid-vm "$WORK_DIR" < /dev/null > "$out" 2> "$err"
status=$?
note "command exited $status"
echo "$status" > /ctl/status
stop
INIT

modules=()
for m in virtio_pci virtio_console 9pnet_virtio 9p overlay; do
  while read -r f; do
    case " ${modules[*]-} " in *" $f "*) ;; *) modules+=("$f") ;; esac
  done < <(modprobe -S "$kver" --show-depends "$m" 2>/dev/null | awk '$1 == "insmod" { print $2 }')
done
id=$({ printf '%s\n' "$guest_init" "${modules[@]-}"; sha256sum /bin/busybox; } | sha256sum | cut -c1-16)
initrd=$cache/initramfs-$kver-$id.cpio
if [ ! -s "$initrd" ]; then
  stage=$(mktemp -d "$cache/initramfs.XXXXXX")
  mkdir -p "$stage"/{bin,dev,proc,sys,lib/vivid-vm}
  cp /bin/busybox "$stage/bin/busybox"
  printf '%s\n' "$guest_init" > "$stage/init"
  chmod 0755 "$stage/init"
  : > "$stage/lib/vivid-vm/modules"
  for f in "${modules[@]-}"; do
    [ -n "$f" ] || continue
    name=${f##*/}
    case "$name" in
      *.ko.xz) name=${name%.xz}; xz -dc "$f" ;;
      *.ko.zst) name=${name%.zst}; zstd -qdc "$f" ;;
      *.ko.gz) name=${name%.gz}; gzip -dc "$f" ;;
      *) cat "$f" ;;
    esac > "$stage/lib/vivid-vm/$name" || die "cannot unpack $f"
    echo "$name" >> "$stage/lib/vivid-vm/modules"
  done
  (cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 > ../"${stage##*/}.cpio") \
    || die "cpio failed"
  # Other versions' initramfs stay a day: checkouts of other branches share this cache, and one
  # deleted between its build and its QEMU's start would fail that run.
  find "$cache" -maxdepth 1 -name 'initramfs-*.cpio' -mmin +1440 -delete 2>/dev/null || true
  mv "$stage.cpio" "$initrd"
  rm -rf "$stage"
  say "built $initrd"
fi

# --- the kernel image: under TCG the bzImage's own decompression costs seconds per boot, so boot
# the uncompressed vmlinux (an ELF with a PVH entry point) unpacked once into the cache -----------
firmware=()
if [ "${VIVID_VMLINUX:-1}" = 1 ] && grep -q '^CONFIG_PVH=y' "/boot/config-$kver" 2>/dev/null; then
  vmlinux=$cache/vmlinux-$kver-$(stat -c %Y-%s "$kernel")
  if [ ! -s "$vmlinux" ]; then
    # bzImage layout (Documentation/x86/boot.rst): setup_sects at 0x1f1, then the payload at
    # payload_offset (0x248) after the (setup_sects + 1) * 512 setup bytes, compressed.
    le32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
    sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$kernel" | tr -d ' ')
    [ "$sects" = 0 ] && sects=4
    start=$(( (sects + 1) * 512 + $(le32 "$kernel" $((0x248))) ))
    length=$(le32 "$kernel" $((0x24c)))
    magic=$(od -An -tx1 -j "$start" -N4 "$kernel" | tr -d ' \n')
    case "$magic" in
      fd377a58) unpack=(xz -dc --single-stream) ;;
      28b52ffd) unpack=(zstd -qdc) ;;
      1f8b08*) unpack=(gzip -dc) ;;
      *) unpack=() ;;
    esac
    if [ ${#unpack[@]} -gt 0 ] && command -v "${unpack[0]}" >/dev/null; then
      part=$(mktemp "$cache/vmlinux.XXXXXX")
      tail -c +$((start + 1)) "$kernel" | head -c "$length" | "${unpack[@]}" > "$part" 2>/dev/null || true
      if [ "$(od -An -tx1 -N4 "$part" | tr -d ' \n')" = 7f454c46 ]; then
        rm -f "$cache/vmlinux-$kver-"*
        mv "$part" "$vmlinux"
      else
        rm -f "$part"
        say "could not unpack $kernel; booting it compressed"
      fi
    fi
  fi
  if [ -s "$vmlinux" ]; then
    kernel=$vmlinux
    # qboot starts in a fraction of SeaBIOS's time; both can boot a PVH kernel.
    [ -r /usr/share/qemu/qboot.rom ] && firmware=(-bios /usr/share/qemu/qboot.rom)
  fi
fi

# --- GStreamer's plugin registry: built natively once, so the guest does not rescan every plugin
registry=$cache/gst-registry-$(uname -m).bin
GST_REGISTRY_1_0=$registry gst-inspect-1.0 coreelements >/dev/null 2>&1 || registry=

# --- the MJPEG camera's frames, encoded natively once (keyed by the script that makes them): the
# guest's scripts/mjpeg-camera.sh then only loops them, one ffmpeg start less under TCG ----------
mjpeg_script=${BASH_SOURCE[0]%/*}/mjpeg-camera.sh
mjpeg_frames=''
if [ -r "$mjpeg_script" ]; then
  mjpeg_frames=$cache/mjpeg-frames-$(sha256sum < "$mjpeg_script" | cut -c1-16).nut
  if [ ! -s "$mjpeg_frames" ]; then
    find "$cache" -maxdepth 1 -name 'mjpeg-frames-*' -mmin +1440 -delete 2>/dev/null || true
    bash "$mjpeg_script" frames "$mjpeg_frames" || mjpeg_frames=''
  fi
fi
flock -u "$lock_fd"
exec {lock_fd}>&-

# --- KVM or TCG -------------------------------------------------------------------------------
# A /dev/kvm without VT-x/AMD-V in the CPU flags (nested or PVM hosts) cannot run a stock kernel.
accel=${VIVID_ACCEL:-auto}
if [ "$accel" = auto ]; then
  accel=tcg
  if [ -r /dev/kvm ] && [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo \
     && echo quit | qemu-system-x86_64 -machine none -accel kvm -nodefaults -display none -monitor stdio >/dev/null 2>&1; then
    accel=kvm
  fi
fi
case "$accel" in
  kvm) accel_args=(-accel kvm -cpu host) ;;
  tcg) accel_args=(-accel "tcg,thread=multi" -cpu max) ;;
  *) say "VIVID_ACCEL is auto, kvm or tcg, not '$accel'"; exit 2 ;;
esac

# --- one run ----------------------------------------------------------------------------------
mkdir -p "$out_dir" || die "cannot create $out_dir"
out_dir=$(cd "$out_dir" && pwd -P)
mkdir -p "$cache/runs"
# Runs killed with SIGKILL leave their folder behind: clear those older than a day.
find "$cache/runs" -mindepth 1 -maxdepth 1 -mmin +1440 -exec rm -rf {} + 2>/dev/null || true
run=$(mktemp -d "$cache/runs/XXXXXX")
qemu_pid='' readers=()
finish() {
  [ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null
  local p
  for p in "${readers[@]-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
  rm -rf "$run"
}
trap finish EXIT
trap 'exit 130' INT TERM

mkdir "$run/ctl"
if [ $# -eq 1 ]; then
  printf '%s\n' "$1" > "$run/ctl/command"
else
  { printf 'exec'; printf ' %q' "$@"; printf '\n'; } > "$run/ctl/command"
fi
# Read by the guest's busybox sh: %q quoting that bash might choose ($'...') is avoided.
shq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
{
  echo "WORK_DIR=$(shq "$PWD")"
  echo "OUT_PATH=$(shq "$out_dir")"
  echo "MODPROBE_ARGS=$(shq "$modprobe_args")"
  echo "GST_REGISTRY=$(shq "$registry")"
  echo "MJPEG_FRAMES=$(shq "$mjpeg_frames")"
  echo "VIMC_MODULE=$(shq "$vimc_module")"
  echo "INIT=$(shq "$init_kind")"
} > "$run/ctl/settings"

mkfifo "$run/stdout" "$run/stderr"
cat "$run/stdout" & readers+=($!)
cat "$run/stderr" >&2 & readers+=($!)

model=none; [ "$(id -u)" = 0 ] && model=passthrough
shares=()
share() { shares+=(-fsdev "local,id=$1,path=${2//,/,,},security_model=$model$3" -device "virtio-9p-pci,fsdev=$1,mount_tag=$1"); }
share host / ,readonly=on,multidevs=remap
share ctl "$run/ctl" ""
share out "$out_dir" ""
append="console=ttyS0 quiet panic=-1 mitigations=off rdinit=/init"
# No first-boot questions (the target and status are systemd's own arguments, see the guest's init).
[ "$init_kind" = systemd ] && append="$append systemd.firstboot=off"
began=$(date +%s.%N)
timeout -k 5 "$timeout_s" qemu-system-x86_64 -nodefaults -no-user-config -machine pc "${firmware[@]}" \
  "${accel_args[@]}" -smp "$cpus" -m "$mem" -display none -no-reboot \
  -kernel "$kernel" -initrd "$initrd" \
  -append "$append ${VIVID_APPEND:-}" \
  -serial "file:$run/console.log" "${shares[@]}" \
  -device virtio-serial-pci \
  -chardev "file,id=stdout,path=$run/stdout" -device virtserialport,chardev=stdout,name=vivid.stdout \
  -chardev "file,id=stderr,path=$run/stderr" -device virtserialport,chardev=stderr,name=vivid.stderr \
  < /dev/null > "$run/qemu.log" 2>&1 &
qemu_pid=$!
qemu_status=0
wait "$qemu_pid" || qemu_status=$?
qemu_pid=''
ended=$(date +%s.%N)
# The readers end when QEMU closes the fifos; one whose fifo QEMU never opened waits forever.
for p in "${readers[@]}"; do
  for _ in $(seq 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill "$p" 2>/dev/null || true
done
readers=()
cp -f "$run/console.log" "$cache/last-console.log" 2>/dev/null || true

if [ -s "$run/ctl/status" ]; then
  status=$(cat "$run/ctl/status")
else
  status=125
  case "$qemu_status" in
    124|137) status=124; say "timed out after ${timeout_s}s" ;;
    *) say "the guest reported no status (QEMU exited $qemu_status)" ;;
  esac
  sed 's/^/  qemu: /' "$run/qemu.log" | head -n 30 >&2
  tail -n 30 "$run/console.log" 2>/dev/null | sed 's/^/  console: /' >&2
fi
if [ "$verbose" = 1 ]; then
  sed 's/^/  console: /' "$run/console.log" >&2
  say "accel=$accel init=$init_kind kernel=$kver image=${kernel##*/} cpus=$cpus mem=${mem}M status=$status" \
      "wall=$(awk -v a="$began" -v b="$ended" 'BEGIN { printf "%.1f", b - a }')s"
fi
exit "$status"
