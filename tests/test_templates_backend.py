"""The template backend of toepen_site/templates.py: a drawn page's context is freed by reference
counting at once, not left for the cyclic garbage collector."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest
from django.template import TemplateDoesNotExist, engines
from django.template.backends.django import DjangoTemplates as DjangosOwn
from django.test import RequestFactory

from toepen_site.templates import DjangoTemplates


class Thing:
    name = "Anne"


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def drawn_and_dropped(backend, *, request: bool) -> weakref.ref:
    """Draw a page whose context holds a ``Thing``; a weak reference to it once all is dropped."""
    thing = Thing()
    seen = weakref.ref(thing)
    template = backend.from_string("<p>{{ thing.name }}</p>")
    page = template.render({"thing": thing}, RequestFactory().get("/") if request else None)
    assert page == "<p>Anne</p>"
    del thing, template, page
    return seen


def test_a_page_drawn_for_a_request_lets_go_of_its_context_at_once(collector_off):
    assert isinstance(engines["django"], DjangoTemplates)  # the settings use it, by Django's name
    assert drawn_and_dropped(engines["django"], request=True)() is None
    assert drawn_and_dropped(engines["django"], request=False)() is None


def test_djangos_own_backend_still_needs_the_collector(collector_off):
    """Why the backend exists: Django's keeps the context in a cycle. When this fails, Django
    stopped doing that, and toepen_site/templates.py can go."""
    own = DjangosOwn({"NAME": "own", "DIRS": [], "APP_DIRS": False, "OPTIONS": {}})
    seen = drawn_and_dropped(own, request=True)
    assert seen() is not None
    gc.collect()
    assert seen() is None


def test_a_missing_template_is_still_reported_by_name():
    with pytest.raises(TemplateDoesNotExist, match=r"no/such\.html"):
        engines["django"].get_template("no/such.html")
