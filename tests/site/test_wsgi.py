"""The WSGI entry point (toepen_site/wsgi.py): the app loaded, its URLs and views imported,
and all of it moved out of the cyclic garbage collector's way (``gc.freeze``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc, sys
before = len(gc.get_objects())
import toepen_site.wsgi
print(before, gc.get_freeze_count(), len(gc.get_objects()), "scoring.lei.views" in sys.modules)
"""


def test_the_loaded_app_is_frozen_out_of_the_collectors_way():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env.update(DEBUG="true", SECRET_KEY="wsgi-test-" + "k" * 40, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    before, frozen, left, views_loaded = done.stdout.split()
    assert views_loaded == "True"  # the URLs, and with them the views, came before the freeze
    assert int(frozen) > 10 * int(before)  # the app, not only the interpreter's start
    assert int(left) < int(before)  # what the collector still walks: next to nothing
