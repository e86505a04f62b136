#!/usr/bin/env python3
"""The camera's CPU with 1, 5 and 10 WebRTC viewers, through Janus and through its own webrtcbin path, in one run
(make load-janus): Debian's Janus and the release host in this network namespace, the viewers in a second one joined
by a veth pair (scripts/two_hosts.py; Janus gathers no candidates on lo). The viewers are peer connections of one
headless Chromium, each signalled over the page's own WebSocket like the page (`watch` with `codecs: ["H264"]`), so
the host hands them to Janus when the config names one and serves them itself when not.

For each number of viewers, once every viewer has decoded frames: the CPU of the host and of Janus over
JANUS_LOAD_SECONDS (15) from /proc (user + system), and the RTP packets the viewers received meanwhile. The marginal
cost of a viewer's packet is (CPU with 10 viewers - CPU with 1) / (packets with 10 - packets with 1): Janus's per
packet beside webrtcbin's. Prints a Markdown table (docs/benchmarks.md keeps one).

Run as root inside a network and mount namespace of its own (`unshare --net --mount --pid --fork --mount-proc`).
Usage:
    janus_load.py SWIFTCAM
    janus_load.py --viewers URL CERTIFICATE   (inside the viewers' namespace: a line protocol on stdin/stdout)
"""
import json
import os
import subprocess
import sys
import time

from browser_drivers import Chromium
from janus_page_test import Janus
from two_hosts import SAFETY, TwoHosts

STEPS = (1, 5, 10)
SECONDS = float(os.environ.get("JANUS_LOAD_SECONDS", "15"))
TICKS = os.sysconf("SC_CLK_TCK")

# Opens `arguments[0]` viewers more (page-style signalling on the WebSocket at `arguments[1]`, H.264 asked for), keeping them in window.viewers;
# resolves once every viewer has decoded a frame.
OPEN = """
const [count, address, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
window.viewers = window.viewers || [];
function open() {
  const socket = new WebSocket(address);
  const peer = new RTCPeerConnection({ iceServers: [] });
  const viewer = { socket, peer, via: null };
  peer.onicecandidate = (e) => {
    if (e.candidate) socket.send(JSON.stringify({ type: 'ice', candidate: e.candidate.candidate, sdpMLineIndex: e.candidate.sdpMLineIndex }));
  };
  let watching = false;
  socket.onmessage = async (event) => {
    const message = JSON.parse(event.data);
    if (message.type === 'state' && !watching) { watching = true; socket.send(JSON.stringify({ type: 'watch', codecs: ['H264'] })); }
    else if (message.type === 'offer') {
      viewer.via = message.via || 'host';
      await peer.setRemoteDescription({ type: 'offer', sdp: message.sdp });
      const answer = await peer.createAnswer();
      await peer.setLocalDescription(answer);
      socket.send(JSON.stringify({ type: 'answer', sdp: answer.sdp }));
    } else if (message.type === 'ice') peer.addIceCandidate({ candidate: message.candidate, sdpMLineIndex: message.sdpMLineIndex }).catch(() => {});
  };
  viewer.ping = setInterval(() => socket.readyState === 1 && socket.send('{"type":"ping"}'), 5000);
  window.viewers.push(viewer);
}
for (let i = 0; i < count; i++) open();
const check = async () => {
  let decoding = 0;
  for (const viewer of window.viewers) {
    for (const report of (await viewer.peer.getStats()).values()) {
      if (report.type === 'inbound-rtp' && report.kind === 'video' && report.framesDecoded > 0) decoding++;
    }
  }
  if (decoding === window.viewers.length) done(window.viewers.map((v) => v.via));
  else setTimeout(check, 100);
};
check();
"""

# Resolves with the RTP packets every viewer has received so far, in all.
PACKETS = """
const done = arguments[arguments.length - 1];
Promise.all(window.viewers.map(async (viewer) => {
  let packets = 0;
  for (const report of (await viewer.peer.getStats()).values()) {
    if (report.type === 'inbound-rtp' && report.kind === 'video') packets += report.packetsReceived || 0;
  }
  return packets;
})).then((counts) => done(counts.reduce((a, b) => a + b, 0)));
"""


def viewers(url, certificate):
    """Inside the viewers' namespace: opens the page's origin (its token kept), then on each `open N` line from stdin
    opens viewers until there are N and prints `ready VIA`; on `packets`, prints the packets received; `quit` ends."""
    driver = Chromium(certificate=certificate)
    try:
        driver.navigate(url)
        # The page's own viewer would count among them: its origin is kept, the app not run.
        driver.navigate(url.split("?")[0] + "api/status")
        have = 0
        for line in sys.stdin:
            command = line.split()
            if command[0] == "open":
                wanted = int(command[1])
                socket = url.split("?")[0].replace("https://", "wss://").replace("http://", "ws://") + "ws"
                via = driver.run_async(OPEN, [wanted - have, socket])
                have = wanted
                print("ready " + json.dumps(via), flush=True)
            elif command[0] == "packets":
                print(f"packets {driver.run_async(PACKETS)}", flush=True)
            else:
                break
    finally:
        driver.close()


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def measure(hosts, janus, binary, config, label):
    """Runs the host on `config`, opens 1, 5, 10 viewers; per step the host's and Janus's CPU (cores) and the packets a
    second the viewers received."""
    url = hosts.start_camera(binary, config=config)
    host_pid = hosts.camera.pid
    command = ["ip", "netns", "exec", hosts.namespace, sys.executable, os.path.abspath(__file__), "--viewers", url, hosts.certificate]
    browser = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    rows = []
    try:
        for count in STEPS:
            browser.stdin.write(f"open {count}\n")
            browser.stdin.flush()
            ready = browser.stdout.readline()
            if not ready.startswith("ready "):
                raise SystemExit(f"FAIL: {label}: {count} viewers did not all play ({ready.strip() or 'the browser ended'})")
            via = json.loads(ready[len("ready "):])
            browser.stdin.write("packets\n")
            browser.stdin.flush()
            packets_before = int(browser.stdout.readline().split()[1])
            host_before, janus_before, started = cpu_seconds(host_pid), cpu_seconds(janus.process.pid), time.monotonic()
            time.sleep(SECONDS)  # the measuring window
            host_after, janus_after, elapsed = cpu_seconds(host_pid), cpu_seconds(janus.process.pid), time.monotonic() - started
            browser.stdin.write("packets\n")
            browser.stdin.flush()
            packets_after = int(browser.stdout.readline().split()[1])
            rows.append({"viewers": count, "via": sorted(set(via)), "host": (host_after - host_before) / elapsed,
                         "janus": (janus_after - janus_before) / elapsed, "packets": (packets_after - packets_before) / elapsed})
            print(f"{label}: {count} viewers via {sorted(set(via))}: host {rows[-1]['host']:.3f} cores, "
                  f"Janus {rows[-1]['janus']:.3f} cores, {rows[-1]['packets']:.0f} packets/s received", flush=True)
        browser.stdin.write("quit\n")
        browser.stdin.flush()
        browser.wait(timeout=SAFETY)
    finally:
        if browser.poll() is None:
            browser.kill()
        hosts.stop_camera()
    return rows


def marginal(rows, key):
    """µs of `key`'s CPU per RTP packet a viewer received, between the first and last steps."""
    first, last = rows[0], rows[-1]
    return (last[key] - first[key]) / max(last["packets"] - first["packets"], 1) * 1e6


def main():
    binary = sys.argv[1]
    with TwoHosts() as hosts:
        janus = Janus(os.path.join(hosts.scratch, "janus"))
        try:
            base = {"sources": [{"kind": "test", "pattern": "smpte"}],
                    "caps": {"width": 640, "height": 480, "framerate": "30/1", "format": "I420"}, "preview": "none"}
            configs = {}
            for label, extra in (("janus", {"publish": {"janus": {"api": janus.api, "mountpoint": 9}}}), ("webrtcbin", {})):
                configs[label] = os.path.join(hosts.scratch, f"load-{label}.json")
                with open(configs[label], "w") as file:
                    json.dump(dict(base, **extra), file)
            through = measure(hosts, janus, binary, configs["janus"], "through Janus")
            own = measure(hosts, janus, binary, configs["webrtcbin"], "own webrtcbin")
        finally:
            janus.stop()
    if any(row["via"] != [f"Janus {janus.api}"] for row in through) or any(row["via"] != ["host"] for row in own):
        raise SystemExit(f"FAIL: viewers not where asked: {[r['via'] for r in through]} / {[r['via'] for r in own]}")
    print()
    print(f"640x480@30 H.264 (smpte), {os.cpu_count()} cores, {SECONDS:.0f} s a step; CPU in cores (1.00 = one core busy)")
    print()
    print("| viewers | SwiftCam, through Janus | Janus | SwiftCam + Janus | SwiftCam, own webrtcbin | packets/s received (Janus / own) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for a, b in zip(through, own):
        print(f"| {a['viewers']} | {a['host']:.3f} | {a['janus']:.3f} | {a['host'] + a['janus']:.3f} | {b['host']:.3f} "
              f"| {a['packets']:.0f} / {b['packets']:.0f} |")
    print()
    print(f"A viewer's RTP packet, marginal (10 viewers less 1): Janus {marginal(through, 'janus'):.1f} µs, "
          f"SwiftCam through Janus {marginal(through, 'host'):.1f} µs, SwiftCam's own webrtcbin {marginal(own, 'host'):.1f} µs")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--viewers":
        viewers(sys.argv[2], sys.argv[3])
    else:
        main()
