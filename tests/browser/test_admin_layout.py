"""The Django admin on a club admin's tablet (768 px wide): its forms fit the card they are in."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from scoring.models import ClubMembership
from tests.builders import make_club

pytestmark = pytest.mark.browser


def test_the_club_forms_dropdowns_fit_their_card_on_a_tablet(page, base_url, screenshot_dir):
    club = make_club()
    admin = get_user_model().objects.create_user(
        "beheer", password="een-lang-wachtwoord", is_staff=True
    )
    ClubMembership.objects.create(user=admin, club=club, role="admin")
    page.goto(base_url + reverse("admin:login"))
    page.fill("#id_username", "beheer")
    page.fill("#id_password", "een-lang-wachtwoord")
    page.press("#id_password", "Enter")
    page.wait_for_url(base_url + reverse("admin:index"))

    page.goto(base_url + reverse("admin:scoring_club_change", args=[club.pk]))
    page.locator("#id_agreement_rule").scroll_into_view_if_needed()
    page.screenshot(path=screenshot_dir / "admin-club-768.png")
    # Each dropdown stays in the column of the other fields, and leaves its label room.
    crowded = page.evaluate(
        """() => {
            const column = document.querySelector('#id_name').getBoundingClientRect().right;
            const labelled = [...document.querySelectorAll('fieldset select')].filter(
                s => document.querySelector(`label[for="${s.id}"]`));
            if (!labelled.some(s => s.name === "agreement_rule")) return ["none checked"];
            return labelled.filter(s => {
                const label = document.querySelector(`label[for="${s.id}"]`);
                const box = label.getBoundingClientRect();
                return s.getBoundingClientRect().right > column + 0.5
                    || box.width < 20 || label.scrollWidth > label.clientWidth + 1;
            }).map(s => s.name);
        }"""
    )
    assert crowded == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 768
