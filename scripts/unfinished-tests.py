#!/usr/bin/env python3
"""The tests a swift test log shows started and not ended (Swift Testing's and XCTest's lines): what a run stopped
by test.sh's watchdog was still doing. Usage: unfinished-tests.py LOG"""
import re
import sys

# In the order they started (a dict as an ordered set).
started = {}
ended = set()
with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
    for line in log:
        line = line.rstrip("\n")
        # Swift Testing: "◇ Test name() started." … "✔ Test name() passed after …", "✘ Test name() failed …",
        # "✔ Test name(x:) with 3 test cases passed …", "━ Test name() passed … with 1 known issue". Its argument
        # cases ("◇ Test case passing …") end with the test.
        match = re.match(r"^◇ Test (.+) started\.$", line)
        if match and match.group(1) != "run" and not match.group(1).startswith("case passing "):
            started.setdefault(match.group(1))
            continue
        match = re.match(r"^[✔✘━] Test (.+?)(?: with \d+ test cases?)? (?:passed|failed)", line)
        if match:
            ended.add(match.group(1))
            continue
        # XCTest: "Test Case 'Suite.test' started at …" … "Test Case 'Suite.test' passed (…)".
        match = re.match(r"^Test Case '(.+)' (started|passed|failed|skipped)", line)
        if match:
            if match.group(2) == "started":
                started.setdefault(match.group(1))
            else:
                ended.add(match.group(1))

unfinished = [name for name in started if name not in ended]
for name in unfinished:
    print(f"  {name}")
if not unfinished:
    print("  (none: every test that started ended; the process itself did not)")
