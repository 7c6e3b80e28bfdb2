"""What the tablet's outbox (static/js/lei.js) reads in the answer to a tap: whether it was
recorded (``X-Lei-Outcome``), the version the next tap must expect (``X-Lei-Version``), the
words for a refusal, a stale tap, an undo and a round's end; the buttons offered offline; and
the service worker that keeps the tablet page."""

from __future__ import annotations

import re

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scoring.lei import outbox
from scoring.models import Round, Session
from tests.builders import HX, record, tap


def undo(client, session: Session, *, key: str, htmx: bool = True):
    session.refresh_from_db()
    data = {"version": session.version, "key": key}
    return client.post(reverse("session_undo", args=[session.pk]), data, **(HX if htmx else {}))


def log(session: Session) -> list[tuple[str, str]]:
    session.refresh_from_db()
    return [(e["type"], e["player"]) for r in session.rounds.order_by("number") for e in r.events]


# --- what the outbox reads -----------------------------------------------------------------


def test_a_recorded_tap_says_so_and_names_the_version_the_next_tap_expects(scorer, session):
    response = tap(scorer, session, "knock", "Bas", key="k1")
    session.refresh_from_db()
    assert response["X-Lei-Outcome"] == "recorded"
    assert response["X-Lei-Version"] == str(session.version) == "1"
    assert 'data-version="1"' in response.content.decode()


def test_a_resent_tap_is_recorded_once_and_answers_as_recorded(scorer, session):
    tap(scorer, session, "knock", "Bas", key="k1")
    again = tap(scorer, session, "knock", "Bas", version=0, key="k1")
    assert again["X-Lei-Outcome"] == "recorded"  # the outbox lets it go: it arrived before
    assert again["X-Lei-Version"] == "1"
    assert log(session) == [("knock", "Bas")]


def test_a_refused_tap_says_plainly_it_was_not_recorded_and_why(scorer, session):
    tap(scorer, session, "knock", "Bas", key="k1")
    response = tap(scorer, session, "knock", "Bas", key="k2")  # his own raise
    html = response.content.decode()
    assert response["X-Lei-Outcome"] == "refused"
    assert response["X-Lei-Version"] == "1"  # unchanged: the next tap expects the same
    assert "Niet opgeslagen: Bas kan niet toepen: de laatste toep is van hemzelf" in html
    assert log(session) == [("knock", "Bas")]


def test_a_stale_tap_says_plainly_it_was_not_recorded_and_why(scorer, session):
    record(session, "knock", "Cees")  # another tablet
    response = tap(scorer, session, "knock", "Bas", version=0, key="old")
    html = response.content.decode()
    assert response["X-Lei-Outcome"] == "stale"
    assert response["X-Lei-Version"] == "1"
    assert 'id="stale"' in html
    assert "Niet opgeslagen: de lei was al verder dan deze tik verwachtte." in html
    assert "andere tablet" not in html  # it may have been this tablet's own tap
    assert log(session) == [("knock", "Cees")]


def test_the_not_recorded_message_is_translated(scorer, session):
    tap(scorer, session, "knock", "Bas", key="k1")
    scorer.cookies["django_language"] = "en"
    html = tap(scorer, session, "knock", "Bas", key="k2").content.decode()
    assert "Not saved: Bas cannot knock: the latest raise is their own" in html


# --- undo says what it took back --------------------------------------------------------


def test_undo_says_what_it_took_back(scorer, session):
    tap(scorer, session, "knock", "Bas", key="k1")
    tap(scorer, session, "fold", "Cees", key="k2")
    response = undo(scorer, session, key="u1")
    html = response.content.decode()
    assert (
        '<div class="notice notice--ok" role="status" id="undone">Weg van Cees ongedaan gemaakt.'
        in html
    )
    assert log(session) == [("knock", "Bas")]


def test_undo_of_a_last_trick_with_a_boer_says_so_and_a_plain_undo_too(scorer, session):
    tap(scorer, session, "win", "Anne", key="k1", jack="on")
    assert (
        "Laatste slag met boer van Anne ongedaan gemaakt."
        in undo(scorer, session, key="u1").content.decode()
    )
    tap(scorer, session, "knock", "Dirk", key="k2")
    response = undo(scorer, session, key="u2", htmx=False)  # without JavaScript: on the page
    assert response.status_code == 302
    assert "Toep van Dirk ongedaan gemaakt." in scorer.get(response["Location"]).content.decode()


def test_a_resent_undo_takes_back_one_tap_and_says_nothing_more(scorer, session):
    tap(scorer, session, "knock", "Bas", key="k1")
    tap(scorer, session, "fold", "Cees", key="k2")
    session.refresh_from_db()
    data = {"version": session.version, "key": "u1"}
    url = reverse("session_undo", args=[session.pk])
    assert "Weg van Cees" in scorer.post(url, data, **HX).content.decode()
    again = scorer.post(url, data, **HX).content.decode()  # the wifi dropped the answer
    assert 'id="undone"' not in again
    assert log(session) == [("knock", "Bas")]


def test_undo_with_nothing_to_undo_is_not_recorded(scorer, session):
    response = undo(scorer, session, key="u1")
    assert response["X-Lei-Outcome"] == "refused"
    assert "Niet opgeslagen: Er is niets om ongedaan te maken." in response.content.decode()


def test_undo_of_the_presence_says_so(scorer, session):
    session.refresh_from_db()
    url = reverse("session_presence", args=[session.pk])
    data = {"version": session.version, "key": "p1", "absent_0": "toilet"}
    assert scorer.post(url, data, **HX)["X-Lei-Outcome"] == "recorded"
    html = undo(scorer, session, key="u1").content.decode()
    assert "Aanwezigheid ongedaan gemaakt." in html
    assert session.rounds.count() == 0


def test_an_undo_reads_the_rounds_once_under_its_lock(scorer, session):
    # Its words come from what the write itself took back, not from a read of the log
    # before the write: the rounds are read once, by the write.
    tap(scorer, session, "knock", "Bas", key="k0")
    tap(scorer, session, "fold", "Cees", key="k1")
    session.refresh_from_db()
    data = {"version": session.version, "key": "u1"}
    url = reverse("session_undo", args=[session.pk])
    with CaptureQueriesContext(connection) as undone:
        html = scorer.post(url, data, **HX).content.decode()
    assert "Weg van Cees ongedaan gemaakt." in html
    table = Round._meta.db_table
    reads = [
        q["sql"] for q in undone if q["sql"].startswith("SELECT") and f'FROM "{table}"' in q["sql"]
    ]
    assert len(reads) == 1, reads


# --- the round's result, and the buttons offered offline -----------------------------------


def test_a_tap_that_ends_a_round_shows_its_result(scorer, session):
    tap(scorer, session, "knock", "Bas", key="k1")
    assert 'id="round-flash"' not in tap(scorer, session, "stay", "Cees", key="k2").content.decode()
    tap(scorer, session, "stay", "Dirk", key="k3")
    tap(scorer, session, "stay", "Anne", key="k4")
    html = tap(scorer, session, "win", "Dirk", key="k5").content.decode()
    assert (
        '<p class="round-flash" id="round-flash" role="status">Ronde 1: Dirk wint — inzet 2</p>'
        in html
    )


def test_the_last_fold_ending_a_round_shows_its_result(scorer, session):
    tap(scorer, session, "knock", "Bas", key="k1")
    tap(scorer, session, "fold", "Cees", key="k2")
    tap(scorer, session, "fold", "Dirk", key="k3")
    html = tap(scorer, session, "fold", "Anne", key="k4").content.decode()
    assert "Ronde 1: de rest is weg, Bas wint — inzet 2" in html


def test_every_active_player_has_every_button_offline_with_its_name(scorer, session):
    tap(scorer, session, "knock", "Bas", key="k1")
    html = tap(scorer, session, "fold", "Cees", key="k2").content.decode()
    for name in ("Anne", "Bas", "Dirk"):
        for label in ("Toep", "Mee", "Weg", "Laatste slag"):
            assert html.count(f'aria-label="{label}: {name}"') == 1, (label, name)
    # Bas raised last: his Toep waits for the outbox, with why not online.
    assert re.search(
        r'class="[^"]*offline-only[^"]*" name="type" value="knock"\s+aria-label="Toep: Bas"', html
    )
    assert 'aria-label="Toep: Bas (kan niet)"' in html
    cees = html[html.index('name="player" value="Cees"') :]
    cees = cees[: cees.index("</form>")]
    # Folded: nothing more to tap this round; only the next round's buttons, shown once a
    # round-ending tap waits in the outbox (static/js/lei.js, data-round-moved).
    buttons = re.findall(r"<button[^>]*>", cees)
    assert len(buttons) == 3
    assert all("next-round-only" in b for b in buttons)
    assert html.count("data-outbox") >= 6  # every tap form goes into the outbox


# --- the service worker -----------------------------------------------------------------


def test_the_service_worker_keeps_tablet_pages_only_and_is_asked_for_every_time(client, db):
    response = client.get("/lei-sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Cache-Control"] == "no-cache"
    assert "script-src 'self'" in response["Content-Security-Policy"]
    body = response.content.decode()
    assert 'new RegExp("^/sessies/[0\\u002D9]+/$")' in body
    # Signing in or out, here or in the admin, drops the kept pages (a page is one person's).
    signing = 'const SIGNING = ["/inloggen/", "/uitloggen/", "/admin/login/", "/admin/logout/"];'
    assert signing in body
    assert "/tafel/" not in body  # the secret scorer link is never kept
    assert client.post("/lei-sw.js").status_code == 405


def test_the_service_worker_is_served_with_the_manifest_storage_of_production(client, db, settings):
    """With DEBUG off every ``static()`` asks the manifest (``collectstatic``), which has no entry
    for the prefix itself: the worker names the prefix, not a file (it was a 500)."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"},
    }
    response = client.get("/lei-sw.js")
    assert response.status_code == 200
    assert 'const STATIC = "/static/";' in response.content.decode()


def test_the_tablet_registers_the_service_worker_from_the_sites_root(scorer, session):
    html = scorer.get(reverse("tablet", args=[session.pk])).content.decode()
    assert 'data-worker="/lei-sw.js"' in html


def test_the_service_worker_lets_taps_go_straight_to_the_network_but_sees_signing_out(client, db):
    body = client.get("/lei-sw.js").content.decode()
    assert 'const TAPS = "/sessies/*";' in body
    assert 'condition: {requestMethod: "post", urlPattern: {pathname: TAPS}}' in body


# --- whose taps ---------------------------------------------------------------------------


def test_the_tablet_page_names_its_person_by_an_opaque_id(scorer, session, user):
    html = scorer.get(reverse("tablet", args=[session.pk])).content.decode()
    person = outbox.person_id(user)
    assert f'data-person="{person}"' in html
    assert user.username not in person
    assert re.fullmatch(r"[0-9a-f]{20}", person)


def test_a_tap_kept_for_another_person_is_refused_and_records_nothing(
    scorer, session, user, django_user_model
):
    url = reverse("session_event", args=[session.pk])
    other = django_user_model.objects.create_user("tweede", password="x")
    data = {"type": "knock", "player": "Bas", "version": session.version, "key": "k-1"}
    refused = scorer.post(url, data, HTTP_X_LEI_PERSON=outbox.person_id(other), **HX)
    assert (refused.status_code, refused["X-Lei-Other-Person"]) == (403, "1")
    assert "van iemand anders" in refused.content.decode()
    session.refresh_from_db()
    assert session.version == 0
    assert not session.rounds.exists()
    # Its own person's tap goes through, as does one without the header (htmx, no JavaScript).
    taken = scorer.post(url, data, HTTP_X_LEI_PERSON=outbox.person_id(user), **HX)
    assert taken["X-Lei-Outcome"] == "recorded"
    assert tap(scorer, session, "fold", "Cees")["X-Lei-Outcome"] == "recorded"


def test_a_sign_out_names_the_person_for_the_tablet_and_a_login_or_a_page_does_not(
    client, user, django_user_model
):
    """The site's logout and the admin's both mark who signed out (the tablet then drops their
    waiting taps); a login, or any other answer, sets no mark."""
    other = django_user_model.objects.create_user("beheer", password="x", is_staff=True)
    client.force_login(user)
    assert outbox.SIGNED_OUT not in client.get(reverse("home")).cookies
    out = client.post(reverse("logout"))
    assert out.cookies[outbox.SIGNED_OUT].value == outbox.person_id(user)
    assert not out.cookies[outbox.SIGNED_OUT]["httponly"]  # lei.js reads it
    login = client.post(reverse("login"), {"username": "beheer", "password": "x"})
    assert outbox.SIGNED_OUT not in login.cookies
    out = client.post(reverse("admin:logout"))
    both = f"{outbox.person_id(user)}.{outbox.person_id(other)}"
    assert out.cookies[outbox.SIGNED_OUT].value == both


def test_a_tap_from_a_signed_out_tablet_asks_for_a_login_not_a_hand_over(client, session, user):
    url = reverse("session_event", args=[session.pk])
    data = {"type": "knock", "player": "Bas", "version": session.version, "key": "k-1"}
    refused = client.post(url, data, HTTP_X_LEI_PERSON=outbox.person_id(user), **HX)
    assert (refused.status_code, refused["X-Login-Needed"]) == (403, "1")
    assert "X-Lei-Other-Person" not in refused
