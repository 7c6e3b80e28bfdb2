"""The panel's ``data-active``: exactly the players the engine counts for the all-fold rule, so
that a tablet without a connection (static/js/lei.js, ``ahead``) ends a round by folds when the
engine does and only then. Each case draws the panel, then records the taps with the service and
checks the round against what the panel said."""

from __future__ import annotations

import re

from django.urls import reverse

from scoring.engine import replay
from scoring.lei import services
from scoring.models import Session
from tests.builders import make_session, new_key, record


def away(session: Session, absent: dict[str, str]) -> None:
    services.session_set_presence(
        session=session, absent=absent, join=[], version=session.version, key=new_key()
    )
    session.refresh_from_db()


def panel(scorer, session: Session) -> dict[str, bool]:
    """Each player form of the panel: whether it carries ``data-active``."""
    html = scorer.get(reverse("tablet", args=[session.pk])).content.decode()
    forms = re.findall(r"<form [^>]*data-player=\"([^\"]+)\"([^>]*)>", html)
    return {name: "data-active" in rest for name, rest in forms}


def counted(scorer, session: Session) -> list[str]:
    return [name for name, active in panel(scorer, session).items() if active]


def ended(session: Session, number: int = 1):
    """Round ``number`` as the engine has it once it ended, else None."""
    session.refresh_from_db()
    rounds = replay(session.to_file(), open_round=True).rounds
    return rounds[number - 1] if len(rounds) >= number else None


def round_one(session: Session):
    return ended(session, 1)


def fold_in_turn(session: Session, counted: list[str], knocker: str, number: int = 1) -> None:
    """Each counted player but the knocker folds; the round ends exactly at the fold that
    leaves one counted player, and that one wins."""
    folders = [p for p in counted if p != knocker]
    assert folders, "nobody to fold"
    for index, player in enumerate(folders):
        assert ended(session, number) is None
        record(session, "fold", player)
        ended_now = ended(session, number)
        if index < len(folders) - 1:
            assert ended_now is None, f"the engine ended the round at {player}'s fold"
        else:
            assert ended_now is not None, f"the engine did not end the round at {player}'s fold"
            assert (ended_now.ended_by, ended_now.winner) == ("all_fold", knocker)


def test_a_player_on_the_toilet_does_not_count_before_the_first_knock(scorer, session):
    away(session, {"Cees": "toilet"})
    drawn = panel(scorer, session)
    assert drawn == {"Anne": True, "Bas": True, "Cees": False, "Dirk": True}
    # Taps made offline from this drawing: the knock folds Cees, two folds end the round.
    record(session, "knock", "Anne")
    assert round_one(session) is None
    fold_in_turn(session, [p for p, active in drawn.items() if active], "Anne")


def test_a_player_on_the_toilet_does_not_count_after_the_knock(scorer, session):
    away(session, {"Cees": "toilet"})
    record(session, "knock", "Bas")
    drawn = counted(scorer, session)
    assert drawn == ["Anne", "Bas", "Dirk"]
    fold_in_turn(session, drawn, "Bas")


def test_a_player_getting_drinks_has_no_form_and_does_not_count(scorer, session):
    away(session, {"Dirk": "drinks"})
    assert panel(scorer, session) == {"Anne": True, "Bas": True, "Cees": True}
    record(session, "knock", "Cees")
    drawn = counted(scorer, session)
    assert drawn == ["Anne", "Bas", "Cees"]
    fold_in_turn(session, drawn, "Cees")


def test_drinks_and_the_toilet_together_leave_the_one_counted_player_the_winner_at_the_knock(
    scorer, session
):
    away(session, {"Bas": "toilet", "Dirk": "drinks", "Cees": "drinks"})
    assert panel(scorer, session) == {"Anne": True, "Bas": False}
    # lei.js ends the round at this knock: one counted player left.
    record(session, "knock", "Anne")
    result = round_one(session)
    assert result is not None
    assert (result.ended_by, result.winner) == ("all_fold", "Anne")


def test_a_folded_player_stops_counting(scorer, session):
    record(session, "knock", "Anne")
    record(session, "fold", "Bas")
    drawn = counted(scorer, session)
    assert drawn == ["Anne", "Cees", "Dirk"]
    fold_in_turn(session, drawn, "Anne")


def test_a_player_out_of_the_game_has_no_form(scorer, club):
    session = make_session(club, overrides={"max_points": 2, "armoede": False})
    record(session, "knock", "Anne")
    record(session, "fold", "Bas")
    record(session, "fold", "Cees")
    record(session, "win", "Anne")  # Dirk stayed and scores 2: out
    session.refresh_from_db()
    assert panel(scorer, session) == {"Anne": True, "Bas": True, "Cees": True}
    record(session, "knock", "Anne")
    fold_in_turn(session, counted(scorer, session), "Anne", number=2)
