"""What the studies' tests share (imported by name: pytest puts this folder on ``sys.path``)."""

import json


def read_records(out, name="results.jsonl"):
    """The JSON lines of ``<out>/<name>``."""
    return [json.loads(line) for line in (out / name).read_text().splitlines()]
