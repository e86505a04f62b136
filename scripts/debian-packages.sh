# debian-packages.sh - sourced, not run: `install_missing PACKAGE...` installs those of the Debian
# packages that are not installed yet (`apt-get update` at most once per script, then
# `apt-get install --no-install-recommends`; as root, or through sudo). Shared by vivid-vm.sh and
# mjpeg-camera.sh so that both install the same way.
#
# The sourcing script may define `die` (print a reason, exit); a fallback that exits 69 is used
# otherwise. After install_missing, ${as_root[@]} is the prefix that runs a command as root
# (empty when already root, `sudo` else) for the caller's own root-only steps.
# shellcheck shell=bash

as_root=()
[ "$(id -u)" = 0 ] || as_root=(sudo)
debian_packages_updated=0

declare -F die >/dev/null || die() { printf '%s\n' "$*" >&2; exit 69; }

install_missing() {
  local p missing=()
  for p in "$@"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  # Inside the vivid VM the host's / is the guest's, read-only and without a network: what is
  # missing there is missing on the host, where vivid-vm.sh installs it.
  [ "${VIVID_GUEST:-}" != 1 ] || die "missing ${missing[*]} in the VM: scripts/vivid-vm.sh installs them on the host"
  command -v apt-get >/dev/null || die "missing ${missing[*]} and there is no apt-get to install them"
  if [ ${#as_root[@]} -gt 0 ]; then
    command -v sudo >/dev/null || die "missing ${missing[*]}; run as root to install them"
  fi
  printf '%s: installing %s\n' "${0##*/}" "${missing[*]}" >&2
  # Wait for dpkg's lock rather than fail when another install is running on this machine.
  local wait=(-o DPkg::Lock::Timeout=600)
  if [ "$debian_packages_updated" = 0 ]; then
    "${as_root[@]}" apt-get "${wait[@]}" update -qq >&2 || die "apt-get update failed"
    debian_packages_updated=1
  fi
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${wait[@]}" install -y -qq --no-install-recommends \
    "${missing[@]}" >&2 || die "apt-get install ${missing[*]} failed"
}
