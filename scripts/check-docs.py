#!/usr/bin/env python3
"""Every shell command in README.md and docs/*.md, checked against the build: usage: check-docs.py BIN_DIR

BIN_DIR holds the built `swiftcam` and `libgstswiftfilter.so` (.build/debug or .build/release). Commands that need
no camera, network or long run are run as printed (`list`, `show`, `validate`, `filters`, the plugin through
gst-inspect and gst-launch, a window sink replaced by fakesink); the others are checked against their `--help`: the
subcommand exists and takes every option the line uses. `make` targets must exist, and `scripts/…` files too. A line
this script does not know how to check fails it, so a new kind of command in the docs gets a rule here rather than
going unchecked.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Run as printed: quick, and need nothing but the repository.
RUN = {"list", "show", "validate", "filters", "encoders"}
# Commands outside the project the docs show to users; only their presence on a Debian machine is assumed.
FOREIGN = {"swift", "v4l2-ctl", "ffmpeg", "ip", "unshare", "jq", "chromium", "curl", "systemctl", "journalctl", "dpkg",
           "apt-get", "sudo", "cat", "ls", "cam"}


def blocks(path):
    """(line number, command) for each command of each ```sh block, continuations joined, comments kept out."""
    lines = open(path, encoding="utf-8").read().split("\n")
    inside, pending, start = False, "", 0
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            inside = (not inside) and line.strip() in ("```sh", "```bash", "```shell")
            continue
        if not inside:
            continue
        if not pending:
            start = number
        pending += line.rstrip("\\") + " " if line.endswith("\\") else line
        if line.endswith("\\"):
            continue
        try:
            words = shlex.split(pending, comments=True)
        except ValueError as error:
            yield start, None, f"cannot split: {error}"
            pending = ""
            continue
        pending = ""
        if words:
            yield start, words, None


class Checker:
    def __init__(self, bin_dir):
        self.bin_dir = os.path.abspath(bin_dir)
        self.swiftcam = os.path.join(self.bin_dir, "swiftcam")
        self.variables = {}
        self.helps = {}
        self.targets = self.make_targets()

    @staticmethod
    def make_targets():
        text = open(os.path.join(ROOT, "Makefile"), encoding="utf-8").read()
        return set(re.findall(r"^([A-Za-z][\w-]*):", text, re.M))

    def help_text(self, sub):
        if sub not in self.helps:
            done = subprocess.run([self.swiftcam, sub, "--help"], cwd=ROOT, capture_output=True, text=True)
            self.helps[sub] = (done.returncode, done.stdout + done.stderr)
        return self.helps[sub]

    def check(self, words):
        """None when the command holds, else the reason."""
        env = {}
        while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
            name, _, value = words.pop(0).partition("=")
            if not words:
                self.variables[name] = value
                return None
            env[name] = value
        if words and words[0] == "nice":
            words = words[3:] if words[1:2] == ["-n"] else words[1:]
        if not words:
            return None
        words = [self.variables.get(w[1:], w) if w.startswith("$") else w for w in words]
        head = words[0]
        if head in ("swiftcam", ".build/release/swiftcam", ".build/debug/swiftcam"):
            return self.check_swiftcam(words[1:])
        if head == "make":
            missing = [t for t in words[1:] if "=" not in t and t not in self.targets]
            return f"no make target {', '.join(missing)}" if missing else None
        if head in ("gst-inspect-1.0", "gst-launch-1.0"):
            return self.run_gstreamer(words, env)
        if head in ("filters-bench", ".build/release/filters-bench", ".build/debug/filters-bench"):
            return self.check_filters_bench(words[1:])
        if head in ("bash", "python3") and len(words) > 1:
            head = words[1]
        if head.startswith("scripts/"):
            return None if os.path.exists(os.path.join(ROOT, head)) else f"no file {head}"
        if head in FOREIGN:
            return None
        return f"no rule for '{head}': add one to scripts/check-docs.py"

    def check_swiftcam(self, args):
        if not args or args[0].startswith("-"):
            done = subprocess.run([self.swiftcam] + args, cwd=ROOT, capture_output=True, text=True)
            return None if done.returncode == 0 else f"exit {done.returncode}: {done.stderr.strip()[:200]}"
        sub, rest = args[0], args[1:]
        status, text = self.help_text(sub)
        if status != 0:
            return f"'swiftcam {sub} --help' exits {status}: {text.strip()[:200]}"
        for word in rest:
            option = word.split("=", 1)[0]
            if option.startswith("--") and option not in text:
                return f"'swiftcam {sub} --help' does not mention {option}"
        if sub in RUN and not any("/dev/" in w for w in rest):
            done = subprocess.run([self.swiftcam, sub] + rest, cwd=ROOT, capture_output=True, text=True)
            if done.returncode != 0:
                return f"exit {done.returncode}: {(done.stderr or done.stdout).strip()[:200]}"
        return None

    def check_filters_bench(self, args):
        """The benchmark takes minutes: only its --help is run, and it must mention every option the line uses."""
        done = subprocess.run([os.path.join(self.bin_dir, "filters-bench"), "--help"], cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            return f"'filters-bench --help' exits {done.returncode}"
        missing = [w for w in args if w.startswith("--") and w not in done.stdout]
        return f"'filters-bench --help' does not mention {', '.join(missing)}" if missing else None

    def run_gstreamer(self, words, env):
        full = dict(os.environ)
        # Without GST_PLUGIN_PATH the line is an installed plugin's (the Debian package's): the build stands in for it.
        full["GST_PLUGIN_PATH"] = self.bin_dir
        full.update({k: v.replace(".build/release", self.bin_dir) for k, v in env.items()})
        # No display here: a window sink is checked with fakesink in its place.
        words = ["fakesink" if w in ("autovideosink", "xvimagesink", "ximagesink") else w for w in words]
        with tempfile.TemporaryDirectory() as folder:
            done = subprocess.run(words, cwd=folder, env=full, capture_output=True, text=True)
        return None if done.returncode == 0 else f"exit {done.returncode}: {done.stderr.strip()[:200]}"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check-docs.py BIN_DIR")
    checker = Checker(sys.argv[1])
    files = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    failures = checked = 0
    for name in files:
        checker.variables = {}
        for number, words, problem in blocks(os.path.join(ROOT, name)):
            problem = problem or checker.check(list(words))
            checked += 1
            if problem:
                failures += 1
                print(f"{name}:{number}: {' '.join(words or [])}\n  {problem}")
    print(f"check-docs: {checked} commands in {len(files)} files, {failures} failing")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
