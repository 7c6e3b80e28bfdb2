"""Write a benchmark's figures into its own section of BENCHMARKS.md, leaving the rest."""

from __future__ import annotations

import os
import platform
import re
from datetime import date
from pathlib import Path


def machine() -> str:
    """The machine and the day, as every page of BENCHMARKS.md names them."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    python = platform.python_version()
    return f"{cpu}, {os.cpu_count()} cores, Python {python}, {date.today():%Y-%m-%d}"


def write_section(path: str, name: str, body: str) -> None:
    """Replace (or add) the section between the markers for ``name``."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    block = f"{begin}\n{body.rstrip()}\n{end}"
    file = Path(path)
    text = file.read_text() if file.exists() else "# Benchmarks\n"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _: block, text) if pattern.search(text) else f"{text}\n{block}\n"
    file.write_text(text)
