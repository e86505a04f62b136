#!/usr/bin/env python3
"""The house rules a compiler does not check, over Sources/:

- every `@unchecked Sendable` says in its doc comment what makes it safe (a line `/// Unchecked Sendable: …`);
- `Synchronization.Mutex` (a futex ThreadSanitizer cannot see) only in Filters and Analysis, or with a comment within
  the five lines above it saying why ThreadSanitizer need not see it; everywhere else Base's `Locked`;
- no file over 400 lines (symlinked shared cores are checked where they live).

Usage: scripts/check-house.py (from anywhere). Exit 1 lists each place that breaks a rule.
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
LIMIT = 400
MUTEX_FREE_OK = ("Sources/Filters/", "Sources/Analysis/")

problems = []
for source in sorted((root / "Sources").rglob("*.swift")):
    if source.is_symlink():
        continue  # a shared core, checked where it lives
    name = str(source.relative_to(root))
    lines = source.read_text().split("\n")
    count = len(lines) - (1 if lines and lines[-1] == "" else 0)
    if count > LIMIT:
        problems.append(f"{name}: {count} lines, over {LIMIT}: split it by concern")
    for number, line in enumerate(lines):
        code = line.split("//", 1)[0]
        if "@unchecked Sendable" in code:
            above, index = [], number - 1
            while index >= 0 and (lines[index].strip().startswith(("///", "@")) or lines[index].strip() == ""):
                if lines[index].strip() == "" and not above:
                    break
                above.append(lines[index])
                index -= 1
            if not any(entry.strip().startswith("/// Unchecked Sendable:") for entry in above):
                problems.append(f"{name}:{number + 1}: @unchecked Sendable without a `/// Unchecked Sendable: …` line saying why")
        if re.search(r"\bMutex\s*[<(]", code) and not name.startswith(MUTEX_FREE_OK):
            context = " ".join(lines[max(0, number - 5):number])
            if "ThreadSanitizer" not in context and "TSan" not in context:
                problems.append(f"{name}:{number + 1}: Synchronization.Mutex, which ThreadSanitizer cannot see: use Base's Locked "
                                "(or say above it why TSan need not see this one)")
for problem in problems:
    print(problem)
if problems:
    sys.exit(1)
print("house: every @unchecked Sendable says why, no Mutex where TSan must see it, no file in Sources over 400 lines")
