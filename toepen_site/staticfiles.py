"""The static files as production serves them: ``collectstatic``'s manifest and whitenoise's
compressed copies, of the app's own scripts and styles minified.

The sources in ``static/`` stay as written, with their comments; what a tablet downloads is
what it runs, without them (BENCHMARKS.md, "Tablet": the first load's goal). The admin's and
the packages' files are served as their authors ship them.
"""

from django.core.files.base import ContentFile
from rcssmin import cssmin
from rjsmin import jsmin
from whitenoise.storage import CompressedManifestStaticFilesStorage

MINIFY = {".js": jsmin, ".css": cssmin}
OWN = ("js/", "css/")  # static/'s folders; the admin's are admin/, django-htmx's django_htmx/


class MinifiedManifestStorage(CompressedManifestStaticFilesStorage):
    def _save(self, name: str, content):
        # Every copy passes here (the plain name and each hashed one), before whitenoise
        # compresses them; the hash is of the source, so it changes whenever the source does.
        minify = MINIFY.get(name[name.rfind(".") :]) if name.startswith(OWN) else None
        if minify is not None and ".min." not in name:
            content.seek(0)
            content = ContentFile(minify(content.read().decode()).encode())
        return super()._save(name, content)
