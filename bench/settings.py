"""Settings for the load benchmark's gunicorn only (``bench/load.py``): the app's own settings,
with one extra URL, ``/bench/floor/``, a bare view that returns a short text through the same
middleware. It is the floor of this stack that every request type is compared with. Production
runs ``toepen_site.settings``, where that URL does not exist.
"""

from toepen_site.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"

# The benchmarks' tablets tap as fast as the server answers, many to a table: every tap is still
# counted against the tap limit, as in production (scoring/lei/taplimit.py), but never meets it.
TAP_LIMIT_BURST = 10**9
TAP_LIMIT_PER_MINUTE = 60_000
# The load generator is one address for its 3,000 phones: the streams' bound per client
# (scoring/push/views.py) is for real clients, not for it.
PUSH_STREAMS_PER_CLIENT = 10**6
