#!/usr/bin/env python3
"""The camera page from a second host, in both browsers: the host and the browsers in two network namespaces joined by
a veth pair (private addresses of their own), each browser with its default WebRTC settings (mDNS host candidates
included), the page opened over HTTPS by the URL the host printed, the browser told to trust the host's own
certificate alone (scripts/browser_drivers.py). Chromium must play live WebRTC in H.264 (its own first choice) and
Debian's Firefox ESR in VP8 (it has no H.264), never the MJPEG fallback; each shows the colour bars, turns grey after a
filter change, and takes a still. A Chromium that trusts another certificate does not open the page.

Run as root inside a network and mount namespace of its own (`unshare --net --mount`, scripts/test.sh web): it makes
the veth pair and the browser's namespace there, and every packet stays between the two. Usage:
    browsers_test.py SWIFTCAM [SCREENSHOTS]                              (as the test)
    browsers_test.py --browser KIND URL CERTIFICATE SCREENSHOT  (inside the browser's namespace: prints JSON)
"""
import json
import os
import subprocess
import sys
import tempfile

from browser_drivers import Chromium, awaiting_page, open_browser
from two_hosts import BROWSER_ADDRESS, FIREFOX_PYTHON, ROOT, SAFETY, Checks, TwoHosts, screenshots_folder

# Resolves when the page plays WebRTC (its first frames decoded), or says it fell back.
PLAYING = awaiting_page("""
  const video = document.getElementById('preview');
  if (swiftcam.mode === 'webrtc' && video.videoWidth > 0 && video.currentTime > 0 && swiftcam.codec) done(['webrtc', swiftcam.codec]);
  else if (swiftcam.mode === 'mjpeg') done(['mjpeg', document.getElementById('notice').textContent]);
  else return false;
""", 20)

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

# Sets the filter chain through the page's API (the page's own origin, its cookie); resolves with the answer.
FILTER = """
const done = arguments[arguments.length - 1];
fetch('/api/filter', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({chain: arguments[0]})})
  .then((r) => r.json()).then(done, (e) => done(String(e)));
"""

# Resolves with the thumbnail's capture name once the shutter's still is shown (not the one the page opened with).
STILL = """
const done = arguments[arguments.length - 1];
const img = document.getElementById('thumb-img');
const before = img.hidden ? '' : img.src;
document.getElementById('shutter').click();
const check = () => {
  if (!img.hidden && img.complete && img.naturalWidth > 0 && img.src.includes('/captures/') && img.src !== before)
    done(decodeURIComponent(img.src.split('/captures/')[1]));
  else setTimeout(check, 30);
};
check();
"""


def browser(kind, url, certificate, screenshot):
    """Inside the browser's namespace: the browser, the page at `url`; prints the findings as JSON."""
    driver = open_browser(kind, url, certificate)
    findings = {"version": driver.version}
    try:
        driver.navigate(url)
        findings["playing"] = driver.run_async(PLAYING)
        if findings["playing"][0] == "webrtc":
            findings["yellow"] = driver.run_async(PIXEL, [3 / 14, 0.3, "p[0] > 150 && p[1] > 150 && p[2] < 80"])
            findings["filter"] = driver.run_async(FILTER, ["mono"])
            findings["grey"] = driver.run_async(PIXEL, [3 / 14, 0.3, "Math.max(...p) - Math.min(...p) < 12 && p[0] > 60"])
            findings["still"] = driver.run_async(STILL)
            driver.screenshot(screenshot)
            driver.run_async(FILTER, [""])
        findings["mode"] = driver.run("return window.swiftcam.mode")
        findings["scheme"] = driver.run("return location.protocol")
    finally:
        driver.close()
    print(json.dumps(findings))


def distrusted(url):
    """Inside the browser's namespace: Chromium pinned to another key (a certificate made here) opens the URL; prints
    whether the page's script ran (it must not: the host's certificate is trusted by its own pin only)."""
    folder = tempfile.mkdtemp(prefix="other-certificate.")
    other = os.path.join(folder, "other.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                    "-subj", "/CN=other", "-keyout", os.path.join(folder, "other.key"), "-out", other],
                   check=True, capture_output=True)
    driver = Chromium(certificate=other)
    try:
        try:
            driver.navigate(url)
        except Exception as error:  # a navigation error is a refusal too
            print(json.dumps({"ran": False, "error": str(error)[:200]}))
            return
        print(json.dumps({"ran": driver.run("return typeof window.swiftcam !== 'undefined'")}))
    finally:
        driver.close()


def main():
    binary = sys.argv[1]
    screenshots = screenshots_folder(sys.argv[2:])
    script = os.path.abspath(__file__)
    check = Checks()

    stills = set()
    with TwoHosts() as hosts:
        url = hosts.start_camera(binary)
        print(f"host: {url.split('?')[0]} (the printed URL, opened as printed from {BROWSER_ADDRESS}), "
              f"certificate SHA-256 {hosts.fingerprint}")
        printed = subprocess.run(["openssl", "x509", "-in", hosts.certificate, "-noout", "-fingerprint", "-sha256"],
                                 capture_output=True, text=True, check=True).stdout.strip().split("=")[-1]
        check(printed == hosts.fingerprint, f"the printed fingerprint is the kept certificate's ({hosts.certificate})")
        for kind, python, codec in (("firefox", FIREFOX_PYTHON, "VP8"), ("chromium", sys.executable, "H264")):
            screenshot = os.path.join(screenshots, f"{kind}-second-host.png")
            result = hosts.in_browser_namespace([python, script, "--browser", kind, url, hosts.certificate, screenshot],
                                                timeout=5 * SAFETY)
            if result.returncode != 0:
                raise SystemExit(f"FAIL: {kind} ended {result.returncode}: {result.stdout[-800:]} {result.stderr[-1500:]}")
            findings = json.loads(result.stdout.strip().splitlines()[-1])
            name = "Firefox ESR" if kind == "firefox" else "Chromium"
            print(f"{name} {findings.get('version')}: {findings}")
            check(findings.get("scheme") == "https:", f"{name}: the page over HTTPS ({findings.get('scheme')})")
            check(findings.get("playing") == ["webrtc", codec], f"{name}: live WebRTC in {codec}, no MJPEG fallback ({findings.get('playing')})")
            check(findings.get("mode") == "webrtc", f"{name}: still WebRTC at the end ({findings.get('mode')})")
            check(bool(findings.get("yellow")), f"{name}: the yellow bar ({findings.get('yellow')})")
            check(isinstance(findings.get("filter"), dict) and findings["filter"].get("ok") is True,
                  f"{name}: mono applied ({findings.get('filter')})")
            check(bool(findings.get("grey")), f"{name}: the picture turned grey ({findings.get('grey')})")
            still = findings.get("still")
            check(bool(still) and still not in stills and os.path.isfile(os.path.join(hosts.scratch, "captures", still)),
                  f"{name}: a still taken: captures/{still}")
            stills.add(still)
        result = hosts.in_browser_namespace([sys.executable, script, "--distrusted", url], timeout=3 * SAFETY)
        outcome = json.loads(result.stdout.strip().splitlines()[-1]) if result.returncode == 0 else {"ran": None}
        check(outcome.get("ran") is False, f"a Chromium trusting another certificate does not open the page ({outcome})")
    check.finish("from the second host")
    print(f"ok: Chromium and Debian's Firefox play the page's live WebRTC over HTTPS from another host; "
          f"screenshots in {os.path.relpath(screenshots, ROOT)}/")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--browser":
        browser(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif len(sys.argv) > 1 and sys.argv[1] == "--distrusted":
        distrusted(sys.argv[2])
    else:
        main()
