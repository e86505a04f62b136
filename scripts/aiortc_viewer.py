"""An independent WebRTC client of the camera page's /ws signalling: aiortc (PyPI), not written for SwiftCam.

Usage: aiortc_viewer.py PORT watch SECONDS [active]
                                                 one viewer: receives SECONDS of video after its first frame and prints
                                                 one JSON line: frames received, frames the stream's timestamps span
                                                 (at 30 fps), and the colours of three SMPTE bars; or the camera's error
                                                 if it ends the viewer first. `active`: aiortc's own DTLS role (see below)
       aiortc_viewer.py PORT hostile FILE…       for each file: a page that watches, gets its offer and sends the file's
                                                 bytes as one text message; then a normal page that must get an offer.
                                                 Prints one JSON line per file: the reply (if any) and whether served.

aiortc is used unpatched, configured in two ways:
- Loopback: aioice gathers host candidates on every interface except 127.0.0.1, so in a network namespace whose only
  interface is lo it would offer none; its address list is replaced by ["127.0.0.1"] (aioice.ice.get_host_addresses,
  the function it asks).
- DTLS role: the answer says a=setup:passive, a choice RFC 5763 leaves to the answerer (aiortc picks active). aiortc
  offers only ECDHE-ECDSA cipher suites, and GStreamer 1.22's webrtcbin has only an RSA certificate: as the DTLS
  server the camera would have no suite to pick (the host reports that handshake as failed). As the client it
  needs none of its own kind: aiortc serves its ECDSA certificate and the camera checks it against the answer.
"""
import asyncio
import base64
import json
import os
import struct
import sys

import aioice.ice
from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.sdp import candidate_from_sdp

aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"] if use_ipv4 else []


class PageSocket:
    """RFC 6455 over asyncio streams: masked text frames out, frames in."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise RuntimeError(f"no WebSocket: {head[:80]!r}")
        return cls(reader, writer)

    def send(self, data: bytes):
        mask = os.urandom(4)
        n = len(data)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n)
                                if n < 65536 else bytes([0x80 | 127]) + struct.pack(">Q", n))
        self.writer.write(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    async def recv(self):
        """The next text message as a dict, or None when the host closed the socket."""
        while True:
            try:
                first, second = await self.reader.readexactly(2)
                n = second & 0x7f
                if n == 126:
                    n = struct.unpack(">H", await self.reader.readexactly(2))[0]
                elif n == 127:
                    n = struct.unpack(">Q", await self.reader.readexactly(8))[0]
                payload = await self.reader.readexactly(n)
            except (asyncio.IncompleteReadError, ConnectionError):
                return None
            opcode = first & 0x0f
            if opcode == 0x8:
                return None
            if opcode == 0x1:
                return json.loads(payload)

    async def next(self, kind, seconds=30):
        while True:
            message = await asyncio.wait_for(self.recv(), seconds)
            if message is None or message.get("type") == kind:
                return message

    def close(self):
        self.writer.close()


async def watch(port, seconds, role):
    socket = await PageSocket.open(port)
    peer = RTCPeerConnection()
    first_frame = asyncio.get_running_loop().create_future()
    frames = []

    @peer.on("track")
    def on_track(track):
        async def read():
            while True:
                try:
                    frame = await track.recv()
                except Exception:
                    return
                frames.append(frame.pts)
                if not first_frame.done():
                    first_frame.set_result(frame.to_ndarray(format="rgb24"))
        asyncio.ensure_future(read())

    async def signalling():
        while True:
            message = await socket.recv()
            if message is None:
                return
            if message["type"] == "offer":
                await peer.setRemoteDescription(RTCSessionDescription(sdp=message["sdp"], type="offer"))
                answer = await peer.createAnswer()
                await peer.setLocalDescription(RTCSessionDescription(sdp=answer.sdp.replace("a=setup:active", f"a=setup:{role}"), type="answer"))
                socket.send(json.dumps({"type": "answer", "sdp": peer.localDescription.sdp}).encode())
            elif message["type"] == "ice" and message.get("candidate"):
                candidate = candidate_from_sdp(message["candidate"].split(":", 1)[1])
                candidate.sdpMLineIndex = message.get("sdpMLineIndex", 0)
                await peer.addIceCandidate(candidate)
            elif message["type"] == "error":
                print(json.dumps({"error": message["error"]}), flush=True)
                if not first_frame.done():
                    first_frame.set_result(None)

    task = asyncio.ensure_future(signalling())
    socket.send(b'{"type":"watch"}')
    picture = await asyncio.wait_for(first_frame, 60)
    if picture is None:   # the camera ended the viewer (its error is printed)
        task.cancel()
        await peer.close()
        socket.close()
        return
    # The span is counted in frames' own timestamps (90 kHz), not in wall time: frames lost are frames missing there.
    start = len(frames)
    await asyncio.sleep(seconds)   # the measurement window: a span of stream, whatever the machine's load
    received = frames[start:]
    spanned = round((received[-1] - received[0]) / 90000 * 30) + 1 if len(received) > 1 else 0
    height, width, _ = picture.shape
    bars = {name: [int(v) for v in picture[int(0.3 * height), int(x * width)]]
            for name, x in (("white", 1 / 14), ("yellow", 3 / 14), ("cyan", 5 / 14))}
    print(json.dumps({"received": len(received), "spanned": spanned, "size": [width, height], "bars": bars}), flush=True)
    task.cancel()
    await peer.close()
    socket.close()


async def hostile(port, paths):
    for path in paths:
        with open(path, "rb") as file:
            data = file.read()
        socket = await PageSocket.open(port)
        socket.send(b'{"type":"watch"}')
        offer = await socket.next("offer")
        socket.send(data)
        # Messages are read in order: a marker that is always refused comes back after the message's own refusal (if
        # it has one that is told at once; an answer webrtcbin refuses is told later and may come after it).
        socket.send(b'{"type":"marker"}')
        replies = []
        while True:
            message = await socket.next("error")
            if message is None or "marker" in message.get("error", ""):
                break
            replies.append(message["error"])
        socket.close()
        normal = await PageSocket.open(port)
        normal.send(b'{"type":"watch"}')
        served = await normal.next("offer")
        normal.close()
        print(json.dumps({"file": os.path.basename(path), "offered": offer is not None,
                          "replies": replies, "alive": message is not None, "served": served is not None}), flush=True)


def main():
    port, mode = int(sys.argv[1]), sys.argv[2]
    if mode == "watch":
        asyncio.run(watch(port, float(sys.argv[3]), "active" if sys.argv[4:] == ["active"] else "passive"))
    elif mode == "hostile":
        asyncio.run(hostile(port, sys.argv[3:]))
    else:
        sys.exit("usage: aiortc_viewer.py PORT watch SECONDS [active] | hostile FILE…")


main()
