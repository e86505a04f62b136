#!/usr/bin/env python3
"""Rewrites the measured tables of docs/benchmarks.md from the benchmarks' JSON, leaving the prose.

usage: bench-doc.py [--bench FILE] [--paths FILE] [--anchors FILE] [--ipp FILE] [--doc FILE] [--check]

  --bench FILE     `swiftcam bench --json FILE`: the blocks `bench` (a table per size) and `analysis` (motion, pre-roll)
  --paths FILE     `filters-bench --paths --json FILE`: the block `paths` (a column per SIMD path)
  --anchors FILE   `scripts/bench-anchors.sh --json FILE`: the block `anchors` (libyuv, ffmpeg, OpenCV)
  --ipp FILE       `scripts/aarch64-ipp.sh --json FILE`: the block `aarch64-ipp` (instructions per pixel, aarch64
                   emulated beside x86-64 SSE2)
  --check          write nothing: render every block from the files given and check that the document has each
                   marker pair exactly once (`<!-- bench:begin NAME -->` … `<!-- bench:end NAME -->`)

Each block starts with the machine line its JSON carries (cores, CPU, GStreamer, SIMD path), never a date; the
instruction counts, which do not depend on the machine, with the emulator that counted them. Only the blocks whose
JSON is given are replaced. `make bench-doc` runs the three benchmarks and this script (`make bench-arm64-ipp` writes
the `--ipp` JSON). Python 3
standard library only.
"""
import argparse
import json
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCKS = ("bench", "analysis", "paths", "anchors", "aarch64-ipp")
MARKER = re.compile(r"<!-- bench:(begin|end) ([a-z0-9-]+) -->")
ANALYSIS = ("motion-nv12", "preroll-memory")


class DocError(Exception):
    """A problem with an input, stated in one line that names the file."""


def number(value):
    """Three significant digits at most, at least one decimal below 100 (as `swiftcam bench` prints): 0.123, 1.23, 12.3, 123."""
    if value is None or not math.isfinite(value):
        return "-"
    magnitude = abs(value)
    places = 3 if magnitude < 1 else 2 if magnitude < 10 else 1 if magnitude < 100 else 0
    return f"{value:.{places}f}"


def ratio(value):
    return "-" if value is None else number(value) + "×"


def load(path, kind, required):
    """The JSON object in `path`, checked for the keys the renderer reads."""
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
    except OSError as error:
        raise DocError(f"{path}: cannot read it ({error.strerror}); make it with {kind} FILE")
    except json.JSONDecodeError as error:
        raise DocError(f"{path}: not JSON ({error.msg} at line {error.lineno})")
    if not isinstance(data, dict):
        raise DocError(f"{path}: expected a JSON object from {kind}")
    missing = [key for key in required if key not in data]
    if missing:
        raise DocError(f"{path}: no {', '.join(missing)} in it; is it what {kind} FILE writes?")
    return data


def machine_line(machine, build=None, load_average=None):
    """'2 cores, AMD EPYC …, GStreamer 1.22.0, SIMD path AVX2 (this machine has portable, SSE2, AVX2)'."""
    parts = [f"{machine.get('cores', '?')} cores", machine.get("cpu") or "unknown CPU"]
    if machine.get("gstreamer"):
        parts.append(machine["gstreamer"])
    path = machine.get("simdPath")
    if path:
        available = machine.get("availablePaths")
        parts.append(f"SIMD path {path}" + (f" (this machine has {', '.join(available)})" if available else ""))
    for key, name in (("libyuv", "libyuv"), ("ffmpeg", "ffmpeg"), ("opencv", "OpenCV")):
        if key in machine:
            version = (machine[key] or "").removeprefix("ffmpeg version ").removeprefix("libyuv ")
            parts.append(f"{name} ({version})" if version else f"no {name}")
    if build:
        parts.append(f"{build} build")
    if load_average is not None:
        parts.append(f"load {number(load_average)} at the start")
    return "Machine: " + ", ".join(parts) + "."


def cell(side):
    if side is None:
        return "-"
    if side.get("medianMs") is None:
        return side.get("status", "-")
    return f"{number(side['medianMs'])} ±{number(side.get('spreadMs') or 0)}"


def microseconds(side):
    """A side's median and spread in microseconds, for work far below a millisecond."""
    if side is None or side.get("medianMs") is None:
        return (side or {}).get("status", "-")
    return f"{number(side['medianMs'] * 1000)} ±{number((side.get('spreadMs') or 0) * 1000)}"


def bench_blocks(data, path):
    """`bench` and `analysis` from `swiftcam bench --json`."""
    for row in data["rows"]:
        if not isinstance(row, dict) or "id" not in row or "size" not in row:
            raise DocError(f"{path}: a row without id or size")
    sizes = []
    for row in data["rows"]:
        if row["size"] not in sizes:
            sizes.append(row["size"])
    machine = machine_line(data["machine"], data.get("build"), data["machine"].get("load"))
    lines = [machine, "",
             f"ms/frame: the median of {data['repetitions']} repetitions of {data['frames']} frames ± half their range, "
             "the `appsrc ! identity ! fakesink` baseline taken off; speed-up = C / SwiftCam; × memcpy = the SwiftCam "
             "column (or the C column where there is none) over a memcpy of the same frame in the same run. Scaling rows: "
             f"SwiftCam on all {data['machine'].get('cores', '?')} cores against one thread."]
    notes = []
    for size in sizes:
        rows = [row for row in data["rows"] if row["size"] == size and row["id"] not in ANALYSIS]
        first = rows[0] if rows else {}
        lines += ["", f"**{size}** ({first.get('width', '?')}×{first.get('height', '?')})", "",
                  "| case | SwiftCam ms | C ms | speed-up | × memcpy |", "|---|---|---|---|---|"]
        for row in rows:
            title = row.get("title", row["id"]).strip()
            if row.get("title", "").startswith("  "):
                title = "↳ " + title
            lines.append(f"| {title} | {cell(row.get('swiftcam'))} | {cell(row.get('c'))} | "
                         f"{ratio(row.get('speedUp'))} | {number(row.get('timesMemcpy'))} |")
            reason = row.get("skipped") or row.get("failed")
            if reason:
                notes.append(f"- {size} `{row['id']}`: {'skipped' if row.get('skipped') else 'failed'}: {reason}")
    if notes:
        lines += ["", "Not measured:", ""] + notes
    analysis = [machine, "",
                "| size | motion ms per NV12 frame | memcpy of the luma plane, ms | motion / memcpy |", "|---|---|---|---|"]
    found = set()
    for row in data["rows"]:
        if row["id"] == "motion-nv12":
            found.add(row["id"])
            motion, copy = (row.get("swiftcam") or {}).get("medianMs"), (row.get("c") or {}).get("medianMs")
            share = motion / copy if motion is not None and copy else None
            analysis.append(f"| {row['size']} | {cell(row.get('swiftcam'))} | {cell(row.get('c'))} | {ratio(share)} |")
    held = next((row for row in data["rows"] if row["id"] == "preroll-memory"), None)
    if held is not None:
        found.add(held["id"])
        megabytes = held.get("heldBytes")
        analysis += ["", f"Pre-roll ring (5 s of a 2 Mbit/s, 30 fps stream, a key frame each second): "
                         f"{number(megabytes / 1e6) if megabytes is not None else '-'} MB held at most, "
                         f"{microseconds(held.get('swiftcam'))} µs per frame appended."]
    missing = [name for name in ANALYSIS if name not in found]
    if missing:
        raise DocError(f"{path}: no {', '.join(missing)} row; the analysis block needs both")
    return {"bench": "\n".join(lines), "analysis": "\n".join(analysis)}


def paths_block(data, path):
    """`paths` from `filters-bench --paths --json`."""
    order = data["paths"]
    copy = data["memcpyMs"]
    lines = [machine_line(data["machine"]), "",
             f"ms per {data.get('width', 1920)}×{data.get('height', 1080)} {data.get('format', 'RGBA')} frame on one "
             f"thread (× a memcpy of the frame, {number(copy)} ms in the same run); the best of "
             f"{data.get('rounds', 3)} rounds, the paths taking turns.", "",
             "| filter | " + " | ".join(order) + " | portable / SSE2 |", "|---|" + "---|" * len(order) + "---|"]
    for row in data["rows"]:
        times = row.get("ms")
        if not isinstance(times, dict):
            raise DocError(f"{path}: row {row.get('name', '?')} has no times")
        cells = [f"{number(times.get(p))} ({number(times[p] / copy)}×)" if times.get(p) is not None and copy else "-"
                 for p in order]
        portable, sse2 = times.get("portable"), times.get("SSE2")
        share = portable / sse2 if portable is not None and sse2 else None
        name = {"chain3": "3-chain", "chain6": "6-chain"}.get(row.get("name"), row.get("name", "?"))
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {ratio(share)} |")
    chain6 = next((row["ms"] for row in data["rows"] if row.get("name") == "chain6"), {})
    if chain6.get("AVX2") and chain6.get("AVX-512"):
        lines += ["", f"6-chain AVX2 / AVX-512: {ratio(chain6['AVX2'] / chain6['AVX-512'])}"]
    else:
        lines += ["", "6-chain AVX2 / AVX-512: not measured (this machine has no "
                      + ("AVX-512" if "AVX2" in order else "AVX2") + ")."]
    return {"paths": "\n".join(lines)}


def anchors_block(data, path):
    """`anchors` from `scripts/bench-anchors.sh --json`."""
    memcpy = data["memcpyMs"]
    lines = [machine_line(data["machine"]), "",
             f"{data.get('width', 1920)}×{data.get('height', 1080)}, one thread, the same frame, ms/frame; memcpy in the "
             "same run: " + ", ".join(f"{fmt} {number(ms)} ms" for fmt, ms in memcpy.items())
             + "; ratio = anchor / SwiftCam (above 1: SwiftCam is faster).", "",
             "| filter | SwiftCam ms (× memcpy) | best anchor | anchor ms | ratio |", "|---|---|---|---|---|"]
    for row in data["rows"]:
        ms, copy = row.get("swiftcamMs"), memcpy.get(row.get("format"))
        own = f"{number(ms)} ({number(ms / copy)}×)" if ms is not None and copy else number(ms)
        anchor = row.get("anchorMs")
        share = anchor / ms if anchor is not None and ms else None
        lines.append(f"| {row.get('label', '?')} | {own} | {row.get('anchor') or '—'} | {number(anchor)} | {ratio(share)} |")
        for other in row.get("forScale") or []:
            share = other["anchorMs"] / ms if other.get("anchorMs") is not None and ms else None
            lines.append(f"| ↳ for scale | | {other.get('anchor', '?')} | {number(other.get('anchorMs'))} | {ratio(share)} |")
    per_path = data.get("perPath") or {}
    sepia = per_path.get("sepiaAnchor")
    sepia_times = next((row["ms"] for row in per_path.get("rows", []) if row.get("label") == "sepia"), None)
    if sepia and sepia_times:
        lines += ["", f"Sepia on each SIMD path against {sepia['anchor']}, {number(sepia['anchorMs'])} ms: "
                  + ", ".join(f"{p} {ratio(sepia['anchorMs'] / ms)}" for p, ms in sepia_times.items() if ms)
                  + " (above 1: SwiftCam is faster)."]
    return {"anchors": "\n".join(lines)}


def ipp_block(data, path):
    """`aarch64-ipp` from `scripts/aarch64-ipp.sh --json`: a row per filter, RGBA and NV12 side by side."""
    short = {"sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette": "3-chain",
             "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert": "6-chain"}
    table = {}
    for row in data["rows"]:
        if not isinstance(row, dict) or row.get("format") not in ("RGBA", "NV12") or "filter" not in row:
            raise DocError(f"{path}: a row without its format (RGBA or NV12) and filter")
        table.setdefault(row["filter"], {})[row["format"]] = row
    lines = [f"aarch64: the guest instructions {data['emulator']} executed (no ARM machine; not cycles), portable "
             "path; x86-64: callgrind's count on the SSE2 path. Instructions per pixel: (3 calls − 1 call) / 2 / "
             f"{data.get('pixels', 1920 * 1080)} pixels (1920×1080), one thread; ratio = aarch64 / SSE2.", "",
             "| filter | RGBA aarch64 | RGBA SSE2 | ratio | NV12 aarch64 | NV12 SSE2 | ratio |",
             "|---|---|---|---|---|---|---|"]
    for name, formats in table.items():
        cells = []
        for fmt in ("RGBA", "NV12"):
            row = formats.get(fmt, {})
            arm, sse2 = row.get("aarch64"), row.get("sse2")
            cells += [number(arm), number(sse2), ratio(arm / sse2 if arm is not None and sse2 else None)]
        lines.append(f"| {short.get(name, name)} | " + " | ".join(cells) + " |")
    return {"aarch64-ipp": "\n".join(lines)}


def markers(text, doc):
    """{name: (start of the block's content, end of it)}; every marker paired once, in order, not nested."""
    found, open_name, open_at = {}, None, 0
    for match in MARKER.finditer(text):
        kind, name = match.groups()
        line = text.count("\n", 0, match.start()) + 1
        if kind == "begin":
            if open_name is not None:
                raise DocError(f"{doc}:{line}: bench:begin {name} inside bench:{open_name}")
            if name in found:
                raise DocError(f"{doc}:{line}: a second bench:begin {name}")
            open_name, open_at = name, match.end()
        else:
            if open_name != name:
                raise DocError(f"{doc}:{line}: bench:end {name} without its bench:begin")
            found[name] = (open_at, match.start())
            open_name = None
    if open_name is not None:
        raise DocError(f"{doc}: bench:begin {open_name} has no bench:end {open_name}")
    unknown = [name for name in found if name not in BLOCKS]
    if unknown:
        raise DocError(f"{doc}: marker {', '.join(unknown)} is not a block this script writes ({', '.join(BLOCKS)})")
    missing = [name for name in BLOCKS if name not in found]
    if missing:
        raise DocError(f"{doc}: no marker pair for {', '.join(missing)}")
    return found


def main():
    parser = argparse.ArgumentParser(description="Rewrites docs/benchmarks.md's measured tables from the benchmarks' JSON.")
    parser.add_argument("--bench", metavar="FILE", help="swiftcam bench --json FILE")
    parser.add_argument("--paths", metavar="FILE", help="filters-bench --paths --json FILE")
    parser.add_argument("--anchors", metavar="FILE", help="scripts/bench-anchors.sh --json FILE")
    parser.add_argument("--ipp", metavar="FILE", help="scripts/aarch64-ipp.sh --json FILE")
    parser.add_argument("--doc", metavar="FILE", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    parser.add_argument("--check", action="store_true", help="write nothing; render and check the markers")
    arguments = parser.parse_args()
    try:
        with open(arguments.doc, encoding="utf-8") as file:
            text = file.read()
        found = markers(text, arguments.doc)
        blocks = {}
        if arguments.bench:
            data = load(arguments.bench, "swiftcam bench --json", ("machine", "rows", "frames", "repetitions"))
            if data.get("build") != "release" and not arguments.check:
                raise DocError(f"{arguments.bench}: from a {data.get('build', 'unknown')} build; its numbers say nothing "
                               "about speed (swift build -c release, then .build/release/swiftcam bench --json FILE)")
            blocks.update(bench_blocks(data, arguments.bench))
        if arguments.paths:
            blocks.update(paths_block(load(arguments.paths, "filters-bench --paths --json",
                                           ("machine", "paths", "rows", "memcpyMs")), arguments.paths))
        if arguments.anchors:
            blocks.update(anchors_block(load(arguments.anchors, "scripts/bench-anchors.sh --json",
                                             ("machine", "rows", "memcpyMs")), arguments.anchors))
        if arguments.ipp:
            blocks.update(ipp_block(load(arguments.ipp, "scripts/aarch64-ipp.sh --json", ("emulator", "rows")),
                                    arguments.ipp))
    except DocError as error:
        sys.exit(f"bench-doc: {error}")
    if arguments.check:
        print(f"bench-doc: {len(found)} marker pairs in {os.path.relpath(arguments.doc, ROOT)}; rendered "
              + (", ".join(sorted(blocks)) or "nothing (no JSON given)"))
        return
    if not blocks:
        sys.exit("bench-doc: nothing to write; give --bench, --paths, --anchors or --ipp (or --check)")
    # From the last block to the first, so the earlier offsets stay valid.
    for name, (start, end) in sorted(found.items(), key=lambda item: -item[1][0]):
        if name in blocks:
            text = text[:start] + "\n\n" + blocks[name] + "\n\n" + text[end:]
    temporary = arguments.doc + f".tmp-{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, arguments.doc)
    print(f"bench-doc: wrote {', '.join(sorted(blocks))} into {os.path.relpath(arguments.doc, ROOT)}")


if __name__ == "__main__":
    main()
