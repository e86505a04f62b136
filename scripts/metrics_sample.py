"""Prints one scrape of a `/metrics` URL as JSON, read by Prometheus's own parser (prometheus-client).

Usage: metrics_sample.py URL. Each sample is a key `name` or `name{label="value",…}` (labels sorted) with its value.
The fault matrix (Tests/CaptureTests/HardwareFaultTests.swift) reads the host's metrics through it in the VM, with the
venv scripts/metrics-venv.sh makes.
"""

import json
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def main():
    with urllib.request.urlopen(sys.argv[1], timeout=60) as response:
        body = response.read().decode()
    samples = {}
    for family in text_string_to_metric_families(body):
        for sample in family.samples:
            labels = ",".join(f'{key}="{value}"' for key, value in sorted(sample.labels.items()))
            samples[sample.name + ("{" + labels + "}" if labels else "")] = sample.value
    print(json.dumps(samples, sort_keys=True))


if __name__ == "__main__":
    main()
