"""The admin one tap away for those who may use it, in Dutch, showing a club admin only what a
club admin works with (``scoring/admin_base.py``: ``internal``, ``listed``)."""

from __future__ import annotations

from django.urls import reverse

from scoring.models import Round, Session
from tests.builders import make_session, record

INTERNAL = ["roundscore", "sessionresult", "idempotencykey"]
HIDDEN_WORDS = ["Herhaalsleutels", "Rondescores", "Spelresultaten", "Logregels"]


def test_the_home_page_links_to_the_admin_for_club_admins_and_superusers_only(
    club_admin_client, member_client, admin_client
):
    link = f'href="{reverse("admin:index")}"'
    assert link in club_admin_client.get(reverse("home")).content.decode()
    assert link in admin_client.get(reverse("home")).content.decode()
    assert link not in member_client.get(reverse("home")).content.decode()


def test_a_club_admin_sees_only_what_a_club_admin_works_with(club_admin_client, admin_client, club):
    session = make_session(club)
    record(session, "win", "Anne")
    index = club_admin_client.get(reverse("admin:index")).content.decode()
    for words in HIDDEN_WORDS:
        assert words not in index
    assert "Spelers" in index
    assert "Seizoenen" in index
    for model in INTERNAL:
        url = reverse(f"admin:scoring_{model}_changelist")
        assert club_admin_client.get(url).status_code == 403
        assert admin_client.get(url).status_code == 200
    # The audit log is still one link away from a game's page, filtered to that game.
    page = club_admin_client.get(reverse("admin:scoring_session_change", args=[session.pk]))
    log = f"{reverse('admin:scoring_auditentry_changelist')}?session__id__exact={session.pk}"
    assert log in page.content.decode()
    assert club_admin_client.get(log).status_code == 200
    everything = admin_client.get(reverse("admin:index")).content.decode()
    assert all(words in everything for words in HIDDEN_WORDS)


def test_the_admin_speaks_dutch_and_its_english_and_german_still_read_right(
    club_admin_client, club
):
    session = make_session(club)
    record(session, "win", "Anne")
    round_ = Round.objects.get(session=session, number=1)
    page = club_admin_client.get(reverse("admin:scoring_session_change", args=[session.pk]))
    html = page.content.decode()
    assert ">Seizoen" in html or ">seizoen" in html.lower()
    for english in (">Season:<", ">season:<", ">Player<", ">Session<"):
        assert english not in html
    rounds = club_admin_client.get(reverse("admin:scoring_round_changelist")).content.decode()
    assert f"ronde {round_.number}" in rounds
    assert "round 1" not in rounds
    english = club_admin_client.get(
        reverse("admin:scoring_round_changelist"), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "round 1" in english
    german = club_admin_client.get(
        reverse("admin:scoring_session_change", args=[session.pk]), HTTP_ACCEPT_LANGUAGE="de"
    ).content.decode()
    assert "Saison" in german
    assert Session.objects.count() == 1


def test_one_word_for_the_scorers_link_in_dutch(client, club):
    page = client.get(reverse("home")).content.decode()
    assert "schrijverslink" in page
    assert "scorerlink" not in page
