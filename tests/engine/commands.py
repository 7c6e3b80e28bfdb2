"""``manage.py replay`` run in the test's own process through ``call_command``, answered as the
command line answers: exit status, standard output, standard error.

Starting a Python for each call cost seconds a test; what the process adds (Django's
``run_from_argv`` turning a CommandError into one line on stderr and exit status 1) is what
Django does for every command, and two tests in test_replay_command.py still run the real CLI.
"""

from __future__ import annotations

import io
import subprocess
from unittest import mock

from django.core.management import CommandError, call_command


def replay_command(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """``manage.py replay ARGS`` with ``stdin`` as standard input (for the file ``-``)."""
    out, err = io.StringIO(), io.StringIO()
    typed = io.TextIOWrapper(io.BytesIO((stdin or "").encode()), encoding="utf-8")
    status = 0
    with mock.patch("sys.stdin", typed):
        try:
            call_command("replay", *args, stdout=out, stderr=err)
        except SystemExit as leaving:  # a refused session: sys.exit(1) after its one line
            status = leaving.code
        except CommandError as error:  # what run_from_argv prints, and its exit status
            status = error.returncode
            err.write(f"CommandError: {error}\n")
    return subprocess.CompletedProcess(["replay", *args], status, out.getvalue(), err.getvalue())
