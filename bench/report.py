"""Write a benchmark's figures into its own section of BENCHMARKS.md, leaving the rest."""

from __future__ import annotations

import os
import platform
import re
import sys
from datetime import date
from pathlib import Path


def machine() -> str:
    """The machine, as every page of BENCHMARKS.md names it."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    python = platform.python_version()
    return f"{cpu}, {os.cpu_count()} cores, Python {python}"


def command(target: str | None = None) -> str:
    """The command that made the figures: ``make <target>`` when make ran the script with only
    the Makefile's options, else the script with its options (a database URL shown as ``…``,
    as it may hold a password)."""
    args = sys.argv[1:]
    own = {"--database-url", "--write"}
    extra = [a for i, a in enumerate(args) if a.split("=")[0] not in own
             and (i == 0 or args[i - 1] not in own)]  # fmt: skip
    if target and os.environ.get("MAKELEVEL") and not extra:
        return f"make {target}"
    shown = [re.sub(r"\w+://\S*", "…", a) for a in args]
    return " ".join([".venv/bin/python", f"bench/{Path(sys.argv[0]).name}", *shown])


def measured(target: str | None = None) -> str:
    """The line every page of BENCHMARKS.md opens with: when, on what, by which command."""
    return f"Measured {date.today():%Y-%m-%d} on {machine()} with `{command(target)}`"


def write_section(path: str, name: str, body: str) -> None:
    """Replace (or add) the section between the markers for ``name``."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    block = f"{begin}\n{body.rstrip()}\n{end}"
    file = Path(path)
    text = file.read_text() if file.exists() else "# Benchmarks\n"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _: block, text) if pattern.search(text) else f"{text}\n{block}\n"
    file.write_text(text)
