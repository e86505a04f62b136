#!/usr/bin/env python3
"""Compares two LeakSanitizer reports of the host (scripts/leaks-webrtc.sh): after SHORT and after LONG viewer lifetimes.

Usage: lsan_compare.py DIR SHORT LONG   (reads DIR/lsan-SHORT.* and DIR/lsan-LONG.*, one file per process)
Prints each run's summary, then every allocation stack whose leaked objects grew between the runs: those grow with the
lifetimes, once-per-process allocations do not. Exit 1 when a stack grew by at least one object per 10 lifetimes.
"""
import collections
import pathlib
import re
import sys

LEAK = re.compile(r"^(Direct|Indirect) leak of (\d+) byte\(s\) in (\d+) object\(s\) allocated from:")
FRAME = re.compile(r"^\s+#(\d+) 0x[0-9a-f]+ in (.+?)(?: \(|$)")
SUMMARY = re.compile(r"SUMMARY: LeakSanitizer: (\d+) byte\(s\) leaked in (\d+) allocation\(s\)")


def read(directory, lifetimes):
    """The host's report (the largest of the run's processes): stacks → [bytes, objects], and its summary line."""
    best = (None, "no LeakSanitizer report", collections.defaultdict(lambda: [0, 0]))
    for path in sorted(pathlib.Path(directory).glob(f"lsan-{lifetimes}.*")):
        stacks = collections.defaultdict(lambda: [0, 0])
        summary, leak, frames = "no leaks reported", None, []
        for line in path.read_text(errors="replace").splitlines() + [""]:
            if (match := LEAK.match(line)):
                leak, frames = (match[1], int(match[2]), int(match[3])), []
            elif leak and (match := FRAME.match(line)):
                frames.append(match[2])
            elif leak and not line.strip():
                key = (leak[0],) + tuple(frames[1:9])
                stacks[key][0] += leak[1]
                stacks[key][1] += leak[2]
                leak = None
            if (match := SUMMARY.search(line)):
                summary = match[0]
        total = sum(bytes_ for bytes_, _ in stacks.values())
        if best[0] is None or total > best[0]:
            best = (total, f"{summary} ({path.name})", stacks)
    return best[1], best[2]


def main():
    directory, short, long = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    short_summary, before = read(directory, short)
    long_summary, after = read(directory, long)
    print(f"after {short} lifetimes: {short_summary}")
    print(f"after {long} lifetimes: {long_summary}")
    grown = []
    for key, (bytes_, objects) in after.items():
        then = before.get(key, [0, 0])
        if objects > then[1]:
            grown.append((objects - then[1], bytes_ - then[0], key))
    grown.sort(reverse=True)
    extra = long - short
    if not grown:
        print(f"no allocation stack leaked more objects after {long} lifetimes than after {short}")
    for objects, bytes_, key in grown[:12]:
        print(f"\n+{objects} objects, +{bytes_} bytes ({objects / extra:.2f} objects a lifetime), {key[0].lower()}:")
        for frame in key[1:]:
            print(f"    {frame}")
    if any(objects * 10 >= extra for objects, _, _ in grown):
        sys.exit(1)


main()
