#!/usr/bin/env python3
"""Time from opening the camera page to its first WebRTC frame, for each browser and codec, over LOADS page loads
(10 unless FIRST_FRAME_LOADS says otherwise), from a second host: the host and the browser in two network namespaces
joined by a veth pair (scripts/two_hosts.py), each browser with its default WebRTC settings, the printed URL opened
as printed. The time is the page's own `swiftcam.firstFrameMs` (performance.now() at the video's first `playing`,
from the start of the navigation). Chromium plays H.264 (its own order) and VP8 (asked for with setCodecPreferences);
Debian's Firefox has VP8 only. Prints p50/p95 (`make bench-first-frame`; figures in docs/benchmarks.md).

Usage (as root, inside `unshare --net --mount`): first_frame_bench.py SWIFTCAM
    first_frame_bench.py --chromium URL CODEC LOADS / --firefox URL LOADS   (inside the browser's namespace)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

from two_hosts import ROOT, SAFETY, TwoHosts, free_port, wait_listening

LOADS = int(os.environ.get("FIRST_FRAME_LOADS", "10"))

# Resolves with the page's first-frame time, or what happened instead.
FIRST_FRAME = """
const done = arguments[arguments.length - 1];
const check = () => {
  if (swiftcam.firstFrameMs != null && swiftcam.codec) done(['webrtc', swiftcam.firstFrameMs, swiftcam.codec]);
  else if (swiftcam.mode === 'mjpeg') done(['mjpeg', document.getElementById('notice').textContent, null]);
  else setTimeout(check, 10);
};
check();
"""

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


def chromium(url, codec, loads):
    """Headless Chromium through chromedriver (WebDriver over HTTP), its WebRTC settings the defaults."""
    port = free_port()
    driver = subprocess.Popen(["/usr/bin/chromedriver", f"--port={port}", "--allowed-ips=127.0.0.1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    profile = tempfile.mkdtemp(prefix="chromium-profile.")
    base = f"http://127.0.0.1:{port}"

    def call(method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=SAFETY * 2) as response:
            return json.load(response)["value"]

    times = []
    try:
        wait_listening(port, driver, "chromedriver")
        arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--autoplay-policy=no-user-gesture-required", "--no-first-run", "--no-default-browser-check",
                     f"--user-data-dir={profile}"]
        session = call("POST", "/session", {"capabilities": {"alwaysMatch": {
            "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": arguments}}}})["sessionId"]
        if codec != "H264":
            call("POST", f"/session/{session}/goog/cdp/execute",
                 {"cmd": "Page.addScriptToEvaluateOnNewDocument", "params": {"source": PREFER.replace("CODEC", codec)}})
        call("POST", f"/session/{session}/timeouts", {"script": SAFETY * 1000})
        for _ in range(loads):
            call("POST", f"/session/{session}/url", {"url": url})
            times.append(call("POST", f"/session/{session}/execute/async", {"script": FIRST_FRAME, "args": []}))
        call("DELETE", f"/session/{session}")
    finally:
        driver.terminate()
        driver.wait()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(times))


def firefox(url, loads):
    """Firefox ESR through marionette, its WebRTC settings the defaults."""
    from marionette_driver.marionette import Marionette

    port = free_port()
    profile = tempfile.mkdtemp(prefix="firefox-profile.")
    with open(os.path.join(profile, "user.js"), "w") as prefs:
        for key, value in {"marionette.port": port, "media.autoplay.default": 0, "browser.shell.checkDefaultBrowser": "false",
                           "datareporting.policy.dataSubmissionEnabled": "false", "app.update.disabledForTesting": "true"}.items():
            prefs.write(f'user_pref("{key}", {value});\n')
    browser = subprocess.Popen(["firefox-esr", "--headless", "--marionette", "--no-remote", "--profile", profile],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times = []
    try:
        wait_listening(port, browser, "Firefox's marionette")
        client = Marionette(host="127.0.0.1", port=port)
        client.start_session()
        client.timeout.script = SAFETY
        for _ in range(loads):
            client.navigate(url)
            times.append(client.execute_async_script(FIRST_FRAME, sandbox=None))
        client.delete_session()
    finally:
        browser.terminate()
        browser.wait()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(times))


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    binary = sys.argv[1]
    firefox_python = os.path.join(ROOT, ".build", "firefox-venv", "bin", "python")
    script = os.path.abspath(__file__)
    cases = [("Chromium", "H264", [sys.executable, script, "--chromium"], ["H264"]),
             ("Chromium", "VP8", [sys.executable, script, "--chromium"], ["VP8"]),
             ("Firefox ESR", "VP8", [firefox_python, script, "--firefox"], [])]
    rows = []
    with TwoHosts() as hosts:
        url = hosts.start_camera(binary)
        for browser, codec, command, extra in cases:
            result = hosts.in_browser_namespace(command[:3] + [url] + extra + [str(LOADS)], timeout=LOADS * SAFETY * 2)
            if result.returncode != 0:
                raise SystemExit(f"FAIL: {browser} {codec}: {result.stdout[-400:]} {result.stderr[-1200:]}")
            loads = json.loads(result.stdout.strip().splitlines()[-1])
            played = [load[1] for load in loads if load[0] == "webrtc" and load[2] == codec]
            wrong = [load for load in loads if not (load[0] == "webrtc" and load[2] == codec)]
            rows.append((browser, codec, played, wrong))
    print(f"first WebRTC frame from a second host, {LOADS} page loads each, release host ({os.cpu_count()} cores)")
    print(f"{'browser':<12} {'codec':<6} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7}  other outcomes")
    for browser, codec, played, wrong in rows:
        if played:
            print(f"{browser:<12} {codec:<6} {percentile(played, 0.5):>7.0f} {percentile(played, 0.95):>7.0f} {max(played):>7.0f}  {wrong or ''}")
        else:
            print(f"{browser:<12} {codec:<6} {'-':>7} {'-':>7} {'-':>7}  {wrong}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--chromium":
        chromium(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--firefox":
        firefox(sys.argv[2], int(sys.argv[3]))
    else:
        main()
