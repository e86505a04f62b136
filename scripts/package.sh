#!/usr/bin/env bash
# package.sh - build the Debian package that installs SwiftCam where no Swift toolchain is.
#
#   scripts/package.sh          # from the repository root (or `make package`); prints the .deb's path
#
# Builds the release `swiftcam` and `libgstswiftfilter.so`, then lays out the package under
# .build/package/root and writes .build/package/swiftcam_VERSION_ARCH.deb with dpkg-deb:
#   /usr/lib/swiftcam/           the executable and the camera page's files (web/)
#   /usr/bin/swiftcam            a symbolic link to it
#   PLUGINSDIR/libgstswiftfilter.so   GStreamer's own plugin folder (pkg-config's pluginsdir), so
#                                gst-inspect-1.0 finds `swiftfilter` with no variable set
# Both binaries are linked again from the build's objects with the Swift runtime inside them (scripts/relink-static.py:
# what each uses of it, its symbols hidden), so no Swift library is installed beside them.
#   /etc/swiftcam/pipelines/     the shipped configs, conffiles: `swiftcam` finds them when no
#                                ./pipelines is there; a user's edits survive upgrades
#   /usr/share/swiftcam/pipelines/   the same configs as shipped, to compare with or copy back
#   /usr/share/doc/swiftcam/     copyright (LICENSE) and the changelog
#   /lib/systemd/system/         the units in packaging/systemd/, when there are any
# Depends: what dpkg-shlibdeps finds the binaries link (GStreamer, GLib, libsoup, libc, …) and the
# GStreamer plugin packages whose elements the host builds graphs from (packaging/debian/control.in).
# The version is SWIFTCAM_VERSION in Sources/CFilterPlugin/include/SwiftCamVersion.h, the one that
# `swiftcam --version` and the plugin print.
#
#   /lib/systemd/system/swiftcam@.service   swiftcam@NAME runs the config NAME (docs/service.md); the
#                                maintainer scripts in packaging/debian (postinst makes the system user
#                                swiftcam in group video; prerm stops the hosts on removal)
#
# Environment: SWIFTCAM_PACKAGE_ARCH=arm64 packages an aarch64 build made elsewhere (`make package ARCH=arm64` runs this
# inside scripts/arm64-root.sh's root, where the arm64 libraries and aarch64 binutils are; it implies SWIFTCAM_SKIP_BUILD=1
# and needs SWIFTCAM_PACKAGE_BIN); SWIFTCAM_PACKAGE_BIN the folder of the built binaries (default swift build's);
# SWIFTCAM_SKIP_BUILD=1 packages the build as it is; SWIFTCAM_PACKAGE_CONFIG=debug packages the
# debug build (what `make test` already built: its VM check needs no release build; `make package` is
# release); SWIFTCAM_PACKAGE_DIR the output folder (default .build/package); SWIFTCAM_MAINTAINER the
# Maintainer field.
# Exit status: 0 built; 1 a step failed (one line says which).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'package: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
# shellcheck source-path=SCRIPTDIR source=debian-packages.sh
. scripts/debian-packages.sh
install_missing dpkg-dev pkg-config python3

header=Sources/CFilterPlugin/include/SwiftCamVersion.h
version=$(sed -n 's/^#define SWIFTCAM_VERSION "\(.*\)"$/\1/p' "$header")
[[ $version =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || die "$header: SWIFTCAM_VERSION is not a Debian upstream version: '$version'"
native=$(dpkg --print-architecture)
arch=${SWIFTCAM_PACKAGE_ARCH:-$native}
# The tools that read the binaries: this machine's for its own architecture, the target's binutils and dynamic loader
# (run through binfmt_misc) for another; dpkg-shlibdeps reads DEB_HOST_ARCH.
case "$arch" in
  "$native") strip=strip; loaded() { ldd "$@"; } ;;
  arm64)
    # GNU strip cannot read the AArch64 attributes lld writes; the toolchain's llvm-objcopy strips what it linked.
    strip=/usr/libexec/swift/bin/llvm-objcopy
    export DEB_HOST_ARCH=arm64 PKG_CONFIG_PATH=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig
    loaded() { local f; for f; do printf '%s:\n' "$f"; /lib/ld-linux-aarch64.so.1 --list "$f"; done; }
    [ -n "${SWIFTCAM_PACKAGE_BIN:-}" ] || die "SWIFTCAM_PACKAGE_ARCH=arm64 needs SWIFTCAM_PACKAGE_BIN (make package ARCH=arm64)"
    SWIFTCAM_SKIP_BUILD=1
    ;;
  *) die "SWIFTCAM_PACKAGE_ARCH is $native or arm64, not '$arch'" ;;
esac
plugindir=$(pkg-config --variable=pluginsdir gstreamer-1.0) || die "pkg-config knows no gstreamer-1.0 (libgstreamer1.0-dev)"
libdir=/usr/lib/swiftcam

config=${SWIFTCAM_PACKAGE_CONFIG:-release}
case "$config" in release|debug) ;; *) die "SWIFTCAM_PACKAGE_CONFIG is release or debug, not '$config'" ;; esac
if [ "${SWIFTCAM_SKIP_BUILD:-0}" != 1 ]; then
  swift build -c "$config" --product swiftcam >&2
  swift build -c "$config" --product gstswiftfilter >&2
fi
bin=${SWIFTCAM_PACKAGE_BIN:-$(swift build -c "$config" --show-bin-path)}
for f in swiftcam libgstswiftfilter.so; do [ -f "$bin/$f" ] || die "no $bin/$f; run swift build -c $config"; done

out=${SWIFTCAM_PACKAGE_DIR:-.build/package}
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
root=$out/root
rm -rf "$root"
mkdir -p "$root/DEBIAN" "$root$libdir" "$root/usr/bin" "$root$plugindir" "$root/usr/share/doc/swiftcam" \
         "$root/etc/swiftcam/pipelines" "$root/usr/share/swiftcam/pipelines"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 scripts/relink-static.py "$bin" swiftcam "$work/swiftcam" || die "swiftcam could not be linked with the Swift runtime inside"
python3 scripts/relink-static.py "$bin" gstswiftfilter "$work/libgstswiftfilter.so" \
  || die "libgstswiftfilter.so could not be linked with the Swift runtime inside"
# Nothing of a toolchain is left to load (no RUNPATH was linked in), whatever machine runs them.
if loaded "$work/swiftcam" "$work/libgstswiftfilter.so" | grep -E 'libswift|Foundation|libdispatch|BlocksRuntime'; then
  die "the relinked binaries still load a Swift runtime library (above)"
fi
install -m 0755 "$work/swiftcam" "$root$libdir/swiftcam"
ln -s ../lib/swiftcam/swiftcam "$root/usr/bin/swiftcam"
# The page's files: the host reads them from web/ beside the executable it resolves from /proc/self/exe.
cp -R Sources/Web/Assets "$root$libdir/web"
install -m 0644 "$work/libgstswiftfilter.so" "$root$plugindir/libgstswiftfilter.so"
for f in "$root$libdir/swiftcam" "$root$plugindir/libgstswiftfilter.so"; do "$strip" --strip-unneeded "$f"; done

for config in pipelines/*.json; do
  install -m 0644 "$config" "$root/etc/swiftcam/pipelines/"
  install -m 0644 "$config" "$root/usr/share/swiftcam/pipelines/"
done
# systemd units (packaging/systemd/*.service, *.socket, …) go where Debian's packages put theirs.
for unit in packaging/systemd/*; do
  [ -f "$unit" ] && install -D -m 0644 "$unit" "$root/lib/systemd/system/${unit##*/}"
done
for script in postinst prerm postrm; do
  install -m 0755 "packaging/debian/$script" "$root/DEBIAN/$script"
done
install -m 0644 LICENSE "$root/usr/share/doc/swiftcam/copyright"
gzip -9n < CHANGELOG.md > "$root/usr/share/doc/swiftcam/changelog.gz"
(cd "$root" && find etc -type f | LC_ALL=C sort | sed 's|^|/|') > "$root/DEBIAN/conffiles"

# Depends: dpkg-shlibdeps over both ELF files.
mkdir "$work/debian"
printf 'Source: swiftcam\n\nPackage: swiftcam\nArchitecture: any\n' > "$work/debian/control"
elves=("$root$libdir/swiftcam" "$root$plugindir/libgstswiftfilter.so")
shlibs=$(cd "$work" && dpkg-shlibdeps -O "${elves[@]}" 2>"$work/shlibdeps.log") \
  || { cat "$work/shlibdeps.log" >&2; die "dpkg-shlibdeps failed"; }
linked=${shlibs#shlibs:Depends=}
[ -n "$linked" ] && [ "$linked" != "$shlibs" ] || die "dpkg-shlibdeps found no dependencies: $shlibs"
# The elements the host builds graphs from by name (videotestsrc, v4l2src, jpegenc, matroskamux, webrtcbin, …).
# glib-networking: GLib's TLS backend, a module GIO loads for the page's HTTPS (no library links it).
depends="$linked, passwd, glib-networking, gstreamer1.0-plugins-base, gstreamer1.0-plugins-good, gstreamer1.0-plugins-bad, gstreamer1.0-nice, gstreamer1.0-rtsp"

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
maintainer=${SWIFTCAM_MAINTAINER:-SwiftCam developers <swiftcam@localhost>}
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@SIZE@|$size|" -e "s|@DEPENDS@|$depends|" \
    -e "s|@MAINTAINER@|$maintainer|" packaging/debian/control.in > "$root/DEBIAN/control"

deb=$out/swiftcam_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zzstd --build "$root" "$deb" >&2
say "built $deb ($(du -h "$deb" | cut -f1))"
echo "$deb"
