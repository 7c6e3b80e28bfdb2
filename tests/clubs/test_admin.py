"""The club admin at work: merging players, correcting a round, the session actions, the audit.

Real HTTP through the test client as a club admin (a staff user with an admin membership and
no Django permissions at all), and the services underneath, no mocks.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from scoring.engine import MESSAGES, Refusal
from scoring.lei import seals, services
from scoring.lei.admin_forms import SessionForm
from scoring.models import AuditEntry, ClubMembership, Player, RoundScore, Seat, Session
from tests.builders import admin_form_data, correction, make_session, record

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def totals(session: Session) -> dict[str, int]:
    return {r.player.name: r.total for r in session.results.select_related("player")}


# --- merging players -----------------------------------------------------------------------


def test_merging_a_guest_into_a_member_keeps_every_session_of_both(
    club_admin_client, club, people, club_admin
):
    first = make_session(club)  # Anne, Bas, Cees, Dirk
    record(first, "win", "Anne")
    second = make_session(club, ["Annie", "Bas", "Cees"])  # Annie: Anne typed as a guest
    record(second, "win", "Annie")
    annie = Player.objects.get(name="Annie")
    assert annie.is_guest
    url = reverse("admin:scoring_player_changelist")
    selection = {"action": "merge_players", "_selected_action": [people["Anne"].pk, annie.pk]}

    confirm = club_admin_client.post(url, selection, **EN)
    assert confirm.status_code == 200
    assert "admin/scoring/player/merge_confirmation.html" in [t.name for t in confirm.templates]
    assert "Who stays?" in confirm.content.decode()

    done = club_admin_client.post(url, {**selection, "keep": people["Anne"].pk}, follow=True, **EN)
    assert done.status_code == 200
    assert "Annie is now Anne: every session of both is kept." in messages_of(done)
    assert not Player.objects.filter(pk=annie.pk).exists()
    anne = people["Anne"]
    assert set(Seat.objects.filter(player=anne).values_list("session_id", flat=True)) == {
        first.pk,
        second.pk,
    }
    assert second.rounds.get(number=1).events == [{"type": "win", "player": "Anne"}]
    # One round score and one result in each session: Annie's became Anne's.
    assert RoundScore.objects.filter(player=anne).count() == 2
    assert second.results.filter(player=anne).count() == 1
    assert AuditEntry.objects.filter(action="merge", user=club_admin).exists()
    sessions_played = (
        club_admin_client.get(url, {"q": "Anne"}).context["cl"].result_list.get(pk=anne.pk)
    ).sessions_played
    assert sessions_played == 2


def test_merging_two_players_of_one_session_is_refused_and_changes_nothing(
    club_admin_client, session
):
    anne, bas = (Player.objects.get(name=n) for n in ("Anne", "Bas"))
    response = club_admin_client.post(
        reverse("admin:scoring_player_changelist"),
        {"action": "merge_players", "_selected_action": [anne.pk, bas.pk], "keep": anne.pk},
        follow=True,
        **EN,
    )
    assert any("both sat in session" in m for m in messages_of(response))
    assert Player.objects.filter(pk__in=[anne.pk, bas.pk]).count() == 2
    assert not AuditEntry.objects.filter(action="merge").exists()


def test_merge_asks_for_exactly_two_players(club_admin_client, people):
    response = club_admin_client.post(
        reverse("admin:scoring_player_changelist"),
        {"action": "merge_players", "_selected_action": [people["Anne"].pk]},
        follow=True,
        **EN,
    )
    assert "Select exactly two players to merge." in messages_of(response)


# --- correcting a round --------------------------------------------------------------------


@pytest.fixture
def played(session) -> Session:
    """Round 1: Bas knocks, Cees folds, Dirk wins; round 2: Anne wins."""
    record(session, "knock", "Bas")
    record(session, "fold", "Cees")
    record(session, "win", "Dirk")
    record(session, "win", "Anne")
    assert totals(session) == {"Anne": 2, "Bas": 3, "Cees": 2, "Dirk": 1}
    return session


def test_the_correction_page_shows_the_round_as_rows(club_admin_client, played):
    round_1 = played.rounds.get(number=1)
    response = club_admin_client.get(reverse("admin:scoring_round_change", args=[round_1.pk]), **EN)
    assert response.status_code == 200
    formset = response.context["formset"]
    assert [f.initial["type"] for f in formset.initial_forms] == ["knock", "fold", "win"]
    assert [f.initial["ORDER"] for f in formset.initial_forms] == [1, 2, 3]
    assert dict(formset.forms[0].fields["player"].choices) == {
        "": "—",
        "Anne": "Anne",
        "Bas": "Bas",
        "Cees": "Cees",
        "Dirk": "Dirk",
    }
    assert 'name="events-0-type"' in response.content.decode()


def test_a_round_corrected_in_the_form_is_scored_again_with_totals_and_results(
    club_admin_client, played, club_admin
):
    round_1 = played.rounds.get(number=1)
    url = reverse("admin:scoring_round_change", args=[round_1.pk])
    page = club_admin_client.get(url, **EN)
    # Nobody knocked after all: Anne won the first round outright.
    data = correction(page, [{"type": "win", "player": "Anne", "jack": False}])
    response = club_admin_client.post(url, data, **EN)
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:scoring_session_change", args=[played.pk])
    round_1.refresh_from_db()
    assert round_1.events == [{"type": "win", "player": "Anne"}]
    assert totals(played) == {"Anne": 0, "Bas": 2, "Cees": 2, "Dirk": 2}
    assert set(played.results.filter(place=1).values_list("player__name", flat=True)) == {"Anne"}
    scores = {s.player.name: s.points for s in RoundScore.objects.filter(round=round_1)}
    assert scores == {"Anne": 0, "Bas": 1, "Cees": 1, "Dirk": 1}
    entry = AuditEntry.objects.get(action="correct")
    assert (entry.user, entry.round_number) == (club_admin, 1)


def test_rows_are_reordered_removed_and_extra_fields_kept(club_admin_client, played):
    round_2 = played.rounds.get(number=2)
    url = reverse("admin:scoring_round_change", args=[round_2.pk])
    page = club_admin_client.get(url, **EN)
    rows = [
        {"type": "win", "player": "Cees", "jack": True, "rank": "ace"},  # rank: not for a win
        {"type": "knock", "player": "Dirk"},
        {"type": "penalty", "player": "Bas", "points": 1, "reason": "keek in de pot"},
        {"type": "stay", "player": "Anne", "DELETE": "on"},
    ]
    data = correction(page, rows)
    data.update({"events-0-ORDER": 3, "events-1-ORDER": 1, "events-2-ORDER": 2})
    response = club_admin_client.post(url, data, **EN)
    assert response.status_code == 302, messages_of(response)
    round_2.refresh_from_db()
    assert round_2.events == [
        {"type": "knock", "player": "Dirk"},
        {"type": "penalty", "player": "Bas", "points": 1, "reason": "keek in de pot"},
        {"type": "win", "player": "Cees", "jack": True},
    ]


def test_absent_players_are_set_in_the_correction(club_admin_client, played):
    round_2 = played.rounds.get(number=2)
    url = reverse("admin:scoring_round_change", args=[round_2.pk])
    page = club_admin_client.get(url, **EN)
    # Seats in order: Anne (0), Bas (1), Cees (2), Dirk (3); Dirk was getting drinks.
    data = correction(page, [{"type": "win", "player": "Anne"}], absent_3="drinks")
    assert club_admin_client.post(url, data, **EN).status_code == 302
    round_2.refresh_from_db()
    assert round_2.absent == {"Dirk": "drinks"}
    assert totals(played)["Dirk"] == 0


@pytest.mark.parametrize("language", ["en", "nl"])
def test_a_refused_correction_shows_the_engines_message_and_changes_nothing(
    club_admin_client, played, language
):
    round_1 = played.rounds.get(number=1)
    url = reverse("admin:scoring_round_change", args=[round_1.pk])
    page = club_admin_client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    before = (played.version, list(RoundScore.objects.values_list("pk", "total")), totals(played))
    events = [
        {"type": "knock", "player": "Bas"},
        {"type": "knock", "player": "Bas"},  # Bas cannot raise his own knock
        {"type": "win", "player": "Dirk"},
    ]
    response = club_admin_client.post(url, correction(page, events), HTTP_ACCEPT_LANGUAGE=language)

    assert response.status_code == 200  # the form again, with what was typed
    with translation.override(language):
        refusal = Refusal("knock_own_raise", player="Bas")
        detail = refusal.detail(translation.gettext(MESSAGES["knock_own_raise"]))
    shown = messages_of(response)
    assert any(m.endswith(detail) and "1" in m and "2" in m for m in shown), shown
    if language == "nl":
        assert "kan niet toepen" in detail  # the catalogue has it: really translated
    played.refresh_from_db()
    round_1.refresh_from_db()
    after = (played.version, list(RoundScore.objects.values_list("pk", "total")), totals(played))
    assert after == before
    assert [e["type"] for e in round_1.events] == ["knock", "fold", "win"]
    assert not AuditEntry.objects.filter(action="correct").exists()


def test_a_correction_of_a_locked_session_is_refused(club_admin_client, played):
    services.session_finish(session=played)
    seals.session_lock(session=played)
    round_1 = played.rounds.get(number=1)
    url = reverse("admin:scoring_round_change", args=[round_1.pk])
    page = club_admin_client.get(url, **EN)
    response = club_admin_client.post(
        url, correction(page, [{"type": "win", "player": "Anne"}]), **EN
    )
    assert "The session is locked: unlock it to change it." in messages_of(response)
    round_1.refresh_from_db()
    assert len(round_1.events) == 3


def test_a_correction_from_a_stale_page_is_refused(club_admin_client, played):
    round_2 = played.rounds.get(number=2)
    url = reverse("admin:scoring_round_change", args=[round_2.pk])
    page = club_admin_client.get(url, **EN)
    record(played, "win", "Bas")  # the table plays on meanwhile
    response = club_admin_client.post(
        url, correction(page, [{"type": "win", "player": "Cees"}]), follow=True, **EN
    )
    assert any("The sheet changed meanwhile" in m for m in messages_of(response))
    round_2.refresh_from_db()
    assert round_2.events == [{"type": "win", "player": "Anne"}]


# --- the session actions -------------------------------------------------------------------


def act(client, action: str, *sessions: Session):
    return client.post(
        reverse("admin:scoring_session_changelist"),
        {"action": action, "_selected_action": [s.pk for s in sessions]},
        follow=True,
        **EN,
    )


def test_finish_lock_and_unlock_a_session_through_the_services(
    club_admin_client, played, club_admin
):
    response = act(club_admin_client, "lock_sessions", played)
    assert any("Only a finished session can be locked." in m for m in messages_of(response))
    played.refresh_from_db()
    assert played.status == "running"

    act(club_admin_client, "finish_sessions", played)
    played.refresh_from_db()
    assert played.status == "finished"
    act(club_admin_client, "lock_sessions", played)
    played.refresh_from_db()
    assert played.status == "locked"
    act(club_admin_client, "unlock_sessions", played)
    played.refresh_from_db()
    assert played.status == "finished"
    actions = list(
        AuditEntry.objects.filter(session=played, user=club_admin)
        .order_by("id")
        .values_list("action", flat=True)
    )
    assert actions == ["finish", "lock", "unlock"]


def test_renewing_and_revoking_the_scorer_link(club_admin_client, played):
    old = played.scorer_token
    act(club_admin_client, "rotate_scorer_tokens", played)
    played.refresh_from_db()
    assert played.scorer_token
    assert played.scorer_token != old
    act(club_admin_client, "revoke_scorer_tokens", played)
    played.refresh_from_db()
    assert played.scorer_token is None
    page = club_admin_client.get(reverse("admin:scoring_session_change", args=[played.pk]), **EN)
    assert "revoked" in page.content.decode()
    entries = AuditEntry.objects.filter(action__in=["rotate_token", "revoke_token"])
    assert entries.count() == 2
    assert all("scorer_token" not in (e.after or {}) for e in entries)


def test_a_locked_session_cannot_be_deleted_by_the_admin(club_admin_client, played):
    services.session_finish(session=played)
    seals.session_lock(session=played)
    url = reverse("admin:scoring_session_delete", args=[played.pk])
    assert club_admin_client.get(url).status_code == 403
    assert club_admin_client.post(url, {"post": "yes"}).status_code == 403
    assert Session.objects.filter(pk=played.pk).exists()


def test_a_played_session_is_deleted_with_its_log_and_its_audit_stays(club_admin_client, played):
    url = reverse("admin:scoring_session_delete", args=[played.pk])
    page = club_admin_client.get(url, **EN)
    assert page.status_code == 200
    assert "permission" not in page.content.decode()  # no related rows "needing permission"
    assert club_admin_client.post(url, {"post": "yes"}).status_code == 302
    assert not Session.objects.filter(pk=played.pk).exists()
    assert not Seat.objects.filter(session_id=played.pk).exists()
    assert not RoundScore.objects.filter(round__session_id=played.pk).exists()
    assert AuditEntry.objects.filter(club=played.club, session=None, action="event").count() == 4


def test_the_bulk_delete_still_refuses_a_locked_session(club_admin_client, played, club):
    open_one = make_session(club)
    record(open_one, "win", "Anne")
    services.session_finish(session=played)
    seals.session_lock(session=played)
    answer = club_admin_client.post(
        reverse("admin:scoring_session_changelist"),
        {"action": "delete_selected", "_selected_action": [played.pk, open_one.pk], "post": "yes"},
    )
    assert answer.status_code in (200, 403)
    assert Session.objects.filter(pk__in=[played.pk, open_one.pk]).count() == 2


def test_the_session_form_writes_only_its_own_fields_over_a_tablets_write(
    club_admin_client, played, monkeypatch
):
    """The tablet records a round after the admin loaded the session and before it saves it:
    the version, status and rounds stay the tablet's, and the edit stamps ``updated_at``."""
    url = reverse("admin:scoring_session_change", args=[played.pk])
    clean = SessionForm.clean

    def a_tablet_writes_meanwhile(form):
        record(played, "win", "Bas")
        return clean(form)

    monkeypatch.setattr(SessionForm, "clean", a_tablet_writes_meanwhile)
    data = {**admin_form_data(club_admin_client.get(url)), "table_label": "Tafel 9"}
    assert club_admin_client.post(url, data).status_code == 302
    stored = Session.objects.get(pk=played.pk)
    assert (stored.table_label, stored.version, stored.rounds.count()) == (
        "Tafel 9",
        played.version,
        3,
    )
    assert stored.updated_at > played.updated_at


def test_a_session_form_saved_unchanged_writes_nothing(club_admin_client, played):
    url = reverse("admin:scoring_session_change", args=[played.pk])
    assert (
        club_admin_client.post(url, admin_form_data(club_admin_client.get(url))).status_code == 302
    )
    assert Session.objects.get(pk=played.pk).updated_at == played.updated_at


# --- the audit log and the lists ------------------------------------------------------------


def test_the_session_page_links_to_its_audit_log(club_admin_client, played, club, people):
    other = make_session(club, ["Anne", "Eva"])
    page = club_admin_client.get(reverse("admin:scoring_session_change", args=[played.pk]), **EN)
    link = f"{reverse('admin:scoring_auditentry_changelist')}?session__id__exact={played.pk}"
    assert link in page.content.decode()

    log = club_admin_client.get(link, **EN)
    assert log.status_code == 200
    shown = list(log.context["cl"].result_list)
    assert {e.session_id for e in shown} == {played.pk}
    assert [e.action for e in shown] == ["event"] * 4 + ["start"]
    assert other.audit_entries.exists()

    by_action = club_admin_client.get(
        reverse("admin:scoring_auditentry_changelist"), {"action__exact": "start"}, **EN
    )
    assert {e.session_id for e in by_action.context["cl"].result_list} == {played.pk, other.pk}


def test_an_audit_entry_is_read_only(club_admin_client, played):
    entry = played.audit_entries.get(action="start")
    url = reverse("admin:scoring_auditentry_change", args=[entry.pk])
    page = club_admin_client.get(url, **EN)
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()
    assert club_admin_client.post(url, {"action": "lock"}).status_code == 403
    assert club_admin_client.get(reverse("admin:scoring_auditentry_add")).status_code == 403
    assert club_admin_client.post(reverse("admin:scoring_auditentry_delete", args=[entry.pk]), {
        "post": "yes"
    }).status_code == 403  # fmt: skip
    entry.refresh_from_db()
    assert entry.action == "start"


def test_the_session_list_shows_date_table_status_season_and_winner(
    club_admin_client, club, people, season
):
    won = make_session(club, ["Anne", "Bas"], season=season, table_label="Tafel 1")
    for _ in range(20):  # Anne wins every round until Bas is out
        record(won, "win", "Anne")
        won.refresh_from_db()
        if won.status == "finished":
            break
    assert won.status == "finished"
    response = club_admin_client.get(reverse("admin:scoring_session_changelist"), **EN)
    row = response.context["cl"].result_list.get(pk=won.pk)
    assert row.winner_name == "Anne"
    html = response.content.decode()
    assert "Tafel 1" in html
    assert "Winter 2026" in html
    winners = club_admin_client.get(
        reverse("admin:scoring_session_changelist"), {"winner": people["Anne"].pk}, **EN
    )
    assert list(winners.context["cl"].result_list) == [won]


def test_the_session_list_takes_as_many_queries_for_many_sessions_as_for_one(
    club_admin_client, club, people
):
    url = reverse("admin:scoring_session_changelist")
    record(make_session(club), "win", "Anne")
    club_admin_client.get(url)  # warm up: the content types and the session are cached afterwards
    with CaptureQueriesContext(connection) as one:
        club_admin_client.get(url)
    for _ in range(4):
        record(make_session(club), "win", "Bas")
    with CaptureQueriesContext(connection) as five:
        response = club_admin_client.get(url)
    assert response.context["cl"].result_count == 5
    # No query per row: the winner is a subquery, club and season are joined.
    assert len(five) == len(one)


def test_the_player_list_counts_sessions_played(club_admin_client, club, people):
    make_session(club)
    make_session(club, ["Anne", "Eva"])
    response = club_admin_client.get(reverse("admin:scoring_player_changelist"), **EN)
    counts = {p.name: p.sessions_played for p in response.context["cl"].result_list}
    assert counts == {"Anne": 2, "Bas": 1, "Cees": 1, "Dirk": 1, "Eva": 1}


# --- clubs and members ----------------------------------------------------------------------


def test_house_rules_that_the_engine_refuses_are_not_saved(club_admin_client, club):
    url = reverse("admin:scoring_club_change", args=[club.pk])
    data = {"name": club.name, "preset": "standaard", "rules": '{"max_points": "ten"}'}
    response = club_admin_client.post(url, {**data, "memberships-TOTAL_FORMS": 0,
                                       "memberships-INITIAL_FORMS": 0}, **EN)  # fmt: skip
    assert response.status_code == 200
    assert "max_points" in str(response.context["adminform"].form.non_field_errors())
    club.refresh_from_db()
    assert club.rules == {}


def test_a_superuser_adds_a_member_by_username(client, club, django_user_model):
    # The site's superuser sees every account anyway; a club admin invites instead
    # (tests/clubs/test_invitations.py).
    client.force_login(django_user_model.objects.create_superuser("root"))
    django_user_model.objects.create_user("bram", password="x")
    url = reverse("admin:scoring_clubmembership_add")
    refused = client.post(url, {"user": "nobody", "club": club.pk, "role": "scorer"}, **EN)
    assert "There is no active user with that username." in str(
        refused.context["adminform"].form.errors
    )
    response = client.post(url, {"user": "bram", "club": club.pk, "role": "scorer"})
    assert response.status_code == 302
    membership = ClubMembership.objects.get(user__username="bram")
    page = client.get(reverse("admin:scoring_clubmembership_change", args=[membership.pk]))
    assert page.context["adminform"].form["user"].value() == "bram"


def test_renaming_a_player_in_the_admin_renames_them_in_every_session(club_admin_client, played):
    bas = Player.objects.get(name="Bas")
    url = reverse("admin:scoring_player_change", args=[bas.pk])
    page = club_admin_client.get(url)
    form = page.context["adminform"].form
    data = {name: form.initial.get(name) or "" for name in form.fields}
    data.update(name="Bastiaan", club=bas.club_id, is_guest="", public_initials="")
    response = club_admin_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    bas.refresh_from_db()
    assert bas.name == "Bastiaan"
    # The events name him by his new name, so the session still replays to the same totals.
    assert played.rounds.get(number=1).events[0] == {"type": "knock", "player": "Bastiaan"}
    file = played.to_file()
    assert "Bastiaan" in file["players"]
    assert totals(played)["Bastiaan"] == 2 + 1  # the knock round lost, then round 2 lost
    assert AuditEntry.objects.filter(action="rename", before={"name": "Bas"}).exists()
