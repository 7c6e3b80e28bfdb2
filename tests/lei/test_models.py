"""Models: the constraints that keep the data honest, and the session file both ways."""

import pytest
from django.db import IntegrityError, transaction

from scoring.engine import Refusal, replay
from scoring.lei import services
from scoring.models import (
    ClubMembership,
    Player,
    Round,
    RoundScore,
    Season,
    Seat,
    Session,
    SessionResult,
)
from tests.builders import example_files, load_example, make_club, make_session, play_rounds


def _refused(create) -> bool:
    try:
        with transaction.atomic():
            create()
    except IntegrityError:
        return True
    return False


@pytest.mark.django_db
def test_player_names_are_unique_in_a_club_ignoring_case(club, people):
    assert _refused(lambda: Player.objects.create(club=club, name="anne"))
    other = make_club("De Zwarte Vrouw", "zwarte-vrouw")
    assert Player.objects.create(club=other, name="Anne").pk


@pytest.mark.django_db
def test_membership_is_unique_per_user_and_club(club, user):
    ClubMembership.objects.create(user=user, club=club, role="admin")
    assert _refused(lambda: ClubMembership.objects.create(user=user, club=club, role="scorer"))
    assert _refused(
        lambda: ClubMembership.objects.create(user=user, club=make_club("X", "x"), role="baas")
    )


@pytest.mark.django_db
def test_season_has_default_ranking_and_cannot_end_before_it_starts(club):
    season = Season.objects.create(club=club, name="Zomer", starts_on="2026-06-01")
    assert season.ranking["scoring"] == "placement"
    assert season.ranking["best_n"] is None
    assert _refused(
        lambda: Season.objects.create(
            club=club, name="Kort", starts_on="2026-06-01", ends_on="2026-05-01"
        )
    )


@pytest.mark.django_db
def test_session_constraints(session, people):
    assert _refused(lambda: Round.objects.create(session=session, number=0))
    Round.objects.create(session=session, number=1)
    assert _refused(lambda: Round.objects.create(session=session, number=1))
    assert _refused(lambda: Seat.objects.create(session=session, player=people["Eva"], position=1))
    assert _refused(lambda: Seat.objects.create(session=session, player=people["Anne"], position=9))
    assert _refused(lambda: Session.objects.filter(pk=session.pk).update(status="paused"))
    assert _refused(lambda: Session.objects.filter(pk=session.pk).update(game="bridge"))
    assert _refused(lambda: SessionResult.objects.filter(session=session).update(place=0))


@pytest.mark.django_db
def test_a_session_gets_a_secret_scorer_token(session, club):
    other = make_session(club, ["Anne", "Eva"])
    assert len(session.scorer_token) >= 40
    assert session.scorer_token != other.scorer_token


@pytest.mark.django_db
def test_queryset_filters_for_pages(club, people):
    done = make_session(club, ["Anne", "Bas"], overrides={"max_points": 2})
    play_rounds(done, ["Anne", "Anne"])
    running = make_session(club, ["Cees", "Dirk"])
    elsewhere = make_session(make_club("X", "x"), ["Anne", "Bas"])
    assert list(Session.objects.finished()) == [done]
    assert set(Session.objects.for_club(club)) == {done, running}
    assert elsewhere not in Session.objects.for_club(club).running()


@pytest.mark.django_db
def test_rules_are_a_snapshot_that_club_changes_do_not_rewrite(club, people):
    club.rules = {"max_points": 15}
    club.save()
    session = make_session(club)
    club.rules = {"max_points": 21}
    club.save()
    session.refresh_from_db()
    assert session.rules["max_points"] == 15
    assert session.to_file()["rules"]["max_points"] == 15
    assert session.rules["knock_cap"] == "knocker"  # resolved: every key is stored


@pytest.mark.django_db
@pytest.mark.parametrize("path", example_files(), ids=lambda p: p.stem)
def test_every_example_survives_a_round_trip(club, path):
    data, expected = load_example(path)
    if "refused" in expected:
        with pytest.raises(Refusal):
            services.session_import(club=club, data=data)
        assert not Session.objects.exists()
        assert not Player.objects.exists()
        return
    session = services.session_import(club=club, data=data)
    exported = Session.objects.get(pk=session.pk).to_file()
    assert exported["players"] == data["players"]
    assert exported["rounds"] == data["rounds"]
    assert exported.get("start", {}) == data.get("start", {})
    assert replay(exported).to_json() == expected
    # The projection is what the engine says.
    totals = dict(
        SessionResult.objects.filter(session=session).values_list("player__name", "total")
    )
    assert totals == expected["totals"]
    points = {
        (s.round.number, s.player.name): s.points
        for s in RoundScore.objects.filter(round__session=session).select_related("round", "player")
    }
    assert points == {
        (r["number"], name): value
        for r in expected["rounds"]
        for name, value in r["points"].items()
    }
