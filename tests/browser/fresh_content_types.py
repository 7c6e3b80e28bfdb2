"""A middleware of the browser tests' server only (``deployed_settings.py``).

Between tests, pytest-django empties the test database and Django makes the content types
again, with new ids; the server outlives the tests (one gunicorn for the run), and Django's
``ContentType`` cache would keep the old ids, so the admin's log entry of a later test points
at a content type that is gone (an IntegrityError, a 500 that no pub can meet: a real server's
content types never change under it). Each request forgets them first.
"""

from django.contrib.contenttypes.models import ContentType


def forget_content_types(get_response):
    def middleware(request):
        ContentType.objects.clear_cache()
        return get_response(request)

    return middleware
