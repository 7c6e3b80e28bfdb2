"""Settings for the load benchmark's gunicorn only (``bench/load.py``): the app's own settings,
with one extra URL, ``/bench/floor/``, a bare view that returns a short text through the same
middleware. It is the floor of this stack that every request type is compared with. Production
runs ``toepen_site.settings``, where that URL does not exist.
"""

from toepen_site.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
