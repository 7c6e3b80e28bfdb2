"""Production hardening: `check --deploy`, the Content-Security-Policy and pages built for it,
the login rate limit, and the scorer links' secrets.

The policy forbids inline scripts and styles, so no template and no rendered page may have an
inline ``<script>``, a ``<style>`` element, a ``style=`` attribute or an ``on*=`` handler (nor
``hx-on``, which htmx would have to ``eval``). The Chromium check of the admin under the policy
is ``tests/browser/test_security_csp.py``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import string
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import RequestFactory, override_settings
from django.urls import reverse

from scoring import access
from scoring.lei import services
from scoring.models import ClubMembership, Season, new_scorer_token
from tests.builders import make_session, record
from tests.csp import POLICY, directives, inline_parts
from toepen_site.middleware import client_ip

ROOT = Path(__file__).resolve().parents[2]


# --- manage.py check --deploy ----------------------------------------------------------------


def production_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    # The browser tests' conftest sets DJANGO_ALLOW_ASYNC_UNSAFE for this process; a server
    # never has it (check --deploy says so).
    dropped = {"DEBUG", "SECRET_KEY", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="lei.example.nl",
        DATABASE_URL=os.environ.get("DATABASE_URL") or f"sqlite:///{tmp_path / 'deploy.sqlite3'}",
        **extra,
    )
    return env


def test_check_deploy_is_clean_with_production_settings(tmp_path):
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=production_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout
    assert "WARNING" not in done.stderr + done.stdout


def test_production_settings_are_secure(tmp_path):
    code = (
        "import json; from django.conf import settings as s; print(json.dumps({k: getattr(s, k)"
        " for k in ['SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', 'SECURE_SSL_REDIRECT',"
        " 'SECURE_HSTS_SECONDS', 'SECURE_HSTS_INCLUDE_SUBDOMAINS', 'SESSION_COOKIE_HTTPONLY',"
        " 'DEBUG', 'SECURE_CONTENT_TYPE_NOSNIFF', 'X_FRAME_OPTIONS']}))"
    )
    env = production_env(tmp_path, DJANGO_SETTINGS_MODULE="toepen_site.settings")
    done = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    values = json.loads(done.stdout.strip().splitlines()[-1])
    assert values == {
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_SSL_REDIRECT": True,
        "SECURE_HSTS_SECONDS": 31536000,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": True,
        "SESSION_COOKIE_HTTPONLY": True,
        "DEBUG": False,
        "SECURE_CONTENT_TYPE_NOSNIFF": True,
        "X_FRAME_OPTIONS": "DENY",
    }


def test_production_refuses_to_start_without_a_secret_key(tmp_path):
    env = production_env(tmp_path)
    env.pop("SECRET_KEY")
    done = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "SECRET_KEY must be set" in done.stderr


# --- the Content-Security-Policy ---------------------------------------------------------------


def test_the_policy_is_the_strict_one():
    from csp.utils import build_policy

    assert directives(build_policy()) == directives(POLICY)


def test_violation_reports_go_where_csp_report_uri_says(tmp_path):
    env = production_env(
        tmp_path,
        DJANGO_SETTINGS_MODULE="toepen_site.settings",
        CSP_REPORT_URI="https://lei.example.nl/csp-report",
    )
    code = (
        "import django; django.setup(); from csp.utils import build_policy; print(build_policy())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    policy = done.stdout.strip().splitlines()[-1]
    assert directives(policy) == directives(
        POLICY + "; report-uri https://lei.example.nl/csp-report"
    )


TEMPLATE_PATTERNS = {
    "inline <script>": re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I),
    "<style> element": re.compile(r"<style[\s>]", re.I),
    "style= attribute": re.compile(r"\sstyle\s*=", re.I),
    "on*= handler": re.compile(r"\s(?:hx-)?on[a-z:-]*\s*=", re.I),
    "javascript: URL": re.compile(r"javascript:", re.I),
}


def test_no_template_has_inline_scripts_styles_or_handlers():
    found = []
    templates = sorted((ROOT / "templates").rglob("*.html"))
    assert templates
    for path in templates:
        text = re.sub(r"\{#.*?#\}", "", path.read_text(), flags=re.S)  # template comments
        for what, pattern in TEMPLATE_PATTERNS.items():
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(ROOT)}:{line}: {what}")
    assert found == []


@pytest.fixture
def published_games(club, people, django_user_model):
    """A member, a played session with a season, a finished one, and a club that publishes."""
    club.standings_public = True
    club.save()
    member = django_user_model.objects.create_user("annemiek", is_staff=True)
    ClubMembership.objects.create(user=member, club=club, role="admin")
    season = Season.objects.create(club=club, name="Winter", starts_on="2026-01-01")
    running = make_session(club, season=season)
    record(running, "knock", "Anne")
    record(running, "fold", "Bas")
    record(running, "win", "Anne")
    record(running, "knock", "Cees")
    finished = make_session(club, ["Anne", "Bas"], season=season)
    while finished.status == "running":
        record(finished, "win", "Anne")
    services.session_finish(session=finished)
    return {"member": member, "season": season, "running": running, "finished": finished}


def page_urls(world, club) -> list[str]:
    running, finished = world["running"], world["finished"]
    first_round = running.rounds.get(number=1)
    return [
        reverse("home"),
        reverse("login"),
        reverse("session_new"),
        reverse("tablet", args=[running.pk]),
        reverse("tablet", args=[finished.pk]),
        reverse("round_edit", args=[running.pk, 1]),
        reverse("viewer", args=[access.viewer_token(running.pk)]),
        reverse("viewer", args=[access.viewer_token(finished.pk)]) + "?tv=1",
        reverse("league_club", args=[club.slug]),
        reverse("league_season", args=[club.slug, world["season"].pk]),
        reverse("league_player", args=[club.slug, running.seats.first().player_id]),
        reverse("league_archive", args=[club.slug]),
        reverse("league_session", args=[club.slug, finished.pk]),
        reverse("league_evening_today", args=[club.slug]),
        reverse("admin:index"),
        reverse("admin:scoring_session_changelist"),
        reverse("admin:scoring_session_change", args=[running.pk]),
        reverse("admin:scoring_round_change", args=[first_round.pk]),
        reverse("admin:scoring_player_changelist"),
        reverse("admin:scoring_club_change", args=[club.pk]),
    ]


def test_every_page_has_the_policy_and_nothing_inline(client, published_games, club):
    client.force_login(published_games["member"])
    checked = 0
    for url in page_urls(published_games, club):
        for hx in (False, True):
            headers = {"HTTP_HX_REQUEST": "true"} if hx else {}
            response = client.get(url, follow=True, **headers)
            assert response.status_code == 200, url
            assert directives(response["Content-Security-Policy"]) == directives(POLICY), url
            if "html" not in response["Content-Type"]:
                continue
            parts = inline_parts(response.content.decode())
            assert parts.found == [], (url, hx, parts.found)
            # htmx reads the first htmx-config only; there is one, in base.html.
            assert len(parts.htmx_configs) <= 1, url
            for config in parts.htmx_configs:
                config = json.loads(config)
                assert config.get("includeIndicatorStyles") is False, (url, config)
                assert "style" not in config.get("attributesToSettle", ["style"]), (url, config)
            if not hx and url != reverse("login") and not url.startswith("/admin/"):
                assert parts.htmx_configs, url
            checked += 1
    assert checked >= 30


def test_anonymous_pages_and_errors_carry_the_policy_too(client, published_games, club):
    for url in [reverse("home"), reverse("login"), "/no-such-page/", reverse("admin:login")]:
        response = client.get(url)
        assert directives(response["Content-Security-Policy"]) == directives(POLICY), url
        assert response["X-Frame-Options"] == "DENY"
        assert response["X-Content-Type-Options"] == "nosniff"
        assert inline_parts(response.content.decode()).found == [], url


# --- the login rate limit ----------------------------------------------------------------------


# The limit itself (per username and address pair, a ceiling per address):
# tests/site/test_lockout.py.


def test_the_client_address_behind_a_proxy_cannot_be_forged():
    factory = RequestFactory()
    forged = factory.get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9")
    with override_settings(TRUSTED_PROXY_COUNT=0):
        assert client_ip(forged) == "10.0.0.2"
    with override_settings(TRUSTED_PROXY_COUNT=1):
        assert client_ip(forged) == "203.0.113.9"
    with override_settings(TRUSTED_PROXY_COUNT=2):
        assert client_ip(forged) == "6.6.6.6"
    short = factory.get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="")
    with override_settings(TRUSTED_PROXY_COUNT=1):
        assert client_ip(short) == "10.0.0.2"


# --- the scorer links' secrets -----------------------------------------------------------------


def test_scorer_tokens_carry_at_least_256_random_bits():
    tokens = {new_scorer_token() for _ in range(200)}
    assert len(tokens) == 200
    alphabet = set(string.ascii_letters + string.digits + "-_")
    for token in tokens:
        assert set(token) <= alphabet
        assert len(token) * 6 >= 256  # base64url: 6 bits per character


def test_scorer_tokens_come_from_secrets(monkeypatch):
    calls = []

    def spy(nbytes=None):
        calls.append(nbytes)
        return "x" * 43

    monkeypatch.setattr("scoring.models.clubs.secrets.token_urlsafe", spy)
    assert new_scorer_token() == "x" * 43
    assert calls == [32]  # 32 bytes: 256 bits


def test_scorer_tokens_are_compared_in_constant_time(client, session, monkeypatch):
    compared = []
    real = secrets.compare_digest

    def spy(a, b):
        if isinstance(a, str) and token in (a, b):  # Django compares its own secrets too
            compared.append((a, b))
        return real(a, b)

    token = session.scorer_token
    monkeypatch.setattr("scoring.access.secrets.compare_digest", spy)
    assert client.get(reverse("scorer_link", args=[token])).status_code == 302
    assert (token, token) in compared
    compared.clear()
    assert client.get(reverse("tablet", args=[session.pk])).status_code == 200
    assert compared == [(token, token)]  # the grant kept in the Django session, checked again
    wrong = ("y" if token[0] == "x" else "x") + token[1:]  # differs whatever the token is
    assert client.get(reverse("scorer_link", args=[wrong])).status_code == 404
