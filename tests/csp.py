"""The content security policy the site sends, and a finder of what that policy would block in a
page: inline scripts, styles and handlers (shared by the site's and the toernooi's pages)."""

from __future__ import annotations

from html.parser import HTMLParser

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; "
    "object-src 'none'"
)


def directives(header: str) -> list[str]:
    """A policy's directives in a fixed order: django-csp writes them in no particular one
    (browsers read them in any)."""
    return sorted(part.strip() for part in header.split(";"))


class InlineFinder(HTMLParser):
    """Everything a strict policy would block: inline scripts, styles and handlers."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self.htmx_configs: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "script" and not names.get("src"):
            self.found.append("inline <script>")
        if tag == "style":
            self.found.append("<style> element")
        for name, _value in attrs:
            if name == "style":
                self.found.append(f"style= on <{tag}>")
            if name.startswith(("on", "hx-on")):
                self.found.append(f"{name}= on <{tag}>")
            if name == "href" and (_value or "").strip().lower().startswith("javascript:"):
                self.found.append(f"javascript: link on <{tag}>")
        if tag == "meta" and names.get("name") == "htmx-config":
            self.htmx_configs.append(names.get("content") or "")


def inline_parts(html: str) -> InlineFinder:
    finder = InlineFinder()
    finder.feed(html)
    return finder
