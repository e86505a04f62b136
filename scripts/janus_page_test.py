#!/usr/bin/env python3
"""The camera page played through Janus, from a second host, in both browsers: Debian's Janus (streaming plugin, HTTP
API on 127.0.0.1) and `swiftcam run` with `publish.janus` in this network namespace, the browsers in a second one
joined by a veth pair (scripts/two_hosts.py). The host relays the page's signalling to Janus and Janus sends the
media; the page, its token and its controls stay the host's. Chromium must play H.264 through Janus (the mountpoint's
always-fed stream), Debian's Firefox ESR VP8 (fed while it watches); each shows the colour bars and turns grey after a
filter change made on the host. Janus's `info` must show the VP8 stream fed while Firefox watches.

Run as root inside a network and mount namespace of its own (`unshare --net --mount`, scripts/test.sh web). Usage:
    janus_page_test.py SWIFTCAM [SCREENSHOTS]
    janus_page_test.py --browser KIND URL CERTIFICATE SCREENSHOT   (inside the browser's namespace: prints JSON)
"""
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request

from browser_drivers import awaiting_page, open_browser
from browsers_test import FILTER, PIXEL
from two_hosts import FIREFOX_PYTHON, ROOT, SAFETY, Checks, TwoHosts, free_port, screenshots_folder, stop_process

JANUS = "/usr/bin/janus"
JANUS_LIBRARIES = f"/usr/lib/{os.uname().machine}-linux-gnu/janus"

# Resolves when the page plays WebRTC, with the codec and the server it came through; or says it fell back.
PLAYING = awaiting_page("""
  const video = document.getElementById('preview');
  if (swiftcam.mode === 'webrtc' && video.videoWidth > 0 && video.currentTime > 0 && swiftcam.codec)
    done(['webrtc', swiftcam.codec, swiftcam.via]);
  else if (swiftcam.mode === 'mjpeg') done(['mjpeg', document.getElementById('notice').textContent]);
  else return false;
""", 20)

# Resolves with the host's viewer counts, from the page's own API.
VIEWERS = """
const done = arguments[arguments.length - 1];
fetch('/api/status').then((r) => r.json()).then((reply) => done(reply.viewers), (e) => done(String(e)));
"""


class Janus:
    """Debian's Janus with the streaming plugin and the HTTP transport alone, from a scratch folder of configs; its
    API on 127.0.0.1:`port`. ICE on every interface but lo (Janus skips loopback): the veth pair's."""

    def __init__(self, folder):
        self.port = free_port()
        self.folder = folder
        os.makedirs(folder, exist_ok=True)
        plugins = [name for name in os.listdir(f"{JANUS_LIBRARIES}/plugins") if name.endswith(".so") and name != "libjanus_streaming.so"]
        transports = [name for name in os.listdir(f"{JANUS_LIBRARIES}/transports") if name.endswith(".so") and name != "libjanus_http.so"]
        files = {
            "janus.jcfg": f"""general: {{
  configs_folder = "{folder}"
  plugins_folder = "{JANUS_LIBRARIES}/plugins"
  transports_folder = "{JANUS_LIBRARIES}/transports"
  events_folder = "{JANUS_LIBRARIES}/events"
  loggers_folder = "{JANUS_LIBRARIES}/loggers"
  debug_level = 4
}}
plugins: {{ disable = "{','.join(plugins)}" }}
transports: {{ disable = "{','.join(transports)}" }}
events: {{ broadcast = false }}
media: {{ rtp_port_range = "20000-40000" }}
""",
            "janus.transport.http.jcfg": f"""general: {{ json = "plain" base_path = "/janus" http = true port = {self.port} ip = "127.0.0.1" https = false }}
admin: {{ admin_http = false }}
cors: {{}}
""",
            "janus.plugin.streaming.jcfg": "general: { }\n",
        }
        for name, text in files.items():
            with open(os.path.join(folder, name), "w") as file:
                file.write(text)
        self.log = open(os.path.join(folder, "janus.log"), "w")
        self.process = subprocess.Popen([JANUS, f"--configs-folder={folder}", "--disable-colors"], stdout=self.log,
                                        stderr=subprocess.STDOUT)
        deadline = time.monotonic() + SAFETY
        while True:
            try:
                self.request({"janus": "info"}, "")
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"FAIL: Janus did not answer on 127.0.0.1:{self.port} (log: {self.log.name})")
                time.sleep(0.1)

    @property
    def api(self):
        return f"http://127.0.0.1:{self.port}/janus"

    def request(self, body, path):
        body = dict(body, transaction=str(time.monotonic_ns()))
        data = json.dumps(body).encode()
        with urllib.request.urlopen(urllib.request.Request(self.api + path, data=data, method="POST"), timeout=10) as answer:
            return json.loads(answer.read())

    def mountpoint(self, id):
        """The streaming plugin's `info` of mountpoint `id`: its media (mid, codec, age_ms) or None."""
        session = self.request({"janus": "create"}, "")["data"]["id"]
        handle = self.request({"janus": "attach", "plugin": "janus.plugin.streaming"}, f"/{session}")["data"]["id"]
        data = self.request({"janus": "message", "body": {"request": "info", "id": id}}, f"/{session}/{handle}")
        self.request({"janus": "destroy"}, f"/{session}")
        return data.get("plugindata", {}).get("data", {}).get("info")

    def stop(self):
        stop_process(self.process)
        self.log.close()


def browser(kind, url, certificate, screenshot):
    """Inside the browser's namespace: the page at `url`, played through Janus; prints the findings as JSON."""
    driver = open_browser(kind, url, certificate)
    findings = {"version": driver.version}
    try:
        driver.navigate(url)
        findings["playing"] = driver.run_async(PLAYING)
        if findings["playing"][0] == "webrtc":
            findings["viewers"] = driver.run_async(VIEWERS)
            findings["yellow"] = driver.run_async(PIXEL, [3 / 14, 0.3, "p[0] > 150 && p[1] > 150 && p[2] < 80"])
            findings["filter"] = driver.run_async(FILTER, ["mono"])
            findings["grey"] = driver.run_async(PIXEL, [3 / 14, 0.3, "Math.max(...p) - Math.min(...p) < 12 && p[0] > 60"])
            driver.screenshot(screenshot)
            driver.run_async(FILTER, [""])
            # Janus's view of the mountpoint while this page watches (read by the test through a marker file).
            with open(screenshot + ".watching", "w") as marker:
                marker.write("watching")
            deadline = time.monotonic() + SAFETY
            while not os.path.exists(screenshot + ".read") and time.monotonic() < deadline:
                time.sleep(0.1)
        findings["mode"] = driver.run("return window.swiftcam.mode")
    finally:
        driver.close()
    print(json.dumps(findings))


def main():
    binary = sys.argv[1]
    screenshots = screenshots_folder(sys.argv[2:])
    script = os.path.abspath(__file__)
    check = Checks()

    with TwoHosts() as hosts:
        janus = Janus(os.path.join(hosts.scratch, "janus"))
        try:
            config = os.path.join(hosts.scratch, "janus-camera.json")
            with open(config, "w") as file:
                json.dump({
                    "sources": [{"kind": "test", "pattern": "smpte"}],
                    "caps": {"width": 640, "height": 480, "framerate": "30/1", "format": "I420"},
                    "preview": "none",
                    "publish": {"janus": {"api": janus.api, "mountpoint": 42}},
                }, file)
            url = hosts.start_camera(binary, config=config)
            print(f"host: {url.split('?')[0]} with Janus {janus.api} (mountpoint 42)")
            for kind, python, codec in (("firefox", FIREFOX_PYTHON, "VP8"), ("chromium", sys.executable, "H264")):
                name = "Firefox ESR" if kind == "firefox" else "Chromium"
                screenshot = os.path.join(screenshots, f"{kind}-through-janus.png")
                for leftover in (screenshot + ".watching", screenshot + ".read"):
                    if os.path.exists(leftover):
                        os.remove(leftover)
                command = ["ip", "netns", "exec", hosts.namespace, python, script, "--browser", kind, url, hosts.certificate, screenshot]
                process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                deadline = time.monotonic() + 5 * SAFETY
                while not os.path.exists(screenshot + ".watching") and process.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.1)
                media = (janus.mountpoint(42) or {}).get("media", [])
                with open(screenshot + ".read", "w") as marker:
                    marker.write("read")
                out, err = process.communicate(timeout=5 * SAFETY)
                for marker in (screenshot + ".watching", screenshot + ".read"):
                    if os.path.exists(marker):
                        os.remove(marker)
                if process.returncode != 0:
                    raise SystemExit(f"FAIL: {kind} ended {process.returncode}: {out[-800:]} {err[-1500:]}")
                findings = json.loads(out.strip().splitlines()[-1])
                print(f"{name} {findings.get('version')}: {findings}; Janus's media: {media}")
                playing = findings.get("playing") or []
                check(playing[:2] == ["webrtc", codec], f"{name}: live WebRTC in {codec}, no MJPEG fallback ({playing})")
                check(len(playing) > 2 and str(playing[2]).startswith("Janus http://127.0.0.1:"), f"{name}: through Janus ({playing[2:]})")
                check((findings.get("viewers") or {}).get("janus") == 1, f"{name}: the host counts one viewer through Janus ({findings.get('viewers')})")
                fed = {entry.get("mid"): entry.get("age_ms") for entry in media}
                check(isinstance(fed.get(codec.lower()), int) and fed[codec.lower()] < 1000,
                      f"{name}: Janus receives the {codec} stream while the page watches ({fed})")
                check(bool(findings.get("yellow")), f"{name}: the yellow bar ({findings.get('yellow')})")
                check(isinstance(findings.get("filter"), dict) and findings["filter"].get("ok") is True, f"{name}: mono applied ({findings.get('filter')})")
                check(bool(findings.get("grey")), f"{name}: the picture through Janus turned grey ({findings.get('grey')})")
        finally:
            hosts.stop_camera()
            janus.stop()
            if check.failures:
                with open(janus.log.name) as log:
                    print("Janus's log, its end:\n" + "".join(log.readlines()[-40:]))
    check.finish("of the page through Janus")
    print(f"ok: Chromium (H.264) and Debian's Firefox (VP8) play the camera page through Janus; screenshots in "
          f"{os.path.relpath(screenshots, ROOT)}/")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--browser":
        browser(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    else:
        if not (shutil.which(JANUS) and os.path.exists(f"{JANUS_LIBRARIES}/plugins/libjanus_streaming.so")):
            raise SystemExit("FAIL: Debian's janus is not installed (scripts/deps.sh)")
        main()
