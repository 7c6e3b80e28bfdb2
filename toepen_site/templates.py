"""Django's template backend, letting go of a page's context as soon as the page is drawn.

``render(request, ...)`` wraps the view's context in a ``RequestContext``, and Django's
``make_context`` pushes the view's dict onto it as a ``ContextDict``, which points back at the
context: a reference cycle. Reference counting cannot free a cycle, so everything a view puts in
its context (for a tap: the whole lei, with the sheet's cells, the panel and the engine's
result) stayed in memory after the request, until Python's cyclic garbage collector found it.
The collector walks every object it keeps track of, so this work added up: about 500 objects
a tap. Emptying the context once the page is drawn breaks the cycle, and reference counting
frees the lot there and then. Under the load benchmark this halved the time the app servers
spent collecting (BENCHMARKS.md, "Friday night at scale").

Nothing reads a context after its page is drawn. The test client's copy of it
(``response.context``) keeps its own list of the dicts, so clearing this list does not touch it.

``TEMPLATES`` names this backend with ``"NAME": "django"``, the alias Django's own backend has,
which is also the name django-template-partials looks for when it puts its loader in front.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.template import TemplateDoesNotExist
from django.template.backends import django as django_backend
from django.template.context import make_context


class Template(django_backend.Template):
    def render(
        self, context: dict[str, Any] | None = None, request: HttpRequest | None = None
    ) -> str:
        made = make_context(context, request, autoescape=self.backend.engine.autoescape)
        try:
            return self.template.render(made)
        except TemplateDoesNotExist as exc:
            django_backend.reraise(exc, self.backend)
        finally:
            made.dicts.clear()


class DjangoTemplates(django_backend.DjangoTemplates):
    """Django's backend, its templates wrapped in the ``Template`` above (finding them, and
    reporting one that is missing, stay Django's)."""

    def from_string(self, template_code: str) -> Template:
        return Template(super().from_string(template_code).template, self)

    def get_template(self, template_name: str) -> Template:
        return Template(super().get_template(template_name).template, self)
