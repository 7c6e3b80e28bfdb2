"""The Django admin works under the strict Content-Security-Policy, with no exception for it.

A club admin logs in through the admin's own login form (rate-limited by django-axes) and uses
the pages a club admin uses: the index, the session list with its filters, a session, the round
correction form (adding a row with the formset's JavaScript), the players with the merge action,
the club's house rules and the audit trail. Every ``securitypolicyviolation`` event of every page
is collected (an init script, which the policy does not apply to) besides the console errors the
``page`` fixture already fails on.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring.models import ClubMembership
from tests.builders import make_club, make_session, record

pytestmark = pytest.mark.browser

WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(e.violatedDirective + " " + (e.blockedURI || "inline"));
});
"""


def test_the_admin_works_under_the_policy(page, base_url, django_user_model):
    club = make_club()
    admin = django_user_model.objects.create_user(
        "beheer", password="een-lang-wachtwoord", is_staff=True
    )
    ClubMembership.objects.create(user=admin, club=club, role="admin")
    session = make_session(club)
    record(session, "knock", "Anne")
    record(session, "fold", "Bas")
    record(session, "win", "Anne")
    round_1 = session.rounds.get(number=1)

    page.context.add_init_script(WATCH)
    response = page.goto(base_url + reverse("admin:login"))
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.fill("#id_username", "beheer")
    page.fill("#id_password", "een-lang-wachtwoord")
    page.press("#id_password", "Enter")
    page.wait_for_url(base_url + reverse("admin:index"))

    seen = []
    for url in [
        reverse("admin:index"),
        reverse("admin:scoring_session_changelist") + "?status__exact=running",
        reverse("admin:scoring_session_change", args=[session.pk]),
        reverse("admin:scoring_round_change", args=[round_1.pk]),
        reverse("admin:scoring_player_changelist"),
        reverse("admin:scoring_club_change", args=[club.pk]),
        reverse("admin:scoring_auditentry_changelist"),
    ]:
        response = page.goto(base_url + url)
        assert response.status == 200, url
        if "/round/" in url:
            rows = page.locator("tr.form-row, .dynamic-events, [id^=events-]").count()
            add = page.locator(".add-row a, a.addlink").first
            if add.count():
                add.click()
                assert page.locator("tr.form-row, .dynamic-events, [id^=events-]").count() >= rows
        if "/player/" in url:
            page.locator("input.action-select").first.check()
            page.select_option("select[name=action]", "merge_players")
        seen += [f"{url}: {v}" for v in page.evaluate("window.__violations")]
    assert seen == []
