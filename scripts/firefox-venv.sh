#!/usr/bin/env bash
# firefox-venv.sh - makes .build/firefox-venv with marionette_driver (PyPI), Mozilla's client for driving Firefox, once,
# and prints its python. The Firefox page test (scripts/browsers_test.py, scripts/test.sh web) drives Firefox ESR with it.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/firefox-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" >&2
"$venv/bin/python" -c "import marionette_driver" 2>/dev/null || "$venv/bin/pip" install --quiet marionette_driver==3.7.1 >&2
echo "$venv/bin/python"
