"""The safety figures: run the fuzz, permission, restart and backup tests and write
what they tried into the "safety" section of BENCHMARKS.md.

    .venv/bin/python bench/safety.py [--write BENCHMARKS.md]

Each test adds a line of figures to the file named by ``SAFETY_FIGURES`` (``tests/safety.py``'s
``note``); the figures are only written when every test passed, so "0 lost" means the tests
that check it passed. Set ``DATABASE_URL`` to run them on PostgreSQL (CI does).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.report import measured, write_section  # noqa: E402

TESTS = [
    "tests/lei/test_fuzz_import.py",
    "tests/lei/test_fuzz_tablet.py",
    "tests/clubs/test_fuzz_forms.py",
    "tests/site/test_permissions_matrix.py",
    "tests/lei/test_restart.py",
    "tests/clubs/test_security_backup.py",
    "tests/site/test_security_headers.py",
    "tests/site/test_hostile_input.py",
    "tests/site/test_hostile_door.py",
    "tests/site/test_device_cookie.py",
]


def run() -> tuple[dict[str, dict[str, int]], float]:
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", delete=False) as handle:
        path = handle.name
    env = {**os.environ, "SAFETY_FIGURES": path}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS], cwd=ROOT, env=env
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit("the safety tests failed: no figures written")
    totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for line in Path(path).read_text().splitlines():
        entry = json.loads(line)
        for key, value in entry.items():
            if key.startswith("max_"):  # the largest, the slowest: not a count
                totals[entry["test"]][key] = max(totals[entry["test"]][key], value)
            elif key != "test":
                totals[entry["test"]][key] += value
    os.unlink(path)
    return totals, seconds


# One line each in BENCHMARKS.md, which is capped in length (tests/site/test_house.py).
TRIED = (
    "counting what they tried; the fuzzing derandomized and bounded, every figure checked by "
    "a test that passed."
)
ALL_CLEAR = "0 server errors, 0 events lost or doubled, every URL pattern for every role covered."


def body(totals: dict[str, dict[str, int]], seconds: float) -> str:
    tablet, forms, imports = totals["tablet"], totals["forms"], totals["import_session"]
    matrix, patterns = totals["matrix"], totals["matrix_patterns"]
    restart, backup, hostile = totals["restart"], totals["backup"], totals["hostile"]
    flood, logins, dupes = totals["door_flood"], totals["door_logins"], totals["door_files"]
    heads = totals["head_private"]
    url = os.environ.get("DATABASE_URL", "")
    database = "PostgreSQL" if url.startswith("postgres") else "SQLite"
    requests = tablet["requests"] + forms["corrections"] + forms["setups"] + hostile["requests"]
    requests += flood["requests"]
    files = imports["files"] + hostile["files"] + dupes["files"]
    rows = [
        (
            "tablet taps, undos, closing time over HTTP (legal and illegal, HTMX and plain)",
            f"{tablet['requests']} requests in {tablet['sessions']} sessions",
            f"{tablet['accepted']} accepted, {tablet['refused']} refused; "
            f"**{tablet['server_errors']} 5xx**; events lost 0, doubled 0; "
            "projection = replay in every session",
        ),
        (
            "admin round corrections (rows, absent, joining, versions, keys, management form)",
            f"{forms['corrections']} posts",
            f"{forms['accepted']} accepted and stored exactly, {forms['refused']} refused "
            "changing nothing; 0 5xx",
        ),
        (
            "session set-up form (seats, dealer, presets, rules, teams, pot amounts)",
            f"{forms['setups']} posts",
            f"{forms['started']} sessions started, the rest shown again with a message; 0 5xx",
        ),
        (
            "`import_session` with damaged files (cut off, retyped, deleted, doubled, unicode)",
            f"{imports['files']} files",
            f"{imports['imported']} imported with projection = replay, {imports['refused']} "
            "refused with a message and nothing written",
        ),
        (
            "permissions matrix: URL patterns x roles x GET/POST, CSRF enforced",
            f"{patterns['patterns']} patterns x {patterns['roles']} roles x 2 methods: "
            f"{matrix['cells']} checks (the admin as one group of 3 pages)",
            f"every answer as in the table; {matrix['csrf_refusals']} POSTs without the CSRF "
            "token, all 403",
        ),
        (
            "gunicorn killed with SIGKILL mid-round and started again",
            f"{restart['kills']} kills, {restart['taps']} taps (2 of them resent)",
            f"{restart['accepted']} recorded; lost {restart['lost']}, doubled {restart['doubled']}",
        ),
        (
            "hostile input: every page, form, filter and URL converter of the app, the "
            "toernooi and the admin (changelists with their filters and search, actions, "
            "autocomplete, change and add forms) its extremes (huge, negative, 400 and 5,000 "
            "digits, NaN, NUL, lone surrogates, JSON 3,000 deep, non-UTF-8, formula text, "
            "HTML), and `import_session` files with extreme numbers, names, bytes, depth and "
            "size (`tests/site/test_hostile_input.py`)",
            f"{hostile['requests']} requests, {hostile['files']} files",
            f"**{hostile['server_errors']} 5xx**; largest answer "
            f"{hostile['max_answer_bytes'] / 1024:.0f} KB (limit 200 KB); slowest "
            f"{hostile['max_ms']} ms of server time (measured, not asserted; the test prints "
            f"which request it was); at most {hostile['max_queries']} queries a request "
            f"(limit 100); {hostile['writes']} writes accepted, events lost or doubled "
            f"{hostile['lost_or_doubled']}; projection = replay in every session; "
            f"{hostile['imported']} files imported, the rest refused with a message",
        ),
        (
            "at the door (`tests/site/test_hostile_door.py`, `test_device_cookie.py`): the "
            "check-in QR flooded from the pub's one address, a fresh cookie each post, twenty "
            "a second, one name in five hostile; 51 failed logins with random names there, then "
            "a member's own browser (its device cookie) and a fresh one",
            f"{flood['requests']} posts, {logins['failures']} failed logins",
            f"{flood['accepted']} guests waiting (the crowd's burst), {flood['refused']} "
            f"refused 429, {flood['other_refusals']} names refused in words; **"
            f"{flood['server_errors']} 5xx**; places of the evening taken: "
            f"{flood['places_taken']}; organiser and member checked in; the member's browser "
            f"signed in ({logins['member_logins']}), the fresh one waits "
            f"({logins['fresh_refused']} refused 429)",
        ),
        (
            "HEAD of every URL pattern and the Cache-Control of every page a member gets "
            "(anonymous, scorer, club admin); session, replay and club files with a key "
            "written twice (`players`, a rule, an event's type, the club file's first key)",
            f"{heads['heads']} HEAD requests, {heads['private_pages']} member pages, "
            f"{dupes['files']} imports",
            "HEAD answered as GET without a body wherever GET is (the event stream aside); "
            f"every member page `private` or `no-store`; {dupes['refused']} files refused "
            "naming the key, nothing written",
        ),
        (
            "club backup: `export_club`, delete, `import_club`",
            f"{backup['sessions']} random sessions, {backup['rounds']} rounds, "
            f"{backup['audit_entries']} audit entries",
            f"files, scores, results and audit trail identical: {backup['diffs']} differences",
        ),
    ]
    table = "\n".join(f"| {what} | {tried} | {outcome} |" for what, tried, outcome in rows)
    return f"""## Safety: nothing lost, nobody in where they don't belong

{measured()}: the safety tests on {database}, {seconds:.0f} s, {TRIED}

| what | tried | outcome |
|---|---|---|
{table}

In all: **{requests} fuzzed web requests and {files} fuzzed files, {ALL_CLEAR}**
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", metavar="FILE", help="write the section into this file")
    args = parser.parse_args()
    totals, seconds = run()
    text = body(totals, seconds)
    print(text)
    if args.write:
        write_section(args.write, "safety", text)


if __name__ == "__main__":
    main()
