"""`/metrics` read by Prometheus's own parser (prometheus-client) from a running `swiftcam run`.

Usage: metrics_test.py SWIFTCAM_BINARY. Run as root inside a network namespace with only lo (scripts/test.sh metrics).
Starts hosts one after another, each on a test pattern or a missing camera, and stops each:

1. `--http --metrics --rtsp`: every metric docs/metrics.md names is on both servers, and each moves when its cause
   happens — frames flow, a still is taken, a recording runs and ends, an MJPEG viewer connects, an RTSP client reads.
2. `--metrics` with one-second segments and a storage budget on a tmpfs of its own (root, in the run's mount
   namespace): free bytes fall by what is written beside the captures, segments close, the budget deletes.
3. motion analysis on a moving ball with recordings on events: analysed frames, events, the pre-roll ring's bytes.
4. a camera that is missing, `--http` with a token and `--metrics`: the status metric says unconfigured, the page's
   /metrics wants the token; then `--metrics` alone, which stays up to say so.

Waits are for events (a reply line, a first JPEG, the RTSP client's caps), each with a safety net of 60 s.
"""

import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAFETY = 60
# Moved by what a test pattern cannot do: a camera's restart and the frames its driver drops. The fault matrix
# (Tests/CaptureTests/HardwareFaultTests.swift, in the VM with vivid) reads them with this parser through
# scripts/metrics_sample.py as its faults happen; here only their presence is checked.
MOVED_BY_THE_FAULT_MATRIX = {"swiftcam_restarts_total", "swiftcam_frames_dropped_total"}
# Written only by a host with analysers (and, for the ring, recordings on events): checked on such a host.
ANALYSIS_ONLY = {"swiftcam_analysis_frames_total", "swiftcam_events_total", "swiftcam_preroll_bytes"}
# The budget's file system: a tmpfs of this size, so free bytes move only with what this test writes.
BUDGET_TMPFS = 64 << 20
failures = []


def check(condition, what):
    if condition:
        print(f"ok: {what}")
    else:
        print(f"FAIL: {what}")
        failures.append(what)


def documented_metrics():
    with open(os.path.join(ROOT, "docs", "metrics.md")) as doc:
        names = re.findall(r"^\| `(swiftcam_[a-z_]+)` \|", doc.read(), re.MULTILINE)
    if len(names) < 10:
        raise SystemExit(f"FAIL: docs/metrics.md names only {len(names)} metrics")
    return names


class Host:
    """A `swiftcam run` with its stdout read on a thread: commands go to stdin, replies are waited for as lines."""

    def __init__(self, binary, folder, name, arguments, quiet=True):
        env = dict(os.environ, SWIFTCAM_PIPELINES=os.path.join(folder, "pipelines"))
        quieter = ["--quiet"] if quiet else []
        self.process = subprocess.Popen([binary, "run", name, *quieter, "--no-control", *arguments], cwd=folder, env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def line(self, prefix, containing=""):
        """The next line starting with `prefix` (and holding `containing`), within the safety net."""
        deadline = time.monotonic() + SAFETY
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise SystemExit(f"FAIL: no line starting {prefix!r} within {SAFETY} s; seen: {self.seen[-10:]}")
            if line is None:
                raise SystemExit(f"FAIL: the host ended before {prefix!r}; it printed: {self.seen[-10:]}")
            self.seen.append(line)
            if line.startswith(prefix) and containing in line:
                return line

    def command(self, text):
        """Sends a command line; returns its reply (`ok …`), failing on `error …`."""
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()
        while True:
            reply = self.line("")
            if reply.startswith("ok") or reply.startswith("error"):
                if not reply.startswith("ok"):
                    raise SystemExit(f"FAIL: {text}: {reply}")
                return reply

    def stop(self, how):
        if self.process.poll() is None:
            if how == "quit":
                self.process.stdin.write("quit\n")
                self.process.stdin.flush()
            else:
                self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=SAFETY)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None


def scrape(url, headers=None):
    """(status, content type, {(sample name, labels): value}, {family name: type})."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=SAFETY) as response:
            status, kind, body = response.status, response.headers.get("Content-Type"), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type"), {}, {}
    samples, types = {}, {}
    for family in text_string_to_metric_families(body):
        types[family.name] = family.type
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return status, kind, samples, types


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))))


def names(samples):
    return {name for name, _ in samples}


def present(samples, metric):
    return bool({metric, metric + "_sum", metric + "_count"} & names(samples))


def first_jpeg(port):
    """Opens /stream.mjpg and reads until the first JPEG starts: the viewer is subscribed then. Returns the socket."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=SAFETY)
    connection.sendall(f"GET /stream.mjpg HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    received = b""
    while b"\xff\xd8" not in received:
        chunk = connection.recv(65536)
        if not chunk:
            raise SystemExit(f"FAIL: /stream.mjpg ended before a JPEG: {received[:200]!r}")
        received += chunk
    return connection


def watching_page(port):
    """A page's WebSocket that sent `watch` and got the offer: a WebRTC viewer that has not answered (`negotiating`)."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=SAFETY)
    connection.sendall(f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    received = b""
    while b"\r\n\r\n" not in received:
        received += connection.recv(65536)
    payload = b'{"type":"watch"}'
    mask = os.urandom(4)
    connection.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
    while b'"offer"' not in received:
        chunk = connection.recv(65536)
        if not chunk:
            raise SystemExit(f"FAIL: the page's socket closed before an offer: {received[-200:]!r}")
        received += chunk
    return connection


def rtsp_reader(url):
    """A gst-launch-1.0 RTSP client, once its sink has caps (it is reading then)."""
    reader = subprocess.Popen(["gst-launch-1.0", "-v", "rtspsrc", f"location={url}", "protocols=tcp", "!", "fakesink"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = queue.Queue()

    def read():
        for line in reader.stdout:
            lines.put(line)
        lines.put(None)
    threading.Thread(target=read, daemon=True).start()
    while True:
        try:
            line = lines.get(timeout=SAFETY)
        except queue.Empty:
            line = None
        if line is None:
            reader.kill()
            raise SystemExit(f"FAIL: the RTSP client read nothing from {url}")
        if "GstFakeSink" in line and "caps = " in line:
            return reader


def write_config(folder, name, source, extra=""):
    os.makedirs(os.path.join(folder, "pipelines"), exist_ok=True)
    with open(os.path.join(folder, "pipelines", f"{name}.json"), "w") as config:
        config.write('{ "sources": [%s], "caps": { "width": 320, "height": 240, "framerate": "30/1", "format": "I420" },'
                     ' "filter": "sepia", "preview": "none", "still": { "directory": "captures" },'
                     ' "record": { "encoder": "mjpeg", "directory": "recordings" }%s }' % (source, extra))


def running_host(binary, folder, expected):
    # A push to a port nothing listens on (the discard port, in a namespace of our own) fails and retries.
    write_config(folder, "metrics-cam", '{ "kind": "test", "pattern": "ball" }', ', "publish": { "to": "rtsp://127.0.0.1:9/none" }')
    # Not --quiet: the stats line, once a second, says when the push has failed ("retrying").
    host = Host(binary, folder, "metrics-cam", ["--http", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--rtsp", "127.0.0.1:0"],
                quiet=False)
    reader = viewer = page_socket = None
    try:
        metrics_url = host.line("metrics ").split(" ", 1)[1]
        page = host.line("camera screen ").split(" ")[-1]
        page_port = int(page.rstrip("/").rsplit(":", 1)[1])
        rtsp = host.line("rtsp ").split(" ", 1)[1]
        host.line("running ")
        host.command("wait 5")
        status, kind, before, types = scrape(metrics_url)
        check(status == 200 and kind is not None and kind.startswith("text/plain; version=0.0.4"), f"/metrics answers 200 {kind}")
        check(value(before, "swiftcam_status", status="configured") == 1 and value(before, "swiftcam_status", status="failed") == 0,
              "status: configured is 1, the others 0")
        check(value(before, "swiftcam_viewers", kind="mjpeg") == 0 and value(before, "swiftcam_recording_active") == 0,
              "no viewer and no recording yet")
        check(types.get("swiftcam_frames_in") == "counter" and types.get("swiftcam_filter_duration_seconds") == "summary"
              and types.get("swiftcam_status") == "gauge", "types: counter, summary, gauge")
        check(urllib.request.urlopen(page + "metrics", timeout=SAFETY).status == 200, "the page's server serves /metrics too")
        try:
            urllib.request.urlopen(metrics_url.removesuffix("metrics"), timeout=SAFETY)
            check(False, "the metrics-only server refuses the page")
        except urllib.error.HTTPError as error:
            check(error.code == 404, f"the metrics-only server answers the page with 404 ({error.code})")

        snap = host.command("snap")
        host.command("record start")
        viewer = first_jpeg(page_port)
        page_socket = watching_page(page_port)
        reader = rtsp_reader(rtsp)
        host.command("wait 30")
        _, _, during, _ = scrape(metrics_url)
        _, _, page_during, _ = scrape(page + "metrics")
        for metric in expected:
            check(present(during, metric) and present(page_during, metric), f"{metric} is on both servers")
        moved = {
            "swiftcam_frames_in_total": during[("swiftcam_frames_in_total", ())] >= before[("swiftcam_frames_in_total", ())] + 30,
            "swiftcam_frames_out_total": during[("swiftcam_frames_out_total", ())] >= before[("swiftcam_frames_out_total", ())] + 30,
            "swiftcam_filter_duration_seconds": during[("swiftcam_filter_duration_seconds_count", ())]
            >= before[("swiftcam_filter_duration_seconds_count", ())] + 30
            and during[("swiftcam_filter_duration_seconds_sum", ())] > before[("swiftcam_filter_duration_seconds_sum", ())],
            "swiftcam_filter_slowest_frame_seconds": during[("swiftcam_filter_slowest_frame_seconds", ())] > 0,
            "swiftcam_uptime_seconds": during[("swiftcam_uptime_seconds", ())] > before[("swiftcam_uptime_seconds", ())],
            "swiftcam_stills_total": during[("swiftcam_stills_total", ())] == before[("swiftcam_stills_total", ())] + 1,
            "swiftcam_storage_used_bytes": during[("swiftcam_storage_used_bytes", ())]
            >= before[("swiftcam_storage_used_bytes", ())] + os.path.getsize(os.path.join(folder, snap.split(" ", 1)[1])),
            "swiftcam_recording_active": value(during, "swiftcam_recording_active") == 1,
            "swiftcam_recording_bytes_total": value(during, "swiftcam_recording_bytes_total") > 0,
            "swiftcam_viewers": value(during, "swiftcam_viewers", kind="mjpeg") == 1
            and value(during, "swiftcam_viewers", kind="webrtc") == 1,
            "swiftcam_encoder_info": all(any(n == "swiftcam_encoder_info" and dict(l).get("use") == use and dict(l).get("element")
                                             for n, l in during) for use in ("record", "mjpeg", "video"))
            and not any(n == "swiftcam_encoder_info" and dict(l).get("use") == "record" for n, l in before),
            "swiftcam_webrtc_viewers": value(during, "swiftcam_webrtc_viewers", codec="negotiating") == 1
            and value(before, "swiftcam_webrtc_viewers", codec="negotiating") is None,
            "swiftcam_live_keyframes_forced_total": value(during, "swiftcam_live_keyframes_forced_total", stream="video")
            > value(before, "swiftcam_live_keyframes_forced_total", stream="video"),
            "swiftcam_publish_state": value(during, "swiftcam_publish_state", output="rtsp", state="serving") == 1,
            "swiftcam_publish_clients": value(during, "swiftcam_publish_clients", output="rtsp") >= 1
            and value(before, "swiftcam_publish_clients", output="rtsp") == 0,
            "swiftcam_publish_frames_total": value(during, "swiftcam_publish_frames_total", output="rtsp")
            > value(before, "swiftcam_publish_frames_total", output="rtsp"),
        }
        for metric, ok in moved.items():
            check(ok, f"{metric} moved with its cause")

        recorded = host.command("record stop").split(" ", 2)[2]
        _, _, after, _ = scrape(metrics_url)
        moved["swiftcam_recordings_total"] = value(after, "swiftcam_recordings_total") == value(during, "swiftcam_recordings_total") + 1
        check(moved["swiftcam_recordings_total"], "swiftcam_recordings_total moved with a finished recording")
        size = os.path.getsize(os.path.join(folder, recorded))
        check(value(after, "swiftcam_recording_bytes_total") == size and value(after, "swiftcam_recording_active") == 0,
              f"swiftcam_recording_bytes_total is the finished file's size ({size} bytes)")
        check(value(after, "swiftcam_storage_free_bytes") > 0, "swiftcam_storage_free_bytes is read")
        host.line("stats ", containing="push rtsp://127.0.0.1:9/none retrying")
        _, _, pushing, _ = scrape(metrics_url)
        moved["swiftcam_publish_failures_total"] = value(pushing, "swiftcam_publish_failures_total", output="push") >= 1
        check(moved["swiftcam_publish_failures_total"] and value(before, "swiftcam_publish_failures_total", output="push") is not None,
              "swiftcam_publish_failures_total moved with a failed push")
        push_states = [value(pushing, "swiftcam_publish_state", output="push", state=state) for state in ("connecting", "connected", "retrying")]
        check(sorted(push_states) == [0, 0, 1] and push_states[1] == 0, f"the push is connecting or retrying, never connected ({push_states})")
        return set(moved)
    finally:
        if viewer:
            viewer.close()
        if page_socket:
            page_socket.close()
        if reader:
            reader.terminate()
            reader.wait()
        check(host.stop("quit") == 0, "the first host exits 0")


def budget_host(binary, folder):
    """Segments and deletions under a storage budget on a tmpfs; free bytes as the file system says."""
    budget = os.path.join(folder, "budget")
    os.makedirs(budget)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={BUDGET_TMPFS}", "budget", budget], capture_output=True, text=True)
    if mounted.returncode != 0:
        raise SystemExit(f"FAIL: cannot mount a tmpfs for the storage budget (run as root, as scripts/test.sh does): {mounted.stderr.strip()}")
    host = None
    try:
        write_config(folder, "metrics-budget", '{ "kind": "test", "pattern": "snow" }',
                     ', "storage": { "maxBytes": "1M" }')
        with open(os.path.join(folder, "pipelines", "metrics-budget.json")) as config:
            text = config.read()
        # Recordings in one-second segments, stills and recordings on the tmpfs.
        text = text.replace('"directory": "captures"', f'"directory": "{budget}/captures"')
        text = text.replace('"directory": "recordings" }', f'"directory": "{budget}/recordings", "segment": 1 }}')
        with open(os.path.join(folder, "pipelines", "metrics-budget.json"), "w") as config:
            config.write(text)
        host = Host(binary, folder, "metrics-budget", ["--metrics", "127.0.0.1:0"])
        metrics_url = host.line("metrics ").split(" ", 1)[1]
        host.line("running ")
        # The budget is checked at the start and every 2 s.
        host.command("wait 5")
        _, _, before, _ = scrape(metrics_url)
        free = value(before, "swiftcam_storage_free_bytes")
        stat = os.statvfs(budget)
        check(free is not None and abs(free - stat.f_bavail * stat.f_frsize) <= (256 << 10),
              f"swiftcam_storage_free_bytes is the tmpfs's free space ({free} against {stat.f_bavail * stat.f_frsize})")
        # 8 MiB beside the captures, then frames for more than a check's interval (3 s at 30 fps).
        with open(os.path.join(budget, "other-program.bin"), "wb") as other:
            other.write(os.urandom(8 << 20))
        host.command("wait 90")
        _, _, written, _ = scrape(metrics_url)
        moved = {"swiftcam_storage_free_bytes": value(written, "swiftcam_storage_free_bytes") <= free - (8 << 20) + (256 << 10)}
        check(moved["swiftcam_storage_free_bytes"], "swiftcam_storage_free_bytes fell by the 8 MiB another program wrote "
              f"({free} → {value(written, 'swiftcam_storage_free_bytes')})")
        check(value(before, "swiftcam_recording_segments_total") == 0 and value(before, "swiftcam_storage_deletions_total") == 0,
              "no segment and no deletion before recording")
        host.command("record start")
        # Snow in MJPEG is about a megabyte a second: over the 1M budget within a few segments.
        host.line("storage: deleted ")
        host.command("wait 30")
        host.command("record stop")
        _, _, after, _ = scrape(metrics_url)
        moved["swiftcam_recording_segments_total"] = value(after, "swiftcam_recording_segments_total") >= 2
        moved["swiftcam_storage_deletions_total"] = value(after, "swiftcam_storage_deletions_total") >= 1
        check(moved["swiftcam_recording_segments_total"],
              f"swiftcam_recording_segments_total moved with one-second segments ({value(after, 'swiftcam_recording_segments_total')})")
        check(moved["swiftcam_storage_deletions_total"],
              f"swiftcam_storage_deletions_total moved with the budget's deletions ({value(after, 'swiftcam_storage_deletions_total')})")
        return set(moved)
    finally:
        if host:
            check(host.stop("quit") == 0, "the budget host exits 0")
        subprocess.run(["umount", budget], check=False)


def analysis_host(binary, folder):
    """Motion analysis on a moving ball, with recordings on events: analysed frames, events and the pre-roll ring."""
    write_config(folder, "metrics-motion", '{ "kind": "test", "pattern": "ball" }',
                 ', "analyze": [{ "motion": {} }], "triggers": { "record": { "on": "motion", "preRoll": 1, "postRoll": 1,'
                 ' "directory": "events" } }')
    host = Host(binary, folder, "metrics-motion", ["--metrics", "127.0.0.1:0"], quiet=False)
    try:
        metrics_url = host.line("metrics ").split(" ", 1)[1]
        host.command("wait 5")
        _, _, before, _ = scrape(metrics_url)
        host.command("wait 60")
        # The ball moves from the first frame: its start may have been printed while a reply was awaited.
        if not any(line.startswith("event motion start") for line in host.seen):
            host.line("event motion start")
        _, _, after, _ = scrape(metrics_url)
        analysed = ("swiftcam_analysis_frames_total", (("analyzer", "motion"), ("outcome", "analysed")))
        moved = {
            "swiftcam_analysis_frames_total": after.get(analysed, 0) >= before.get(analysed, 0) + 30,
            # The start comes with the first frames, before any scrape: the counter holds every start the host printed.
            "swiftcam_events_total": (value(after, "swiftcam_events_total", event="motion start") or 0)
            == sum(line.startswith("event motion start") for line in host.seen) >= 1,
            "swiftcam_preroll_bytes": (value(after, "swiftcam_preroll_bytes") or 0) > 0,
        }
        check(moved["swiftcam_analysis_frames_total"], f"swiftcam_analysis_frames_total moved with analysed frames "
              f"({before.get(analysed)} → {after.get(analysed)})")
        check(moved["swiftcam_events_total"], "swiftcam_events_total moved with a motion start")
        check(moved["swiftcam_preroll_bytes"], f"swiftcam_preroll_bytes holds the ring ({value(after, 'swiftcam_preroll_bytes')})")
        return {metric for metric, ok in moved.items() if ok}, after
    finally:
        check(host.stop("quit") == 0, "the motion host exits 0")


def missing_camera_host(binary, folder):
    write_config(folder, "metrics-missing", '{ "kind": "v4l2", "device": "/dev/video-metrics-none" }')
    token = "metrics-token-1234"
    host = Host(binary, folder, "metrics-missing", ["--http", "127.0.0.1:0", "--token", token, "--metrics", "127.0.0.1:0"])
    try:
        metrics_url = host.line("metrics ").split(" ", 1)[1]
        page = host.line("camera screen ").split(" ")[-1].split("?")[0]
        _, _, samples, _ = scrape(metrics_url)
        check(value(samples, "swiftcam_status", status="unconfigured") == 1
              and value(samples, "swiftcam_status", status="configured") == 0, "status moved: a missing camera is unconfigured")
        check(scrape(page + "metrics")[0] == 401, "the page's /metrics wants the token")
        status, _, samples, _ = scrape(page + "metrics", {"Authorization": f"Bearer {token}"})
        check(status == 200 and value(samples, "swiftcam_status", status="unconfigured") == 1, "with the bearer token it answers")
        return {"swiftcam_status"}
    finally:
        host.stop("term")


def metrics_only_host(binary, folder):
    """`--metrics` alone keeps serving the status of a camera that is missing, until SIGTERM."""
    host = Host(binary, folder, "metrics-missing", ["--metrics", "127.0.0.1:0"])
    try:
        metrics_url = host.line("metrics ").split(" ", 1)[1]
        _, _, samples, _ = scrape(metrics_url)
        check(value(samples, "swiftcam_status", status="unconfigured") == 1, "--metrics alone stays up and says unconfigured")
    finally:
        check(host.stop("term") == 69, "it exits 69 (unavailable) once stopped")


def taken_port_host(binary, folder):
    """`--metrics` on a port another program holds: one line naming /metrics and the address, exit 69."""
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    try:
        env = dict(os.environ, SWIFTCAM_PIPELINES=os.path.join(folder, "pipelines"))
        run = subprocess.run([binary, "run", "metrics-cam", "--quiet", "--no-control", "--metrics", f"127.0.0.1:{port}"], cwd=folder,
                             env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=SAFETY)
        check(run.returncode == 69 and f"cannot serve /metrics on 127.0.0.1:{port}" in run.stderr,
              f"a taken port is refused in one line, exit 69 ({run.returncode}: {run.stderr.strip()})")
    finally:
        holder.close()


def main():
    binary = sys.argv[1]
    expected = documented_metrics()
    os.makedirs(os.path.join(ROOT, ".build"), exist_ok=True)
    folder = tempfile.mkdtemp(prefix="metrics-test.", dir=os.path.join(ROOT, ".build"))
    try:
        analysed, analysis_samples = analysis_host(binary, folder)
        for metric in ANALYSIS_ONLY:
            check(present(analysis_samples, metric), f"{metric} is on the host with analysers")
        moved = (running_host(binary, folder, [m for m in expected if m not in ANALYSIS_ONLY]) | budget_host(binary, folder)
                 | analysed | missing_camera_host(binary, folder))
        metrics_only_host(binary, folder)
        taken_port_host(binary, folder)
        for metric in expected:
            check(metric in moved or metric in MOVED_BY_THE_FAULT_MATRIX, f"{metric} moves in this test or in the fault matrix")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if failures:
        print(f"FAIL: {len(failures)} metrics checks failed")
        sys.exit(1)
    print(f"ok: /metrics parsed by prometheus-client; {len(expected)} documented metrics present and moving")


if __name__ == "__main__":
    main()
