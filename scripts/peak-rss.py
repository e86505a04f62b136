#!/usr/bin/env python3
"""Runs a command and prints its peak resident set size: `peak-rss KIB` on stderr, the command's own output as it is.

The figure is the kernel's (getrusage RUSAGE_CHILDREN, ru_maxrss): the largest of the command and what it waited for.
A program run through binfmt_misc under qemu-user is counted with the emulator's memory.
Usage: peak-rss.py COMMAND [ARGUMENT…]   Exit status: the command's (128 + N when signal N ended it).
"""
import resource
import subprocess
import sys

status = subprocess.run(sys.argv[1:]).returncode
print(f"peak-rss {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}", file=sys.stderr)
sys.exit(status if status >= 0 else 128 - status)
