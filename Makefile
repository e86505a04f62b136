# SwiftCam: `make demo` runs the demo pipeline, `make test` runs every test.
# Both install what they need first (Debian packages, only those missing).
SWIFT ?= swift
RELEASE_BIN := .build/release

.PHONY: deps build release demo test docs lint format screenshots test-asan test-hardware test-faults test-tsan fuzz soak storage-soak install-plugin clean bench-anchors bench-doc bench-web bench-first-frame bench-vp8 bench-webrtc-send load-web load-webrtc load-rtsp load-janus leaks-webrtc

deps:
	@bash scripts/deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# The demo config: a test pattern through sepia | vignette, a JPEG every 2 s into captures/, ~6 s.
demo: release
	$(RELEASE_BIN)/swiftcam run demo --no-control
	@$(RELEASE_BIN)/swiftcam gallery captures | head -5

test: deps
	@bash scripts/test.sh

# DocC archives of the public modules (Filters, GStreamer) in .build/docs; fails on a public symbol without a summary.
docs: deps
	@bash scripts/docs.sh

# The house format (.swift-format) checked over every Swift file (`make test` runs it first); `make format` applies it.
lint:
	@bash scripts/lint.sh

format:
	@bash scripts/lint.sh fix

test-asan: deps
	@bash scripts/test.sh asan

test-tsan: deps
	@bash scripts/test.sh tsan

# libFuzzer over the filter grammar, the .cube reader, the control commands, the config loader and the
# launch-line printer (Tests/Fuzz), under AddressSanitizer + LeakSanitizer: 10^6 inputs per target
# (FUZZ_RUNS), FUZZ_MAX_SECONDS per target as the safety net. `make test` runs each for 12 s.
fuzz: deps
	@bash scripts/fuzz.sh full

# The real-driver tests: the kernel's vivid camera in a VM (scripts/vivid-vm.sh: QEMU, KVM or software
# emulation; it installs QEMU and a Debian kernel when missing), ~6-7 min with the fault matrix; the second VM
# boots systemd as init and ends with the Debian package installed and used with /opt/swift hidden, and its
# swiftcam@ unit run by systemd (scripts/service-check.sh).
test-hardware: deps
	@bash scripts/test-hardware.sh

# Only the fault matrix (part of test-hardware): every fault injected into vivid while `swiftcam run` plays,
# what is reported, which files survive, recovery and its time; prints the table (~3 min, one VM boot).
test-faults: deps
	swift build --build-tests
	@SWIFTCAM_SKIP_BUILD=1 bash scripts/test-hardware.sh faults

# 30 minutes (SOAK_MINUTES=N to change) of a still every second, a filter change every 100 ms and a
# recording every minute on the release build; RSS each minute; fails on growth, a lost file or a slow source.
SOAK_MINUTES ?= 30
soak: release
	@SOAK_MINUTES=$(SOAK_MINUTES) bash scripts/soak.sh

# The storage budget's run on a small tmpfs, 1 s segments, for STORAGE_SECONDS (600; make test runs 12 s). As root
# (it mounts the tmpfs); docs/recording.md says what it holds.
STORAGE_SECONDS ?= 600
storage-soak: deps
	swift build --build-tests
	SWIFTCAM_STORAGE_SECONDS=$(STORAGE_SECONDS) swift test --skip-build --filter 'CaptureTests.StorageTests/aBudgetKeepsALongSegmentedRecordingOnASmallDisk'

# SwiftCam's filters beside libyuv, ffmpeg and OpenCV, one thread, 1080p, one table of ratios (~3 min).
# Installs Debian ffmpeg/libyuv0 and a venv with opencv-python-headless under .build when missing.
bench-anchors: deps
	@bash scripts/bench-anchors.sh

# docs/benchmarks.md's measured tables regenerated on the release build (~8 min on 2 cores): swiftcam bench, filters-bench
# --paths and the anchors write JSON to .build/bench-doc/, and scripts/bench-doc.py rewrites the tables from it (no dates).
bench-doc: release
	mkdir -p .build/bench-doc
	$(RELEASE_BIN)/swiftcam bench --json .build/bench-doc/bench.json
	$(RELEASE_BIN)/filters-bench --paths --json .build/bench-doc/paths.json
	bash scripts/bench-anchors.sh --json .build/bench-doc/anchors.json
	python3 scripts/bench-doc.py --bench .build/bench-doc/bench.json --paths .build/bench-doc/paths.json \
		--anchors .build/bench-doc/anchors.json

# The camera page's glass-to-glass latency on loopback (WebRTC and MJPEG, 640x480@30, release host, headless
# Chromium in a network namespace with only lo): p50/p95 (~1 min after the builds).
bench-web: deps
	@bash scripts/bench-web.sh

# Time to the first WebRTC frame from a second host (two network namespaces joined by a veth pair), per browser and
# codec (Chromium H.264 and VP8, Firefox ESR VP8) over 10 page loads: p50/p95 (~3 min, as root).
bench-first-frame: deps
	$(SWIFT) build -c release --product swiftcam
	@bash scripts/firefox-venv.sh >/dev/null
	unshare --net --mount --pid --fork --mount-proc python3 scripts/first_frame_bench.py "$$($(SWIFT) build -c release --show-bin-path)/swiftcam"

# vp8enc's speed at 1280x720 under each real-time setting the live VP8 encoder could use (~1 min).
bench-vp8: deps
	@bash scripts/vp8-settings.sh

# The WebRTC send path's CPU per RTP packet, piece by piece (SRTP AES-CM and AES-GCM, udpsink with and without
# buffer lists, rtpbin, webrtcbin's elements, a lean path) in gst-launch pipelines on lo in a network namespace (~1 min).
bench-webrtc-send: deps
	@bash scripts/webrtc-send-bench.sh

# 10 WebRTC + 20 MJPEG viewers + 5 stills/s for 60 s (LOAD_SECONDS) on the release host, a stalled viewer too; prints
# each viewer's CPU per RTP packet.
load-web: deps
	@bash scripts/load.sh web

# 1, 5 and 10 WebRTC viewers through Debian's Janus and through the host's own webrtcbin, side by side: the host's and
# Janus's CPU and each one's CPU per RTP packet (docs/benchmarks.md).
load-janus: deps
	@bash scripts/load.sh janus

# 1000 whole WebRTC viewer lifetimes (LOAD_LIFETIMES) in Chromium against the release host: RSS within 10 MB of the
# start (make test runs 24 of them).
load-webrtc: deps
	@bash scripts/load.sh webrtc

# Whether the memory of many viewer lifetimes is a leak: LEAK_SHORT (20) then LEAK_LIFETIMES (1000) lifetimes against the
# debug host with LeakSanitizer's runtime preloaded; the allocation stacks whose leaks grew between them (docs/web.md).
leaks-webrtc: deps
	@bash scripts/leaks-webrtc.sh

# RTSP clients one host serves at 1280x720@30 before frames drop: 10, 25, 50, … depayloading readers (LOAD_SECONDS each).
load-rtsp: deps
	@bash scripts/load.sh rtsp

# The README's screenshots of the camera page, renewed in docs/screenshots (test runs write theirs under .build/).
screenshots: deps
	@SWIFTCAM_SCREENSHOTS=docs/screenshots bash scripts/test.sh web

.PHONY: arm64-root test-arm64
# The root SwiftCam is cross-built for ARM64 in, under .build/arm64/root (ARM64_ROOT): Debian sid (Swift 6.2.3 for amd64
# and arm64) with arm64 as a second architecture; made once (~4 min), as root. `scripts/arm64-root.sh run CMD` runs CMD
# inside it in this checkout; its arm64 programs run through qemu-user-static.
arm64-root:
	@bash scripts/arm64-root.sh

# SwiftCam for ARM64, tested under emulation (scripts/test-arm64.sh): the Filters tests on aarch64 (`make test` runs
# this part), each part timed.
test-arm64:
	@bash scripts/test-arm64.sh all

.PHONY: bench-arm64-ipp
# Instructions per pixel of each filter on the portable path under aarch64 emulation (QEMU's count of guest
# instructions, not cycles) beside x86-64 SSE2's (callgrind), 1080p, one thread (scripts/aarch64-ipp.sh; as root, in
# the arm64 root, ARM64_ROOT if not .build/arm64/root; ~3 min once both builds are made). A measurement: `make test`
# does not run it. docs/benchmarks.md's table: scripts/bench-doc.py --ipp $(IPP_JSON).
IPP_JSON ?= .build/bench-doc/aarch64-ipp.json
bench-arm64-ipp:
	mkdir -p $(dir $(IPP_JSON))
	@bash scripts/aarch64-ipp.sh --json $(IPP_JSON)

.PHONY: bench-footprint
# The Debian package's size, what it installs, and the host's peak RSS beside gst-launch-1.0 on the same 1080p graph
# (scripts/footprint.sh, as root; makes the package when there is none). ARCH=arm64: the arm64 package (make package
# ARCH=arm64 first), run under emulation. A measurement: `make test` does not run it.
bench-footprint: deps
	@bash scripts/footprint.sh $(ARCH)

.PHONY: package test-package
# The Debian package that installs SwiftCam without Swift: .build/package/swiftcam_VERSION_ARCH.deb (docs/package.md).
# ARCH=arm64: the same for aarch64, cross-built in scripts/arm64-root.sh's root (.build/arm64/package; as root).
ARCH ?=
package: deps
ifeq ($(ARCH),arm64)
	@bash scripts/test-arm64.sh package
else
	@bash scripts/package.sh
endif

# The package installed in a systemd-booted VM (vivid loaded) with the toolchain hidden, used as a user would, its
# swiftcam@ unit run by systemd, then removed and purged (make test runs the same without the removal, from the
# debug build, at the end of its second VM).
test-package: package
	@VIVID_INIT=systemd bash scripts/vivid-vm.sh 'bash scripts/package-check.sh'

# Copies the plugin where gst-launch-1.0 looks for a user's plugins.
PLUGIN_DIR ?= $(HOME)/.local/share/gstreamer-1.0/plugins
install-plugin: release
	mkdir -p "$(PLUGIN_DIR)"
	install -m 0755 $(RELEASE_BIN)/libgstswiftfilter.so "$(PLUGIN_DIR)/"
	@echo "installed $(PLUGIN_DIR)/libgstswiftfilter.so; try: gst-inspect-1.0 swiftfilter"

# Anything a killed ARM64 run left mounted in its root (/dev, this checkout) is unmounted first, and rm stays on one
# file system, so removing .build never reaches through a mount.
clean:
	@awk -v r="$(CURDIR)/.build/" 'index($$2, r) == 1 { print $$2 }' /proc/self/mounts | sort -r | xargs -r -n1 umount -l
	rm -rf --one-file-system .build
