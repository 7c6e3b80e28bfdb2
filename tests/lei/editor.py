"""The round editor's URL and what it posts: a round's rows (type, player and the rest) as the
formset the page sends back."""

from __future__ import annotations

from django.urls import reverse


def edit_url(session, number):
    return reverse("round_edit", args=[session.pk, number])


def editor_data(session, rows, key="edit-1"):
    session.refresh_from_db()
    data = {
        "version": session.version,
        "key": key,
        "events-TOTAL_FORMS": str(len(rows)),
        "events-INITIAL_FORMS": "0",
        "events-MIN_NUM_FORMS": "0",
        "events-MAX_NUM_FORMS": "1000",
    }
    for i, row in enumerate(rows):
        for name, value in row.items():
            data[f"events-{i}-{name}"] = value
    return data


def correction_at(version: int, events: list[tuple[str, str]]) -> dict[str, object]:
    """What the round editor posts for these rows (type and player each), drawn at
    ``version``."""
    data: dict[str, object] = {
        "version": version,
        "key": f"correct-at-{version}",
        "events-TOTAL_FORMS": str(len(events)),
        "events-INITIAL_FORMS": "0",
        "events-MIN_NUM_FORMS": "0",
        "events-MAX_NUM_FORMS": "1000",
    }
    for index, (kind, player) in enumerate(events):
        data[f"events-{index}-type"] = kind
        data[f"events-{index}-player"] = player
    return data
