"""The app's URLs plus the floor view, for the load benchmark's gunicorn (``bench/settings.py``)."""

from django.http import HttpRequest, HttpResponse
from django.urls import include, path


def floor(request: HttpRequest) -> HttpResponse:
    """The cheapest answer this stack gives: routing and middleware, no query, no template."""
    return HttpResponse("floor", content_type="text/plain")


urlpatterns = [
    path("bench/floor/", floor, name="bench_floor"),
    path("", include("toepen_site.urls")),
]
