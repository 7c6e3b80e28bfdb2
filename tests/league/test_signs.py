"""Signs and order that mean what they say: recent games by when they ended, dates and
ordinals as each language writes them, the tie-breaker's mark."""

from __future__ import annotations

import datetime

from django.urls import reverse
from django.utils import timezone

from scoring.models import AuditEntry, Session
from tests.builders import play


def test_recent_games_are_listed_by_when_they_ended_not_by_their_last_change(
    member_client, club, people, clock
):
    september = play(club, ["Anne", "Bas", "Cees"], table="September")
    clock.shift(datetime.timedelta(hours=1))
    november = play(club, ["Bas", "Cees", "Dirk"], days_later=60, table="November")
    clock.shift(datetime.timedelta(days=3))
    # A correction (or an akkoord, a lock) of the September game weeks later.
    Session.objects.filter(pk=september.pk).update(updated_at=timezone.now())
    AuditEntry.objects.create(
        session=september, club=club, action=AuditEntry.Action.CORRECT, round_number=1
    )
    page = member_client.get(reverse("home")).content.decode()
    recent = page[page.index("Onlangs uitgespeeld") :]
    assert recent.index("November") < recent.index("September")
    assert november.status in ("finished", "locked")
