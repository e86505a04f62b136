#!/usr/bin/env python3
"""Time from opening the camera page to its first WebRTC frame, for each browser and codec, over LOADS page loads
(10 unless FIRST_FRAME_LOADS says otherwise), from a second host: the host and the browser in two network namespaces
joined by a veth pair (scripts/two_hosts.py), each browser with its default WebRTC settings, the printed URL opened
as printed, over HTTPS with the host's own certificate (trusted as scripts/browser_drivers.py says). The time is the
page's own `swiftcam.firstFrameMs` (performance.now() at the video's first `playing`, from the start of the
navigation). Chromium plays H.264 (its own order), VP8 and VP9 (asked for with setCodecPreferences);
Debian's Firefox has VP8 only. Prints p50/p95/max and the first load's (a fresh browser, its first TLS and DTLS
handshakes with the host): `make bench-first-frame`; figures in docs/benchmarks.md.

Usage (as root, inside `unshare --net --mount`): first_frame_bench.py SWIFTCAM
    first_frame_bench.py --chromium URL CERTIFICATE CODEC LOADS / --firefox URL CERTIFICATE LOADS   (inside the browser's namespace)
"""
import json
import os
import sys

from browser_drivers import Chromium, awaiting_page, open_browser
from two_hosts import FIREFOX_PYTHON, SAFETY, TwoHosts

LOADS = int(os.environ.get("FIRST_FRAME_LOADS", "10"))

# Resolves with the page's first-frame time, or what happened instead.
FIRST_FRAME = awaiting_page("""
  if (swiftcam.firstFrameMs != null && swiftcam.codec) done(['webrtc', swiftcam.firstFrameMs, swiftcam.codec]);
  else if (swiftcam.mode === 'mjpeg') done(['mjpeg', document.getElementById('notice').textContent, null]);
  else return false;
""", 10)

# Makes the page's answer prefer one codec (Chromium), as a browser whose own order put it first would.
PREFER = """
const createAnswer = RTCPeerConnection.prototype.createAnswer;
RTCPeerConnection.prototype.createAnswer = function (...args) {
  const all = RTCRtpReceiver.getCapabilities('video').codecs;
  const first = all.filter((c) => c.mimeType === 'video/CODEC');
  for (const transceiver of this.getTransceivers()) transceiver.setCodecPreferences([...first, ...all.filter((c) => !first.includes(c))]);
  return createAnswer.apply(this, args);
};
"""


def chromium(url, certificate, codec, loads):
    """Headless Chromium, its WebRTC settings the defaults; the page's answer put `codec` first."""
    driver = Chromium(certificate=certificate, init_script=None if codec == "H264" else PREFER.replace("CODEC", codec))
    times = []
    try:
        for _ in range(loads):
            driver.navigate(url)
            times.append(driver.run_async(FIRST_FRAME))
    finally:
        driver.close()
    print(json.dumps(times))


def firefox(url, certificate, loads):
    """Firefox ESR, its WebRTC settings the defaults."""
    driver = open_browser("firefox", url, certificate)
    times = []
    try:
        for _ in range(loads):
            driver.navigate(url)
            times.append(driver.run_async(FIRST_FRAME))
    finally:
        driver.close()
    print(json.dumps(times))


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    binary = sys.argv[1]
    script = os.path.abspath(__file__)
    cases = [("Chromium", "H264", [sys.executable, script, "--chromium"], ["H264"]),
             ("Chromium", "VP8", [sys.executable, script, "--chromium"], ["VP8"]),
             ("Chromium", "VP9", [sys.executable, script, "--chromium"], ["VP9"]),
             ("Firefox ESR", "VP8", [FIREFOX_PYTHON, script, "--firefox"], [])]
    rows = []
    with TwoHosts() as hosts:
        url = hosts.start_camera(binary)
        for browser, codec, command, extra in cases:
            result = hosts.in_browser_namespace(command[:3] + [url, hosts.certificate] + extra + [str(LOADS)],
                                                timeout=LOADS * SAFETY * 2)
            if result.returncode != 0:
                raise SystemExit(f"FAIL: {browser} {codec}: {result.stdout[-400:]} {result.stderr[-1200:]}")
            loads = json.loads(result.stdout.strip().splitlines()[-1])
            played = [load[1] for load in loads if load[0] == "webrtc" and load[2] == codec]
            wrong = [load for load in loads if not (load[0] == "webrtc" and load[2] == codec)]
            rows.append((browser, codec, played, wrong))
    print(f"first WebRTC frame from a second host over HTTPS, {LOADS} page loads each, release host ({os.cpu_count()} cores)")
    print(f"{'browser':<12} {'codec':<6} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} {'first':>7}  other outcomes")
    for browser, codec, played, wrong in rows:
        if played:
            print(f"{browser:<12} {codec:<6} {percentile(played, 0.5):>7.0f} {percentile(played, 0.95):>7.0f} {max(played):>7.0f} "
                  f"{played[0]:>7.0f}  {wrong or ''}")
        else:
            print(f"{browser:<12} {codec:<6} {'-':>7} {'-':>7} {'-':>7} {'-':>7}  {wrong}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--chromium":
        chromium(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--firefox":
        firefox(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main()
