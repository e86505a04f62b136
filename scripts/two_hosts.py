"""Two hosts on one machine, for the browser tests and benchmarks: the camera host in this network namespace and a
browser in a second one made here, joined by a veth pair with private addresses of their own (10.213.0.1 and
10.213.0.2), so every packet stays between the two. Run as root inside a network and mount namespace of its own
(`unshare --net --mount`). Imported by browsers_test.py, browser_drivers.py and first_frame_bench.py."""
import os
import shutil
import socket
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST_ADDRESS, BROWSER_ADDRESS = "10.213.0.1", "10.213.0.2"
SAFETY = 60  # seconds: a safety net for each wait, never a figure under test
# Firefox's driver (marionette_driver from PyPI) lives in a venv of its own (scripts/firefox-venv.sh).
FIREFOX_PYTHON = os.path.join(ROOT, ".build", "firefox-venv", "bin", "python")


def screenshots_folder(arguments):
    """The screenshots folder a test script was given (its first argument, if any; .build/screenshots by default), made."""
    folder = os.path.abspath(arguments[0] if arguments else os.path.join(ROOT, ".build", "screenshots"))
    os.makedirs(folder, exist_ok=True)
    return folder


def run(command):
    subprocess.run(command, check=True)


def free_port():
    """A TCP port nothing listens on now, on 127.0.0.1 (a browser driver's)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stop_process(process):
    """Terminates `process` and waits for it; kills it if it has not ended within SAFETY seconds."""
    process.terminate()
    try:
        process.wait(timeout=SAFETY)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Checks:
    """A test script's checks: each printed `ok: …` or `FAIL: …`; `finish(what)` ends the script if any failed."""

    def __init__(self):
        self.failures = []

    def __call__(self, condition, what):
        print(("ok: " if condition else "FAIL: ") + what)
        if not condition:
            self.failures.append(what)

    def finish(self, what):
        if self.failures:
            raise SystemExit(f"FAIL: {len(self.failures)} checks {what} failed")


def wait_listening(port, process, what):
    """Waits for 127.0.0.1:`port` to accept (a browser's driver starting); fails naming `what` if `process` ends first."""
    deadline = time.monotonic() + SAFETY
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise SystemExit(f"FAIL: {what} did not listen")
            time.sleep(0.1)


class TwoHosts:
    """The browser's namespace and the veth pair (`with TwoHosts() as hosts:`); `hosts.start_camera(...)` runs
    `swiftcam run` on the host's address and returns the URL it printed; everything goes at the end."""

    def __init__(self):
        self.namespace = f"swiftcam-browser-{os.getpid()}"
        self.scratch = tempfile.mkdtemp(prefix="two-hosts.", dir=os.path.join(ROOT, ".build"))
        self.camera = None
        self.certificate = None  # the kept certificate's path, as the host printed it
        self.fingerprint = None

    def __enter__(self):
        run(["ip", "link", "set", "lo", "up"])
        run(["ip", "netns", "add", self.namespace])
        run(["ip", "link", "add", "sc-host", "type", "veth", "peer", "name", "sc-browser"])
        run(["ip", "link", "set", "sc-browser", "netns", self.namespace])
        run(["ip", "addr", "add", f"{HOST_ADDRESS}/24", "dev", "sc-host"])
        run(["ip", "link", "set", "sc-host", "up"])
        for command in (["ip", "addr", "add", f"{BROWSER_ADDRESS}/24", "dev", "sc-browser"],
                        ["ip", "link", "set", "sc-browser", "up"], ["ip", "link", "set", "lo", "up"]):
            run(["ip", "netns", "exec", self.namespace] + command)
        return self

    def __exit__(self, *_):
        self.stop_camera()
        subprocess.run(["ip", "netns", "del", self.namespace], stderr=subprocess.DEVNULL)
        shutil.rmtree(self.scratch, ignore_errors=True)

    def start_camera(self, binary, config="switch", arguments=()):
        """`swiftcam run CONFIG --http HOST:0 --token generate` in the scratch folder; the printed URL."""
        env = dict(os.environ, SWIFTCAM_PIPELINES=os.path.join(ROOT, "pipelines"), XDG_RUNTIME_DIR=self.scratch,
                   XDG_STATE_HOME=os.path.join(self.scratch, "state"))
        env.pop("STATE_DIRECTORY", None)
        command = [binary, "run", config, "--quiet", "--no-control", "--http", f"{HOST_ADDRESS}:0", "--token", "generate", *arguments]
        self.camera = subprocess.Popen(command, cwd=self.scratch, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, text=True)
        url = None
        for line in self.camera.stdout:
            if line.startswith("camera screen "):
                printed = line.split(" ")[-1].strip()
                if printed.startswith(f"https://{HOST_ADDRESS}:"):
                    url = printed
            elif line.startswith("certificate SHA-256 ") and url:
                # "certificate SHA-256 AB:CD:… (PATH)": what a user compares with what the browser shows.
                fingerprint, origin = line[len("certificate SHA-256 "):].strip().split(" ", 1)
                self.certificate = origin.strip("()")
                self.fingerprint = fingerprint
                return url
        raise SystemExit(f"FAIL: the host printed no https:// camera screen URL on {HOST_ADDRESS} with its certificate")

    def stop_camera(self):
        if not self.camera:
            return
        stop_process(self.camera)
        self.camera = None

    def in_browser_namespace(self, command, timeout):
        """Runs `command` in the browser's namespace; its CompletedProcess (output captured as text)."""
        return subprocess.run(["ip", "netns", "exec", self.namespace] + command, capture_output=True, text=True, timeout=timeout)
