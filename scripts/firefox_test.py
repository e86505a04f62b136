#!/usr/bin/env python3
"""The camera page in Debian's Firefox ESR (no H.264 in its WebRTC), driven with marionette_driver (PyPI), from a
second host: the host and the browser in two network namespaces joined by a veth pair (private addresses of their
own), Firefox with its default WebRTC settings (mDNS host candidates included), the page opened by the URL the host
printed. It must play live WebRTC in VP8 (never the MJPEG fallback), show the colour bars, turn grey after a filter
change, and take a still.

Run as root inside a network and mount namespace of its own (`unshare --net --mount`, scripts/test.sh web): it makes
the veth pair and the browser's namespace there, and every packet stays between the two. Usage:
    firefox_test.py SWIFTCAM [SCREENSHOT]     (as the test)
    firefox_test.py --browser URL SCREENSHOT  (inside the browser's namespace: drives Firefox, prints JSON)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from two_hosts import BROWSER_ADDRESS, ROOT, SAFETY, TwoHosts, wait_listening

MARIONETTE_PORT = 2828

# Resolves when the page plays WebRTC (its first frames decoded), or says it fell back.
PLAYING = """
const done = arguments[arguments.length - 1];
const video = document.getElementById('preview');
const check = () => {
  if (swiftcam.mode === 'webrtc' && video.videoWidth > 0 && video.currentTime > 0 && swiftcam.codec) done(['webrtc', swiftcam.codec]);
  else if (swiftcam.mode === 'mjpeg') done(['mjpeg', document.getElementById('notice').textContent]);
  else setTimeout(check, 20);
};
check();
"""

# Resolves with the colour at (x, y) of the video (fractions) once `test` holds for it (checked at each new frame).
PIXEL = """
const [fx, fy, test] = [arguments[0], arguments[1], new Function('p', 'return ' + arguments[2])];
const done = arguments[arguments.length - 1];
const video = document.getElementById('preview');
const canvas = document.createElement('canvas');
const step = () => {
  canvas.width = video.videoWidth; canvas.height = video.videoHeight;
  const context = canvas.getContext('2d');
  context.drawImage(video, 0, 0);
  const d = context.getImageData(Math.floor(fx * (canvas.width - 1)), Math.floor(fy * (canvas.height - 1)), 1, 1).data;
  const p = [d[0], d[1], d[2]];
  if (test(p)) done(p); else setTimeout(step, 30);
};
step();
"""

# Resolves with the thumbnail's capture name once the shutter's still is shown.
STILL = """
const done = arguments[arguments.length - 1];
document.getElementById('shutter').click();
const img = document.getElementById('thumb-img');
const check = () => {
  if (!img.hidden && img.complete && img.naturalWidth > 0 && img.src.includes('/captures/')) done(decodeURIComponent(img.src.split('/captures/')[1]));
  else setTimeout(check, 30);
};
check();
"""


def browser(url, screenshot):
    """Inside the browser's namespace: Firefox headless with a fresh profile, the page at `url`; prints the findings."""
    from marionette_driver.marionette import Marionette

    profile = tempfile.mkdtemp(prefix="firefox-profile.")
    # Only what keeps a fresh profile quiet and lets the muted video autoplay: WebRTC keeps its defaults.
    prefs = {
        "marionette.port": MARIONETTE_PORT, "media.autoplay.default": 0, "browser.shell.checkDefaultBrowser": False,
        "datareporting.policy.dataSubmissionEnabled": False, "toolkit.telemetry.reportingpolicy.firstRun": False,
        "browser.startup.homepage_override.mstone": "ignore", "app.update.disabledForTesting": True,
    }
    with open(os.path.join(profile, "user.js"), "w") as prefs_file:
        for key, value in prefs.items():
            written = json.dumps(value) if not isinstance(value, bool) else str(value).lower()
            prefs_file.write(f'user_pref("{key}", {written});\n')
    firefox = subprocess.Popen(["firefox-esr", "--headless", "--marionette", "--no-remote", "--profile", profile],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    findings = {}
    try:
        wait_listening(MARIONETTE_PORT, firefox, "Firefox's marionette")
        client = Marionette(host="127.0.0.1", port=MARIONETTE_PORT)
        client.start_session()
        client.timeout.script = SAFETY
        findings["version"] = client.session_capabilities.get("browserVersion")
        client.navigate(url)
        findings["playing"] = client.execute_async_script(PLAYING, sandbox=None)
        if findings["playing"][0] == "webrtc":
            findings["yellow"] = client.execute_async_script(
                PIXEL, script_args=[3 / 14, 0.3, "p[0] > 150 && p[1] > 150 && p[2] < 80"], sandbox=None)
            findings["filter"] = client.execute_async_script(
                "const done = arguments[arguments.length - 1];"
                "fetch('/api/filter', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{\"chain\": \"mono\"}'})"
                ".then((r) => r.json()).then(done, (e) => done(String(e)));", sandbox=None)
            findings["grey"] = client.execute_async_script(
                PIXEL, script_args=[3 / 14, 0.3, "Math.max(...p) - Math.min(...p) < 12 && p[0] > 60"], sandbox=None)
            findings["still"] = client.execute_async_script(STILL, sandbox=None)
            with open(screenshot, "wb") as image:
                image.write(client.screenshot(format="binary"))
        findings["mode"] = client.execute_script("return window.swiftcam.mode", sandbox=None)
        client.delete_session()
    finally:
        firefox.terminate()
        try:
            firefox.wait(timeout=SAFETY)
        except subprocess.TimeoutExpired:
            firefox.kill()
            firefox.wait()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(findings))


def main():
    binary = sys.argv[1]
    screenshot = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, ".build", "screenshots", "firefox.png"))
    os.makedirs(os.path.dirname(screenshot), exist_ok=True)
    python = os.path.join(ROOT, ".build", "firefox-venv", "bin", "python")
    failures = []

    def check(condition, what):
        print(("ok: " if condition else "FAIL: ") + what)
        if not condition:
            failures.append(what)

    with TwoHosts() as hosts:
        url = hosts.start_camera(binary)
        print(f"host: {url.split('?')[0]} (the printed URL, opened as printed from {BROWSER_ADDRESS})")
        result = hosts.in_browser_namespace([python, os.path.abspath(__file__), "--browser", url, screenshot], timeout=5 * SAFETY)
        if result.returncode != 0:
            raise SystemExit(f"FAIL: the browser side ended {result.returncode}: {result.stdout[-800:]} {result.stderr[-1500:]}")
        findings = json.loads(result.stdout.strip().splitlines()[-1])
        print(f"Firefox {findings.get('version')}: {findings}")
        check(findings.get("playing") == ["webrtc", "VP8"], f"live WebRTC in VP8, no MJPEG fallback ({findings.get('playing')})")
        check(findings.get("mode") == "webrtc", f"still WebRTC at the end ({findings.get('mode')})")
        check(bool(findings.get("yellow")), f"the yellow bar ({findings.get('yellow')})")
        check(isinstance(findings.get("filter"), dict) and findings["filter"].get("ok") is True, f"mono applied ({findings.get('filter')})")
        check(bool(findings.get("grey")), f"the picture turned grey ({findings.get('grey')})")
        still = findings.get("still")
        check(bool(still) and os.path.isfile(os.path.join(hosts.scratch, "captures", still)), f"a still taken: captures/{still}")
    if failures:
        raise SystemExit(f"FAIL: {len(failures)} Firefox checks failed")
    print(f"ok: Debian's Firefox plays the page's live VP8 from another host; screenshot {os.path.relpath(screenshot, ROOT)}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--browser":
        browser(sys.argv[2], sys.argv[3])
    else:
        main()
