"""ASGI entry point: the whole app, and the pushed streams (scoring/push/), which only an ASGI
server can hold open by the thousand. README, "Production", says how it is served."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toepen_site.settings")

application = get_asgi_application()

from scoring.push.context import serving_asgi  # noqa: E402 (after Django is set up)

serving_asgi()
