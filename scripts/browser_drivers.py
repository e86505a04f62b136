"""The two browsers the page is tried in from a second host, each headless with a fresh profile and its default WebRTC
settings, driven the same way (`navigate`, `run_async`, `screenshot`, `close`):

- `Chromium`: Debian's chromium through chromedriver (WebDriver over HTTP);
- `Firefox`: Debian's Firefox ESR through marionette (marionette_driver from PyPI, in .build/firefox-venv).

Each is told to trust exactly one certificate, the camera host's own (`certificate`, a PEM file): Chromium by the
SHA-256 of its public key (`--ignore-certificate-errors-spki-list`), Firefox by a certificate override for the host and
port it is served on, as "Accept the risk" would store it. Nothing broader: any other certificate still fails.
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.parse
import urllib.request

from two_hosts import SAFETY, free_port, stop_process, wait_listening


def awaiting_page(body, every):
    """An async page script: `body` (JavaScript that calls `done(...)` or returns false to look again in `every` ms) runs
    once the camera page is there (`window.swiftcam`); a document still without it 5 s after loading resolves with what
    it is instead (its URL, title and the resources it loaded, with their statuses)."""
    return """
const done = arguments[arguments.length - 1];
const started = performance.now();
const check = () => {
  if (typeof swiftcam === 'undefined') {
    if (document.readyState !== 'complete' || performance.now() - started < 5000) setTimeout(check, 20);
    else done(['no page', location.href, document.title,
               performance.getEntriesByType('resource').map((e) => `${e.name} ${e.responseStatus}`)]);
    return;
  }
  if ((() => { BODY })() === false) setTimeout(check, EVERY);
};
check();
""".replace("BODY", body).replace("EVERY", str(every))


def certificate_der(pem_path):
    """The first certificate of a PEM file, DER bytes."""
    with open(pem_path) as pem:
        text = pem.read()
    body = text.split("-----BEGIN CERTIFICATE-----")[1].split("-----END CERTIFICATE-----")[0]
    return base64.b64decode("".join(body.split()))


def spki_sha256(pem_path):
    """base64 of the SHA-256 of the certificate's public key (SubjectPublicKeyInfo, DER): Chromium's pin."""
    key = subprocess.run(["openssl", "x509", "-in", pem_path, "-noout", "-pubkey"], capture_output=True, check=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=key, capture_output=True, check=True).stdout
    digest = subprocess.run(["openssl", "dgst", "-sha256", "-binary"], input=der, capture_output=True, check=True).stdout
    return base64.b64encode(digest).decode()


class Chromium:
    """Headless Chromium through chromedriver; `init_script` runs in every page before its own scripts."""

    name = "Chromium"

    def __init__(self, certificate=None, init_script=None):
        self.port = free_port()
        self.driver = subprocess.Popen(["/usr/bin/chromedriver", f"--port={self.port}", "--allowed-ips=127.0.0.1"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.profile = tempfile.mkdtemp(prefix="chromium-profile.")
        self.session = None
        wait_listening(self.port, self.driver, "chromedriver")
        arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--autoplay-policy=no-user-gesture-required", "--no-first-run", "--no-default-browser-check",
                     f"--user-data-dir={self.profile}", "--window-size=1280,800"]
        if certificate:
            arguments.append(f"--ignore-certificate-errors-spki-list={spki_sha256(certificate)}")
        capabilities = {"goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": arguments}}
        made = self._call("POST", "/session", {"capabilities": {"alwaysMatch": capabilities}})
        self.session = made["sessionId"]
        self.version = made.get("capabilities", {}).get("browserVersion")
        if init_script:
            self._call("POST", f"/session/{self.session}/goog/cdp/execute",
                       {"cmd": "Page.addScriptToEvaluateOnNewDocument", "params": {"source": init_script}})
        self._call("POST", f"/session/{self.session}/timeouts", {"script": SAFETY * 1000, "pageLoad": SAFETY * 1000})

    def _call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=SAFETY * 2) as response:
                return json.load(response)["value"]
        except urllib.error.HTTPError as error:  # chromedriver's own words: which command failed, and why
            raise SystemExit(f"FAIL: chromedriver {method} {path.split('/')[-1]}: {error.read()[:600]!r}") from None

    def navigate(self, url):
        self._call("POST", f"/session/{self.session}/url", {"url": url})

    def run(self, script, args=()):
        return self._call("POST", f"/session/{self.session}/execute/sync", {"script": script, "args": list(args)})

    def run_async(self, script, args=()):
        return self._call("POST", f"/session/{self.session}/execute/async", {"script": script, "args": list(args)})

    def screenshot(self, path):
        with open(path, "wb") as image:
            image.write(base64.b64decode(self._call("GET", f"/session/{self.session}/screenshot")))

    def close(self):
        try:
            if self.session:
                self._call("DELETE", f"/session/{self.session}")
        finally:
            self.driver.terminate()
            self.driver.wait()
            shutil.rmtree(self.profile, ignore_errors=True)


# Adds a certificate override for one host and port, for one certificate (chrome context). Firefox 153 takes
# (host, port, originAttributes, cert, temporary); older releases had the override bits before `temporary`.
TRUST_ONE = """
const [host, port, der] = arguments;
const certdb = Cc['@mozilla.org/security/x509certdb;1'].getService(Ci.nsIX509CertDB);
const overrides = Cc['@mozilla.org/security/certoverride;1'].getService(Ci.nsICertOverrideService);
const cert = certdb.constructX509FromBase64(der);
try { overrides.rememberValidityOverride(host, port, {}, cert, false); }
catch (e) { overrides.rememberValidityOverride(host, port, {}, cert, 7, false); }
return overrides.hasMatchingOverride(host, port, {}, cert, {});
"""


class Firefox:
    """Headless Firefox ESR through marionette; `serves` is the (address, port) the trusted certificate is served on."""

    name = "Firefox ESR"

    def __init__(self, certificate=None, serves=None):
        from marionette_driver.marionette import Marionette

        self.port = free_port()
        self.profile = tempfile.mkdtemp(prefix="firefox-profile.")
        # Only what keeps a fresh profile quiet and lets the muted video autoplay: WebRTC keeps its defaults.
        prefs = {
            "marionette.port": self.port, "media.autoplay.default": 0, "browser.shell.checkDefaultBrowser": False,
            "datareporting.policy.dataSubmissionEnabled": False, "toolkit.telemetry.reportingpolicy.firstRun": False,
            "browser.startup.homepage_override.mstone": "ignore", "app.update.disabledForTesting": True,
        }
        with open(os.path.join(self.profile, "user.js"), "w") as prefs_file:
            for key, value in prefs.items():
                written = json.dumps(value) if not isinstance(value, bool) else str(value).lower()
                prefs_file.write(f'user_pref("{key}", {written});\n')
        self.browser = subprocess.Popen(
            ["firefox-esr", "--headless", "--marionette", "--no-remote", "-remote-allow-system-access", "--profile", self.profile],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_listening(self.port, self.browser, "Firefox's marionette")
        self.client = Marionette(host="127.0.0.1", port=self.port)
        self.client.start_session()
        self.client.timeout.script = SAFETY
        self.client.timeout.page_load = SAFETY
        self.version = self.client.session_capabilities.get("browserVersion")
        if certificate:
            host, port = serves
            der = base64.b64encode(certificate_der(certificate)).decode()
            with self.client.using_context(self.client.CONTEXT_CHROME):
                if not self.client.execute_script(TRUST_ONE, script_args=[host, port, der]):
                    raise SystemExit(f"FAIL: Firefox kept no override for {host}:{port}")

    def navigate(self, url):
        self.client.navigate(url)

    def run(self, script, args=()):
        return self.client.execute_script(script, script_args=list(args), sandbox=None)

    def run_async(self, script, args=()):
        return self.client.execute_async_script(script, script_args=list(args), sandbox=None)

    def screenshot(self, path):
        with open(path, "wb") as image:
            image.write(self.client.screenshot(format="binary"))

    def close(self):
        try:
            self.client.delete_session()
        finally:
            stop_process(self.browser)
            shutil.rmtree(self.profile, ignore_errors=True)


def open_browser(kind, url, certificate):
    """`kind` ("chromium" or "firefox") trusting `certificate` for the page at `url` (Firefox: for its host and port
    alone)."""
    if kind == "chromium":
        return Chromium(certificate=certificate)
    address = urllib.parse.urlsplit(url)
    return Firefox(certificate=certificate, serves=(address.hostname, address.port))
