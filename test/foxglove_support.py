"""Helpers for the tests that run the node with foxglove:=true and Foxglove's own client libraries in Node."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

#: Where Foxglove's Node client scripts and their node_modules live.
FOXGLOVE = Path(__file__).resolve().parent / "foxglove"


def skip_reason() -> str | None:
    if shutil.which("node") is None:
        return "node (Node.js) is not installed (run tools/setup_env.sh)"
    if not (FOXGLOVE / "node_modules" / "@foxglove" / "ws-protocol").is_dir():
        return "Foxglove's libraries are not installed in test/foxglove/node_modules (run tools/setup_env.sh)"
    try:
        import foxglove  # noqa: F401
    except ImportError:
        return "foxglove-sdk is not installed (pip install -r requirements.txt)"
    return None


def served_port(log: Path, proc: subprocess.Popen, timeout: float = 60.0) -> int:
    """The Foxglove port the node prints at start."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        found = re.search(r"Foxglove: ws://[^:]+:(\d+)", log.read_text(errors="replace"))
        if found:
            return int(found.group(1))
        time.sleep(0.2)
    raise AssertionError(f"no Foxglove address printed:\n{log.read_text(errors='replace')}")
