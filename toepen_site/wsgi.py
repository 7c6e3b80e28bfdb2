"""WSGI entry point, e.g. `gunicorn toepen_site.wsgi`.

Once the app is loaded (its settings, apps, models and URLs), everything Python's cyclic garbage
collector tracks so far lives as long as the process. ``gc.freeze()`` moves it out of the
collector's way, so a full collection walks only what requests made since: in a warm worker
it walked some 80,000 objects, 40 ms on the benchmark's machine, and under load each of a
worker's full collections held up the request it fell in for about 100 ms (BENCHMARKS.md,
"Friday night at scale"). Nothing frozen is freed by the collector later, and nothing here
needs to be: it is the app itself.
"""

import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toepen_site.settings")

application = get_wsgi_application()
get_resolver().url_patterns  # noqa: B018 (imports the URLs and the views before the freeze)
gc.freeze()
