#!/usr/bin/env bash
# metrics-venv.sh - makes .build/metrics-venv with Prometheus's own text parser (PyPI prometheus-client), once, and
# prints its python. The metrics suite (scripts/test.sh metrics) and the fault matrix in the VM read /metrics with it.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/metrics-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" >&2
"$venv/bin/python" -c "import prometheus_client" 2>/dev/null || "$venv/bin/pip" install --quiet prometheus-client >&2
echo "$venv/bin/python"
