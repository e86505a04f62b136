#!/usr/bin/env python3
"""soak.py - run one `swiftcam run` for SOAK_MINUTES under a steady load and check that nothing leaks,
nothing is lost and the source keeps its rate. Started by scripts/soak.sh (`make soak`).

The load, paced by this script's monotonic clock (that clock is the load, not a wait for an event):
  - a still every second (`snap`),
  - a filter change every 100 ms (`filter CHAIN`, cycling through chains of every kind of kernel),
  - a recording started and stopped every minute (`record start` at +1 s, `record stop` at +59 s).
Each load runs on its own connection to the control socket, so a slow still never delays a filter change.

Every minute it prints the process's RSS, the stills and recordings so far and the source frame rate.
It fails (exit 1) when
  - RSS grows more than SOAK_RSS_MB (5) MB after the warm-up (the first 5 minutes; half the run when shorter),
  - any still or recording is missing or does not decode (stills: every pixel, with PIL; recordings: demuxed
    and decoded to the end with gst-launch-1.0, and as long as they were recorded, within 2 s),
  - any command is refused, or
  - the source frame rate of any minute falls below 95 % of the config's.
"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

FILTERS = [
    "sepia",
    "mono",
    "sepia intensity=0.5 | vignette radius=2",
    "colorcontrols contrast=1.2 saturation=0.8",
    "invert",
    "blur radius=2",
    "exposure ev=0.5 | temperature kelvin=4500",
    "posterize levels=4",
    "zoom factor=1.5",
    "none",
]


def log(text):
    print(text, flush=True)


class Control:
    """One connection to the session's control socket: one command line, one reply line."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.sock.settimeout(60)
        self.pending = b""

    def send(self, command):
        self.sock.sendall(command.encode() + b"\n")
        while b"\n" not in self.pending:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the session closed the control connection")
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line.decode(errors="replace")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    minutes = int(os.environ.get("SOAK_MINUTES", "30"))
    swiftcam = os.environ["SOAK_SWIFTCAM"]
    config = os.environ["SOAK_CONFIG"]
    out_dir = os.environ["SOAK_DIR"]
    fps = float(os.environ["SOAK_FPS"])
    rss_limit_mb = float(os.environ.get("SOAK_RSS_MB", "5"))
    warmup = min(5, max(1, minutes // 2))
    if minutes < 1:
        log("soak: SOAK_MINUTES must be at least 1")
        return 2
    stills_dir, record_dir = f"{out_dir}/stills", f"{out_dir}/recordings"
    name = os.path.basename(config)[:-5] if config.endswith(".json") else config
    runtime = f"{out_dir}/runtime"
    os.makedirs(runtime, mode=0o700, exist_ok=True)
    env = dict(os.environ, XDG_RUNTIME_DIR=runtime)
    command = [swiftcam, "run", config, "--quiet",
               "--set", f"still.directory={stills_dir}", "--set", "still.pattern=soak-{n}",
               "--set", f"record.directory={record_dir}"]
    for assignment in os.environ.get("SOAK_SET", "").split():
        command += ["--set", assignment]
    log(f"soak: {' '.join(command)}")
    log(f"soak: {minutes} min; a still every 1 s, a filter change every 100 ms, a recording every minute;"
        f" RSS may grow at most {rss_limit_mb:g} MB after minute {warmup}; source at least 95 % of {fps:g} fps")
    session_log = open(f"{out_dir}/session.log", "w")
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    socket_path = None
    for line in child.stdout:
        session_log.write(line)
        if line.startswith("control socket "):
            socket_path = line[len("control socket "):].strip()
            break
    if not socket_path:
        log("soak: FAIL swiftcam run never opened its control socket; see session.log")
        return 1
    threading.Thread(target=lambda: [session_log.write(l) or session_log.flush() for l in child.stdout], daemon=True).start()

    failures = []
    lock = threading.Lock()
    counts = {"stills": 0, "filters": 0, "recordings": 0}
    stills, recordings = [], []
    stop = threading.Event()
    start = time.monotonic()
    end = start + minutes * 60

    def fail(text):
        with lock:
            failures.append(text)
        log(f"soak: FAIL {text}")

    def paced(period, offset, action):
        """Calls action(k) at start + offset + k * period until the end, on its own connection."""
        try:
            control = Control(socket_path)
            k = 0
            while not stop.is_set():
                due = start + offset + k * period
                if due >= end:
                    return
                delay = due - time.monotonic()
                if delay > 0 and stop.wait(delay):
                    return
                action(control, k)
                k += 1
        except Exception as error:  # a dead session ends the soak
            fail(f"control connection: {error}")
            stop.set()

    def snap(control, k):
        reply = control.send("snap")
        if reply.startswith("ok "):
            with lock:
                stills.append(reply[3:])
                counts["stills"] += 1
        else:
            fail(f"snap {k}: {reply}")

    def change_filter(control, k):
        reply = control.send(f"filter {FILTERS[k % len(FILTERS)]}")
        if reply.startswith("ok "):
            with lock:
                counts["filters"] += 1
        else:
            fail(f"filter {FILTERS[k % len(FILTERS)]}: {reply}")

    def minute_cycle():
        """Each minute: `record start` at +1 s, `record stop` at +59 s, then the minute's line. RSS is read
        right after the stop, when no recording pipeline exists, so every minute is sampled at the same point
        of the load's cycle (a recording's encoder is several MB while it runs)."""
        previous = json.loads(control_stats.send("stats --json")[3:])
        previous_time = time.monotonic()
        control = Control(socket_path)
        for minute in range(1, minutes + 1):
            if stop.wait(max(0, start + (minute - 1) * 60 + 1 - time.monotonic())):
                return
            reply = control.send("record start")
            if not reply.startswith("ok recording "):
                fail(f"record start: {reply}")
                continue
            path, began = reply[len("ok recording "):], time.monotonic()
            if stop.wait(max(0, start + (minute - 1) * 60 + 59 - time.monotonic())):
                return
            asked = time.monotonic()
            reply = control.send("record stop")
            answered = time.monotonic()
            if reply.startswith("ok recorded "):
                with lock:
                    recordings.append((path, asked - began, answered - asked))
                    counts["recordings"] += 1
            else:
                fail(f"record stop: {reply}")
            stats = json.loads(control_stats.send("stats --json")[3:])
            now = time.monotonic()
            source_fps = (stats["framesIn"] - previous["framesIn"]) / (now - previous_time)
            previous, previous_time = stats, now
            kib = rss_kib(child.pid)
            rss.append(kib)
            with lock:
                summary = dict(counts)
            share = source_fps / fps
            log(f"minute {minute:3d}: RSS {kib / 1024:7.1f} MB ({(kib - rss[0]) / 1024:+5.1f} since minute 1)"
                f"  source {source_fps:5.1f} fps ({share * 100:5.1f} %)  stills {summary['stills']}"
                f"  filter changes {summary['filters']}  recordings {summary['recordings']} (stop took {answered - asked:.1f} s)"
                f"  drops queue {stats['queueDrops']} qos {stats['qosDrops']}  status {stats['status']}")
            if share < 0.95:
                fail(f"minute {minute}: source at {source_fps:.1f} fps, below 95 % of {fps:g}")
            if stats["status"] != "configured":
                fail(f"minute {minute}: status {stats['status']}")

    control_stats = Control(socket_path)
    rss = []
    threads = [threading.Thread(target=paced, args=(1.0, 0.5, snap), daemon=True),
               threading.Thread(target=paced, args=(0.1, 0.05, change_filter), daemon=True)]
    for thread in threads:
        thread.start()
    try:
        minute_cycle()
    except Exception as error:
        fail(f"control connection: {error}")
    time.sleep(max(0, end - time.monotonic()))  # the last still is due half a second before the end
    stop.set()
    for thread in threads:
        thread.join(timeout=90)
    final_stats = control_stats.send("stats")
    child.stdin.write("quit\n")
    child.stdin.flush()
    try:
        status = child.wait(timeout=60)
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGKILL)
        status = child.wait()
    if status != 0:
        fail(f"swiftcam run exited {status}")

    # RSS after the warm-up.
    if len(rss) > warmup:
        growth = (max(rss[warmup:]) - rss[warmup - 1]) / 1024
        log(f"soak: RSS {rss[warmup - 1] / 1024:.1f} MB after minute {warmup}, at most {max(rss[warmup:]) / 1024:.1f} MB"
            f" later: {growth:+.1f} MB (limit {rss_limit_mb:g})"
            + ("" if warmup == 5 else f"; warm-up shortened to {warmup} min for a {minutes}-min run"))
        if growth > rss_limit_mb:
            fail(f"RSS grew {growth:.1f} MB after minute {warmup}")

    # Every still decodes, every pixel.
    from PIL import Image
    bad = []
    for path in stills:
        try:
            with Image.open(path) as image:
                image.load()
        except Exception as error:
            bad.append(f"{path}: {error}")
    on_disk = len([f for f in os.listdir(stills_dir) if f.endswith(".jpg")]) if os.path.isdir(stills_dir) else 0
    log(f"soak: stills: {len(stills)} answered ok, {on_disk} on disk, {len(stills) - len(bad)} decode")
    for line in bad[:10]:
        fail(f"still does not decode: {line}")
    if on_disk != len(stills):
        fail(f"{len(stills)} stills answered ok but {on_disk} are on disk")
    expected_stills = minutes * 60
    if len(stills) < expected_stills:
        fail(f"{len(stills)} stills of {expected_stills}")

    # Every recording decodes to its end and is as long as it was recorded.
    for path, wall, stop_took in recordings:
        decode = subprocess.run(["gst-launch-1.0", "-q", "filesrc", f"location={path}", "!", "matroskademux", "!",
                                 "decodebin", "!", "fakesink"], capture_output=True, text=True)
        info = subprocess.run(["gst-discoverer-1.0", path], capture_output=True, text=True).stdout
        match = re.search(r"Duration: (\d+):(\d+):([\d.]+)", info)
        seconds = int(match[1]) * 3600 + int(match[2]) * 60 + float(match[3]) if match else 0
        log(f"soak: {os.path.basename(path)}: decodes {'yes' if decode.returncode == 0 else 'NO'},"
            f" {seconds:.1f} s of {wall:.1f} s recorded; record stop answered in {stop_took:.1f} s")
        if decode.returncode != 0:
            fail(f"{path} does not decode: {(decode.stderr or decode.stdout).strip()[:200]}")
        if abs(seconds - wall) > 2:
            fail(f"{path} is {seconds:.1f} s long, recorded for {wall:.1f} s")
    if len(recordings) != minutes:
        fail(f"{len(recordings)} recordings of {minutes}")

    log(f"soak: final {final_stats}")
    log(f"soak: RSS curve (MB, minute 1..{len(rss)}): " + " ".join(f"{kib / 1024:.1f}" for kib in rss))
    log(f"soak: {len(stills)} stills, {counts['filters']} filter changes, {counts['recordings']} recordings in {minutes} min")
    if failures:
        log(f"soak: FAILED ({len(failures)} problems; session output in {out_dir}/session.log)")
        return 1
    log("soak: PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
