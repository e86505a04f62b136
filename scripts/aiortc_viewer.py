"""An independent WebRTC client of the camera page's /ws signalling: aiortc (PyPI), not written for SwiftCam.

Usage: aiortc_viewer.py PORT watch SECONDS [passive|rsa-only]
                                                 one viewer: receives SECONDS of video after its first frame and prints
                                                 one JSON line: frames received, frames the stream's timestamps span
                                                 (at 30 fps), the colours of three SMPTE bars, and the DTLS handshake
                                                 (the suite, the camera's key type, its certificate's and the offer's
                                                 SHA-256 fingerprints); or the camera's error if it ends the viewer first.
                                                 `passive`: the answer makes the camera the DTLS client; `rsa-only`:
                                                 aiortc offers only ECDHE-RSA suites (see below)
       aiortc_viewer.py PORT hostile FILE…       for each file: a page that watches, gets its offer and sends the file's
                                                 bytes as one text message; then a normal page that must get an offer.
                                                 Prints one JSON line per file: the reply (if any) and whether served.

aiortc is used unpatched; one setting, for its loopback use:
- aioice gathers host candidates on every interface except 127.0.0.1, so in a network namespace whose only interface is
  lo it would offer none; its address list is replaced by ["127.0.0.1"] (aioice.ice.get_host_addresses, the function
  it asks).
Its answer goes back as aiortc wrote it: a=setup:active, so aiortc is the DTLS client and offers only ECDHE-ECDSA
suites, which the camera's ECDSA certificate serves. (Against an RSA-only camera this needed a=setup:passive in the
answer, making the camera the client; `passive` still asks for that role.) `rsa-only` replaces aiortc's suites with
ECDHE-RSA ones, a client the camera's certificate cannot serve: its handshake must fail, and the camera say so.
"""
import asyncio
import base64
import json
import os
import struct
import sys

import aioice.ice
from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.rtcdtlstransport import RTCCertificate, certificate_digest
from aiortc.sdp import candidate_from_sdp
from cryptography.hazmat.primitives.asymmetric import ec, rsa

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


def offer_only_rsa_suites():
    make_context = RTCCertificate._create_ssl_context

    def context(self, srtp_profiles):
        ctx = make_context(self, srtp_profiles)
        ctx.set_cipher_list(b"ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-SHA")
        return ctx
    RTCCertificate._create_ssl_context = context


def handshake(peer, offer):
    """The DTLS handshake as aiortc saw it: suite, the camera's key type, its certificate's and the offer's fingerprints."""
    dtls = peer.getTransceivers()[0].receiver.transport
    certificate = dtls._ssl.get_peer_certificate(as_cryptography=True)
    key = certificate.public_key()
    kind = (f"ECDSA {key.curve.name}" if isinstance(key, ec.EllipticCurvePublicKey)
            else f"RSA {key.key_size}" if isinstance(key, rsa.RSAPublicKey) else type(key).__name__)
    offered = [line.split(" ", 1)[1] for line in offer.splitlines() if line.startswith("a=fingerprint:sha-256 ")]
    return {"suite": dtls._ssl.get_cipher_name(), "key": kind, "certificate": certificate_digest(certificate, "sha-256"),
            "offered": offered}


async def watch(port, seconds, role):
    socket = await PageSocket.open(port)
    peer = RTCPeerConnection()
    first_frame = asyncio.get_running_loop().create_future()
    frames = []
    offers = []

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
                offers.append(message["sdp"])
                await peer.setRemoteDescription(RTCSessionDescription(sdp=message["sdp"], type="offer"))
                answer = await peer.createAnswer()
                sdp = answer.sdp.replace("a=setup:active", "a=setup:passive") if role == "passive" else answer.sdp
                await peer.setLocalDescription(RTCSessionDescription(sdp=sdp, type="answer"))
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
    print(json.dumps({"received": len(received), "spanned": spanned, "size": [width, height], "bars": bars,
                      "dtls": handshake(peer, offers[-1])}), flush=True)
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
        option = sys.argv[4] if len(sys.argv) > 4 else ""
        if option == "rsa-only":
            offer_only_rsa_suites()
        asyncio.run(watch(port, float(sys.argv[3]), "passive" if option == "passive" else "active"))
    elif mode == "hostile":
        asyncio.run(hostile(port, sys.argv[3:]))
    else:
        sys.exit("usage: aiortc_viewer.py PORT watch SECONDS [passive|rsa-only] | hostile FILE…")


main()
