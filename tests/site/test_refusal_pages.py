"""The pages an organiser meets when a form cannot be taken or a link leads nowhere: the login
ran out halfway through the evening (scoring/http.py, ``login_needed``), a form older than the
last login (``csrf_failure``), a page that is not there (templates/404.html) and a server error
(templates/500.html). Each is a page of the site in the reader's language that says nothing
was saved and how to go on, never Django's bare text; and nothing changes."""

from __future__ import annotations

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import translation
from django.views.defaults import server_error

from scoring.models import ClubMembership, EveningPlayer, Player


def page_of(evening) -> str:
    return "http://testserver" + reverse("evening_page", args=[evening.pk])


def test_a_form_posted_after_the_login_ran_out_leads_back_to_its_page_through_the_login(
    client, evening
):
    players = Player.objects.count()
    response = client.post(
        reverse("evening_add", args=[evening.pk]), {"name": "Kees"}, HTTP_REFERER=page_of(evening)
    )
    assert response.status_code == 403
    # The tablet's outbox reads the header (static/js/lei.js), whatever the words.
    assert response["X-Login-Needed"] == "1"
    assert "no-store" in response["Cache-Control"]
    assert [t.name for t in response.templates][:2] == ["scoring/refused.html", "base.html"]
    page = response.content.decode()
    assert "Log in als beheerder van de club." in page
    assert "Er is niets opgeslagen." in page
    # Back to the evening's page after the login, not to the address that takes only posts.
    login = reverse("login") + "?next=" + reverse("evening_page", args=[evening.pk])
    assert f'href="{login}"' in page
    # Another language reopens the evening's page, not the address that takes only posts.
    assert 'name="next" value="' + reverse("evening_page", args=[evening.pk]) + '"' in page
    assert (EveningPlayer.objects.count(), Player.objects.count()) == (0, players)


def test_the_login_page_speaks_the_readers_language(client, evening):
    response = client.post(
        reverse("evening_draw", args=[evening.pk]),
        {"round": "1"},
        HTTP_REFERER=page_of(evening),
        HTTP_ACCEPT_LANGUAGE="de",
    )
    assert response.status_code == 403
    page = response.content.decode()
    assert "Du bist nicht (mehr) angemeldet. Es wurde nichts gespeichert." in page
    assert not evening.tables.exists()


@pytest.mark.parametrize(
    "referer",
    ["https://elders.example/avonden/1/", "", "javascript:x", "http://testserver//elders.example/"],
)
def test_the_way_back_never_leads_off_the_site(client, evening, referer):
    headers = {"HTTP_REFERER": referer} if referer else {}
    response = client.post(reverse("evening_add", args=[evening.pk]), {"name": "Kees"}, **headers)
    assert response.status_code == 403
    page = response.content.decode()
    assert 'href="' + reverse("login") + '?next=/"' in page
    assert "elders.example" not in page


def test_a_form_older_than_the_last_login_says_so_and_changes_nothing(evening, organiser):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(organiser)
    browser.get(page_of(evening))  # the page, and its CSRF cookie
    # Logged in again in another tab: a new token; this tab's form still has the old one.
    response = browser.post(
        reverse("evening_add", args=[evening.pk]),
        {"name": "Kees", "csrfmiddlewaretoken": "x" * 32},
        HTTP_REFERER=page_of(evening),
    )
    assert response.status_code == 403
    assert "no-store" in response["Cache-Control"]
    page = response.content.decode()
    assert "Deze pagina was verouderd" in page
    assert "Er is niets opgeslagen." in page
    assert 'href="' + reverse("evening_page", args=[evening.pk]) + '"' in page
    assert "DEBUG" not in page
    assert not EveningPlayer.objects.exists()


def test_the_stale_form_page_in_english(evening, organiser):
    browser = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    browser.force_login(organiser)
    response = browser.post(reverse("evening_add", args=[evening.pk]), {"name": "Kees"})
    assert response.status_code == 403
    page = response.content.decode()
    assert "This page was out of date" in page
    assert 'href="/"' in page  # no page to go back to: the home page
    assert 'name="next" value="/"' in page


def test_the_stale_form_page_leads_nowhere_else(evening, organiser):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(organiser)
    response = browser.post(
        reverse("evening_add", args=[evening.pk]),
        {"name": "Kees"},
        HTTP_REFERER="http://testserver//elders.example/",
    )
    assert response.status_code == 403
    assert "elders.example" not in response.content.decode()


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("nl", "Deze pagina bestaat niet (meer)"),
        ("en", "This page does not exist (any more)"),
        ("de", "Diese Seite gibt es nicht (mehr)"),
    ],
)
def test_a_page_that_is_not_there_says_so_in_the_site_and_the_readers_language(
    client, organiser, language, words
):
    client.force_login(organiser)
    response = client.get(reverse("evening_page", args=[999999]), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 404
    page = response.content.decode()
    assert words in page
    assert "site-header" in page
    assert "Not Found" not in page


def test_a_server_error_is_a_page_of_the_site_drawn_without_a_request_context():
    request = RequestFactory().get("/")
    with translation.override("de"):
        response = server_error(request)
    assert response.status_code == 500
    assert "Etwas ist schiefgelaufen" in response.content.decode()


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("evening_new", "Alleen een beheerder van een club kan een clubavond beginnen."),
        ("tournament_new", "Alleen een beheerder van een club kan een toernooi beginnen."),
    ],
)
def test_a_member_at_an_organisers_page_gets_a_page_of_the_site_that_says_why(
    client, club, django_user_model, name, said
):
    member = django_user_model.objects.create_user("lid")
    ClubMembership.objects.create(user=member, club=club, role="scorer")
    client.force_login(member)
    response = client.get(reverse(name))
    assert response.status_code == 403
    html = response.content.decode()
    assert f'<h1 id="not-allowed">{said}</h1>' in html
    assert "<header" in html  # the site's page...
    assert 'id="home"' in html  # ...with its way home
    assert "niet (meer) ingelogd" not in html  # they are logged in


def test_a_new_language_on_the_not_allowed_page_reopens_that_page(client, club, django_user_model):
    """The language buttons of "Alleen een beheerder ..." reopen it in the new language; they
    took the member home."""
    member = django_user_model.objects.create_user("lid")
    ClubMembership.objects.create(user=member, club=club, role="scorer")
    client.force_login(member)
    html = client.get(reverse("evening_new")).content.decode()
    assert f'name="next" value="{reverse("evening_new")}"' in html
