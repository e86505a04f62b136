"""SwiftCam's filters beside libyuv, ffmpeg (libavfilter) and OpenCV: 1080p, one thread, same frame.

Run through `make bench-anchors` (scripts/bench-anchors.sh installs ffmpeg, libyuv0 and a venv with
opencv-python-headless). Every anchor is timed in this one run, on the same synthetic natural-looking
frame SwiftCam reads (FILTERS_BENCH_INPUT): smooth gradients, edges and sensor-like noise.

SwiftCam and OpenCV/libyuv: best batch mean (filters-bench's rule; the machine may be shared).
ffmpeg: (wall time of N frames through the filter − the same through `null`) / N, best of two runs,
`-threads 1 -filter_threads 1`. Ratio = best anchor ms / SwiftCam ms: above 1, SwiftCam is faster.

`--json FILE` also writes the tables as JSON (the machine, no date) for scripts/bench-doc.py.
"""
import argparse
import ctypes
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

try:
    import cv2
    cv2.setNumThreads(1)
except ImportError:  # the venv could not be made: those rows say so
    cv2 = None

W, H = 1920, 1080
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, ".build", "anchors")
BENCH = os.path.join(ROOT, ".build", "release", "filters-bench")
os.makedirs(OUT, exist_ok=True)


def natural_rgba():
    rng = np.random.default_rng(7)
    y, x = np.mgrid[0:H, 0:W].astype(np.float32)
    r = 120 + 80 * np.sin(x / 157.0) * np.cos(y / 91.0) + 30 * ((x // 240 + y // 180) % 2)
    g = 110 + 70 * np.cos(x / 113.0 + y / 211.0)
    b = 90 + 60 * np.sin((x + y) / 173.0)
    rgb = np.stack([r, g, b], axis=-1) + rng.normal(0, 5, (H, W, 3))
    rgba = np.empty((H, W, 4), np.uint8)
    rgba[..., :3] = np.clip(rgb, 0, 255).astype(np.uint8)
    rgba[..., 3] = 255
    return rgba


def to_i420(rgba):
    rgb = rgba[..., :3].astype(np.float32)
    yy = 16 + 0.257 * rgb[..., 0] + 0.504 * rgb[..., 1] + 0.098 * rgb[..., 2]
    u = 128 - 0.148 * rgb[..., 0] - 0.291 * rgb[..., 1] + 0.439 * rgb[..., 2]
    v = 128 + 0.439 * rgb[..., 0] - 0.368 * rgb[..., 1] - 0.071 * rgb[..., 2]
    sub = lambda p: p.reshape(H // 2, 2, W // 2, 2).mean(axis=(1, 3))
    q = lambda p: np.clip(p + 0.5, 0, 255).astype(np.uint8)
    return q(yy), q(sub(u)), q(sub(v))


rgba = natural_rgba()
Y, U, V = to_i420(rgba)
nv12_uv = np.stack([U, V], axis=-1).reshape(H // 2, W)
paths = {"RGBA": os.path.join(OUT, "frame.rgba"), "I420": os.path.join(OUT, "frame.i420"),
         "NV12": os.path.join(OUT, "frame.nv12")}
rgba.tofile(paths["RGBA"])
with open(paths["I420"], "wb") as f:
    for p in (Y, U, V):
        f.write(p.tobytes())
with open(paths["NV12"], "wb") as f:
    f.write(Y.tobytes())
    f.write(nv12_uv.tobytes())
cube = os.path.join(OUT, "warm17.cube")
with open(cube, "w") as f:  # filters-bench's in-memory `lut17`, as a file for ffmpeg
    f.write("LUT_3D_SIZE 17\n")
    for bi in range(17):
        for gi in range(17):
            for ri in range(17):
                f.write(f"{min(1, ri / 16 * 1.05 + 0.02):.6f} {gi / 16:.6f} {bi / 16 * 0.9:.6f}\n")


def best(fn, seconds=0.3):
    fn()
    best_ms, start, batches = float("inf"), time.perf_counter(), 0
    while batches < 3 or (time.perf_counter() - start < seconds and batches < 50):
        t = time.perf_counter()
        for _ in range(4):
            fn()
        best_ms = min(best_ms, (time.perf_counter() - t) * 1000 / 4)
        batches += 1
    return best_ms


# SwiftCam: filters-bench --tsv, one process per format, same frame file.
def swiftcam(fmt, specs):
    env = dict(os.environ, FILTERS_BENCH_INPUT=paths[fmt])
    out = subprocess.run([BENCH, "--tsv", fmt, *specs], env=env, capture_output=True, text=True, check=True).stdout
    global simd_path
    for line in out.splitlines():
        if line.startswith("# SIMD path "):
            simd_path = line[len("# SIMD path "):]
    return {name: float(ms) for _, name, ms in (line.split("\t") for line in out.splitlines() if not line.startswith("#"))}


simd_path = "unknown"


# libyuv through ctypes: its "ARGB" is B, G, R, A in memory; the cost does not depend on the order.
yuv = None
try:
    yuv = ctypes.CDLL("libyuv.so.0")
except OSError as error:
    yuv_reason = f"libyuv.so.0 not loadable ({error}); install Debian libyuv0"
P = ctypes.c_void_p


def ptr(a):
    return a.ctypes.data_as(P)


def libyuv_anchors():
    if yuv is None:
        return {}
    src, dst = rgba.copy(), np.empty_like(rgba)
    sepia_m = np.array([24, 98, 50, 0, 22, 88, 45, 0, 17, 68, 35, 0, 0, 0, 0, 64], np.int8)
    y2, u2, v2 = np.empty_like(Y), np.empty_like(U), np.empty_like(V)
    cumsum = np.empty((H + 1) * W * 4, np.int32)
    box = lambda r: best(lambda: yuv.ARGBBlur(ptr(src), W * 4, ptr(dst), W * 4, ptr(cumsum), W * 4, W, H, r))
    return {
        "sepia": ("libyuv ARGBSepia (in place)", best(lambda: yuv.ARGBSepia(ptr(dst), W * 4, 0, 0, W, H))),
        "matrix": ("libyuv ARGBColorMatrix", best(lambda: yuv.ARGBColorMatrix(ptr(src), W * 4, ptr(dst), W * 4, ptr(sepia_m), W, H))),
        "mono": ("libyuv ARGBGray (in place)", best(lambda: yuv.ARGBGray(ptr(dst), W * 4, 0, 0, W, H))),
        "mirror": ("libyuv ARGBMirror", best(lambda: yuv.ARGBMirror(ptr(src), W * 4, ptr(dst), W * 4, W, H))),
        "mirror420": ("libyuv I420Mirror", best(lambda: yuv.I420Mirror(ptr(Y), W, ptr(U), W // 2, ptr(V), W // 2,
                                                                        ptr(y2), W, ptr(u2), W // 2, ptr(v2), W // 2, W, H))),
        "box2": ("libyuv ARGBBlur box r=3 (σ≈2)", box(3)),
        "box4": ("libyuv ARGBBlur box r=7 (σ≈4.3)", box(7)),
    }


def opencv_anchors():
    if cv2 is None:
        return {}
    src, dst = rgba.copy(), np.empty_like(rgba)
    gray = np.empty((H, W), np.uint8)
    sepia4 = np.array([[.393, .769, .189, 0], [.349, .686, .168, 0], [.272, .534, .131, 0], [0, 0, 0, 1]], np.float32)
    gamma = np.array([min(255, round(255 * (i / 255) ** (1 / 1.5))) for i in range(256)], np.uint8)
    poster = np.array([round(round(i / 255 * 5) / 5 * 255) for i in range(256)], np.uint8)
    thresh = np.array([255 if i >= 128 else 0 for i in range(256)], np.uint8)
    small = np.empty((H // 8, W // 8, 4), np.uint8)
    crop = src[H // 4:3 * H // 4, W // 4:3 * W // 4]

    def edges():
        cv2.cvtColor(src, cv2.COLOR_RGBA2GRAY, gray)
        cv2.Sobel(gray, cv2.CV_16S, 1, 0)
        cv2.Sobel(gray, cv2.CV_16S, 0, 1)

    def pixelate():
        cv2.resize(src, (W // 8, H // 8), small, interpolation=cv2.INTER_AREA)
        cv2.resize(small, (W, H), dst, interpolation=cv2.INTER_NEAREST)

    return {
        "matrix": ("OpenCV transform 4×4", best(lambda: cv2.transform(src, sepia4, dst))),
        "invert": ("OpenCV bitwise_not", best(lambda: cv2.bitwise_not(src, dst))),
        "gamma": ("OpenCV LUT", best(lambda: cv2.LUT(src, gamma, dst))),
        "posterize": ("OpenCV LUT", best(lambda: cv2.LUT(src, poster, dst))),
        "threshold": ("OpenCV LUT", best(lambda: cv2.LUT(src, thresh, dst))),
        "mirror": ("OpenCV flip(1)", best(lambda: cv2.flip(src, 1, dst))),
        "flip": ("OpenCV flip(0)", best(lambda: cv2.flip(src, 0, dst))),
        "blur2": ("OpenCV GaussianBlur σ=2", best(lambda: cv2.GaussianBlur(src, (0, 0), 2, dst))),
        "blur4": ("OpenCV GaussianBlur σ=4", best(lambda: cv2.GaussianBlur(src, (0, 0), 4, dst))),
        "edges": ("OpenCV gray + Sobel x, y", best(edges)),
        "pixelate": ("OpenCV resize area ↓8 + nearest ↑", best(pixelate)),
        "zoom": ("OpenCV resize bilinear 2× crop", best(lambda: cv2.resize(crop, (W, H), dst, interpolation=cv2.INTER_LINEAR))),
    }


def ffmpeg_ms(fmt, vf, frames=30):
    pix = {"RGBA": "rgba", "I420": "yuv420p"}[fmt]

    def run(chain):
        cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-benchmark", "-threads", "1", "-filter_threads", "1",
               "-f", "rawvideo", "-pix_fmt", pix, "-s", f"{W}x{H}", "-stream_loop", str(frames - 1),
               "-i", paths[fmt], "-vf", chain, "-f", "null", "-"]
        err = subprocess.run(cmd, capture_output=True, text=True).stderr
        m = re.search(r"rtime=([0-9.]+)s", err)
        if not m:
            raise RuntimeError(err.strip().splitlines()[-1] if err.strip() else "no output")
        return float(m.group(1))

    base = min(run("null") for _ in range(2))
    return max(0.0, (min(run(vf) for _ in range(2)) - base) * 1000 / frames)


def ffmpeg_anchors():
    if subprocess.run(["sh", "-c", "command -v ffmpeg"], capture_output=True).returncode != 0:
        return {}
    sep = "colorchannelmixer=.393:.769:.189:0:.349:.686:.168:0:.272:.534:.131"
    table = {
        "sepia": ("RGBA", sep), "matrix": ("RGBA", sep),
        "mono": ("RGBA", "colorchannelmixer=.3:.59:.11:0:.3:.59:.11:0:.3:.59:.11"),
        "invert": ("RGBA", "negate"),
        "gamma": ("RGBA", "lutrgb=r=gammaval(0.6667):g=gammaval(0.6667):b=gammaval(0.6667)"),
        "posterize": ("RGBA", "lutrgb=r=round(val/51)*51:g=round(val/51)*51:b=round(val/51)*51"),
        "threshold": ("RGBA", "lutrgb=r=gte(val\\,128)*255:g=gte(val\\,128)*255:b=gte(val\\,128)*255"),
        "mirror": ("RGBA", "hflip"), "mirror420": ("I420", "hflip"), "flip": ("RGBA", "vflip"),
        "lut": ("RGBA", f"lut3d=file={cube}:interp=tetrahedral"),
        "blur2_420": ("I420", "gblur=sigma=2"), "blur4_420": ("I420", "gblur=sigma=4"),
        "sharpen420": ("I420", "unsharp=5:5:1.0"), "edges420": ("I420", "sobel"),
        "zoom": ("RGBA", "crop=960:540,scale=1920:1080:flags=bilinear"),
        "pixelate": ("RGBA", "scale=240:135:flags=area,scale=1920:1080:flags=neighbor"),
    }
    out = {}
    for key, (fmt, vf) in table.items():
        try:
            out[key] = (f"ffmpeg {vf.split('=')[0].split(',')[0]}" + (" (I420)" if fmt == "I420" else ""), ffmpeg_ms(fmt, vf))
        except RuntimeError as error:
            print(f"ffmpeg {vf}: skipped ({error})", file=sys.stderr)
    return out


# SwiftCam row: (label, format, chain text, anchor keys doing the same job).
ROWS = [
    ("sepia, RGBA", "RGBA", "sepia", ["sepia", "matrix"]),
    ("colorcontrols, RGBA", "RGBA", "colorcontrols contrast=1.2 saturation=0.8", ["matrix"]),
    ("mono, RGBA", "RGBA", "mono", ["mono"]),
    ("invert, RGBA", "RGBA", "invert", ["invert"]),
    ("gamma, RGBA", "RGBA", "gamma value=1.5", ["gamma"]),
    ("posterize, RGBA", "RGBA", "posterize", ["posterize"]),
    ("threshold, RGBA", "RGBA", "threshold", ["threshold"]),
    ("mirror, RGBA", "RGBA", "mirror", ["mirror"]),
    ("mirror, I420", "I420", "mirror", ["mirror420"]),
    ("flip, RGBA", "RGBA", "flip", ["flip"]),
    ("3D LUT 17³, RGBA", "RGBA", "lut17", ["lut"]),
    ("blur σ=2, RGBA", "RGBA", "blur radius=2", ["blur2", "box2"]),
    ("blur σ=4, RGBA", "RGBA", "blur radius=4", ["blur4", "box4"]),
    ("blur σ=2, I420", "I420", "blur radius=2", ["blur2_420"]),
    ("blur σ=4, I420", "I420", "blur radius=4", ["blur4_420"]),
    ("sharpen σ=1, I420", "I420", "sharpen", ["sharpen420"]),
    ("edges, RGBA", "RGBA", "edges", ["edges"]),
    ("edges, I420", "I420", "edges", ["edges420"]),
    ("pixelate 8, RGBA", "RGBA", "pixelate", ["pixelate"]),
    ("zoom 2×, RGBA", "RGBA", "zoom", ["zoom"]),
    ("6-chain, RGBA", "RGBA", "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert", []),
    ("6-chain, NV12", "NV12", "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert", []),
    ("3-chain, RGBA", "RGBA", "sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette", []),
]


# The per-path table: the main filters on every SIMD path this machine has (filters-bench --paths), RGBA.
PATH_ROWS = [("sepia", "sepia"), ("mono", "mono"), ("colorcontrols", "colorcontrols contrast=1.2 saturation=0.8"), ("vignette", "vignette"),
             ("blur", "blur"), ("edges", "edges"), ("3-chain", "sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette"),
             ("6-chain", "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert")]


def per_path(anchors, result):
    env = dict(os.environ, FILTERS_BENCH_INPUT=paths["RGBA"])
    out = subprocess.run([BENCH, "--paths", "--tsv", "RGBA", *[text for _, text in PATH_ROWS]], env=env,
                         capture_output=True, text=True, check=True).stdout
    times, order, copy = {}, [], float("nan")
    for line in out.splitlines():
        if line.startswith("#"):
            continue
        columns = line.split("\t")
        if columns[1] == "memcpy":
            copy = float(columns[2])
            continue
        times[(columns[1], columns[3])] = float(columns[2])
        if columns[3] not in order:
            order.append(columns[3])
    print()
    print(f"Per SIMD path (filters-bench --paths, same frame, one thread, ms/frame (×memcpy {copy:.3f} ms)); "
          f"portable is what an ARM64 or SWIFTCAM_PORTABLE=1 build runs")
    print()
    print("| filter | " + " | ".join(order) + " | portable / SSE2 |")
    print("|---|" + "---|" * len(order) + "---|")
    for label, text in PATH_ROWS:
        cells = [f"{times[(text, p)]:.2f} ({times[(text, p)] / copy:.1f}×)" for p in order]
        ratio = times[(text, "portable")] / times[(text, "SSE2")] if ("SSE2" in order and "portable" in order) else float("nan")
        print(f"| {label} | " + " | ".join(cells) + f" | {ratio:.2f}× |")
    chain6 = PATH_ROWS[-1][1]
    if "AVX2" in order and "AVX-512" in order:
        print(f"6-chain AVX2 / AVX-512: {times[(chain6, 'AVX2')] / times[(chain6, 'AVX-512')]:.2f}×")
    if "sepia" in anchors:
        name, ms = anchors["sepia"]
        print(f"{name} {ms:.2f} ms: " + ", ".join(f"{p} {ms / times[('sepia', p)]:.2f}×" for p in order)
              + " (> 1: SwiftCam faster)")
    result["perPath"] = {
        "memcpyMs": copy, "paths": order,
        "rows": [{"label": label, "chain": text, "ms": {p: times[(text, p)] for p in order}} for label, text in PATH_ROWS],
        "sepiaAnchor": {"anchor": anchors["sepia"][0], "anchorMs": anchors["sepia"][1]} if "sepia" in anchors else None,
    }


def finite(value):
    """The same structure with every time that was not measured (NaN) as null, which JSON can carry."""
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [finite(item) for item in value]
    return value


def machine():
    """Where the run was: cores, CPU, SwiftCam's SIMD path and the anchors' versions."""
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), cpu)
    except OSError:
        pass
    ffmpeg = subprocess.run(["sh", "-c", "ffmpeg -hide_banner -version 2>/dev/null | head -1"], capture_output=True, text=True).stdout
    return {"cores": os.cpu_count(), "cpu": cpu, "simdPath": simd_path,
            "opencv": cv2.__version__ if cv2 is not None else None,
            "ffmpeg": ffmpeg.split()[2] if len(ffmpeg.split()) > 2 else None,
            "libyuv": "libyuv.so.0" if yuv is not None else None}


def main():
    parser = argparse.ArgumentParser(description="SwiftCam's filters beside libyuv, ffmpeg and OpenCV")
    parser.add_argument("--json", metavar="FILE", help="also write the tables as JSON to FILE")
    arguments = parser.parse_args()
    if arguments.json:  # before the run: a file that cannot be written costs a moment, not the whole table
        try:
            open(arguments.json + f".tmp-{os.getpid()}", "w").close()
            os.remove(arguments.json + f".tmp-{os.getpid()}")
        except OSError as error:
            sys.exit(f"bench-anchors: cannot write {arguments.json}: {error.strerror}")
    swift = {}
    for fmt in ("RGBA", "I420", "NV12"):
        specs = sorted({text for _, f, text, _ in ROWS if f == fmt})
        for name, ms in swiftcam(fmt, specs).items():
            swift[(fmt, name)] = ms
    anchors = {}
    if yuv is None:
        print(f"libyuv: skipped ({yuv_reason})")
    anchors.update(libyuv_anchors())
    if cv2 is None:
        print("OpenCV: skipped (no cv2 in the venv)")
    for source in (opencv_anchors(), ffmpeg_anchors()):
        for key, value in source.items():
            if key not in anchors or value[1] < anchors[key][1]:
                anchors[key] = value
    # Same-job anchors only: the box blur (a different filter) is listed but never the "best".
    same_job = lambda key: not key.startswith("box")
    print(f"SwiftCam vs the best CPU anchor on this machine: {W}x{H}, one thread, same frame, ms/frame; "
          f"SwiftCam's SIMD path: {simd_path}")
    print(f"memcpy (SwiftCam's, same run): RGBA {swift[('RGBA', 'memcpy')]:.3f} ms, I420 {swift[('I420', 'memcpy')]:.3f} ms, "
          f"NV12 {swift[('NV12', 'memcpy')]:.3f} ms; ratio = anchor / SwiftCam (> 1: SwiftCam faster)")
    print()
    print(f"| filter | SwiftCam ms (×memcpy) | best anchor | anchor ms | ratio |")
    print(f"|---|---|---|---|---|")
    rows = []
    for label, fmt, text, keys in ROWS:
        ms = swift.get((fmt, text), float("nan"))
        copy = swift[(fmt, "memcpy")]
        found = [anchors[k] for k in keys if k in anchors and same_job(k)]
        others = [anchors[k] for k in keys if k in anchors and not same_job(k)]
        row = {"label": label, "format": fmt, "chain": text, "swiftcamMs": ms, "anchor": None, "anchorMs": None,
               "forScale": [{"anchor": name, "anchorMs": anchor} for name, anchor in others]}
        if found:
            name, anchor = min(found, key=lambda a: a[1])
            row.update(anchor=name, anchorMs=anchor)
            line = f"| {label} | {ms:.2f} ({ms / copy:.1f}×) | {name} | {anchor:.2f} | {anchor / ms:.2f}× |"
        else:
            line = f"| {label} | {ms:.2f} ({ms / copy:.1f}×) | — | — | — |"
        rows.append(row)
        print(line)
        for name, anchor in others:
            print(f"| ↳ for scale | | {name} | {anchor:.2f} | {anchor / ms:.2f}× |")
    result = {"tool": "make bench-anchors", "width": W, "height": H,
              "memcpyMs": {fmt: swift[(fmt, "memcpy")] for fmt in ("RGBA", "I420", "NV12")}, "rows": rows}
    per_path(anchors, result)
    if arguments.json:
        result["machine"] = machine()
        temporary = arguments.json + f".tmp-{os.getpid()}"
        with open(temporary, "w", encoding="utf-8") as out:
            json.dump(finite(result), out, indent=1, ensure_ascii=False, allow_nan=False)
            out.write("\n")
        os.replace(temporary, arguments.json)


if __name__ == "__main__":
    main()
