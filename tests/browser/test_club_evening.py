"""A club evening in Chromium: twelve phones check in from the QR (the organiser's screen
counts them live), the draw seats three tables, each table's tablet ends its game, two tables
agree and one does not, and the standings count all three with the disputed one marked. Then
the club admin sets "alleen akkoord" in the club's form and the ratings page rates the two
agreed tables' players, not the disputed table's, with the guest listed apart. Screenshots of
the phone, the organiser's screen, the tablet's akkoord panel and the ratings page are left in
test-artifacts/screenshots/ (``evening-*``)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from scoring.models import ClubMembership, Evening, Player, Season, Session
from tests.browser.pages import PHONE, TABLET, console_errors, login
from tests.builders import record

pytestmark = pytest.mark.browser

NAMES = [
    "Anne Jansen",
    "Bas Bakker",
    "Cees Visser",
    "Dirk Mulder",
    "Eva Smit",
    "Fien de Vries",
    "Gijs Peters",
    "Hans Kok",
    "Ilse Bos",
    "Joop Dekker",
    "Kees Brouwer",
]


def test_an_evening_from_qr_check_in_to_the_ratings_page(
    browser, base_url, screenshot_dir, club, django_user_model
):
    season = Season.objects.create(club=club, name="Seizoen", starts_on="2000-01-01")
    for name in NAMES:
        Player.objects.create(club=club, name=name)
    # staff: the club admin changes the club's akkoord rule in the admin's club form
    user = django_user_model.objects.create_user(
        "beheer", password="geheim-wachtwoord", is_staff=True
    )
    ClubMembership.objects.create(user=user, club=club, role="admin")

    desk = browser.new_context(viewport=TABLET, locale="nl-NL")
    desk.set_default_timeout(10_000)
    errors = console_errors(desk)
    organiser = desk.new_page()
    login(organiser, base_url, "beheer", "geheim-wachtwoord")
    organiser.get_by_role("link", name="Clubavond (aanmelden met QR)").click()
    organiser.get_by_role("button", name="Clubavond beginnen").click()
    expect(organiser.locator("#board")).to_contain_text("0 spelers aangemeld")
    evening = Evening.objects.get()
    checkin = organiser.locator(".evening-desk__url").inner_text()
    assert checkin.endswith(reverse("checkin_phone", args=[evening.checkin_token]))

    # Eleven members find their names; the twelfth is new and adds herself as a guest. The
    # last phone also checks in a friend.
    phones = []
    for i, name in enumerate(NAMES[:10]):
        phone = browser.new_context(viewport=PHONE, locale="nl-NL", is_mobile=True)
        phone.set_default_timeout(10_000)
        errors += console_errors(phone)
        page = phone.new_page()
        page.goto(checkin)
        expect(page.get_by_role("heading", level=1)).to_contain_text("Aanmelden bij")
        assert "Bakker" not in page.content()  # no list of names
        page.fill("#naam", name.split()[-1][:4])
        page.get_by_role("button", name="Zoeken").click()
        page.get_by_role("button", name=f"Ik ben {name}").click()
        expect(page.locator("#notices")).to_contain_text(f"{name} is aangemeld")
        if i == 0:
            page.screenshot(path=screenshot_dir / "evening-phone-checked-in.png", full_page=True)
        phones.append(page)
    friend = phones[-1]
    friend.fill("#naam", "brou")
    friend.get_by_role("button", name="Zoeken").click()
    friend.get_by_role("button", name="Ik ben Kees Brouwer").click()
    expect(friend.locator("#notices")).to_contain_text("Kees Brouwer is aangemeld")
    guest_phone = browser.new_context(viewport=PHONE, locale="nl-NL", is_mobile=True)
    errors += console_errors(guest_phone)
    guest = guest_phone.new_page()
    guest.goto(checkin)
    guest.fill("#naam", "Zoë")
    guest.get_by_role("button", name="Zoeken").click()
    expect(guest.locator("#search-note")).to_contain_text("Geen naam gevonden")
    guest.screenshot(path=screenshot_dir / "evening-phone-search.png", full_page=True)
    guest.locator("details summary").click()
    guest.fill("#guest", "Zoë Lammers")
    guest.get_by_role("button", name="Aanmelden als gast").click()
    expect(guest.locator("#notices")).to_contain_text("Welkom, Zoë Lammers!")

    # The organiser's screen has polled meanwhile: eleven here, a guest to confirm.
    expect(organiser.locator("#board")).to_contain_text("11 spelers aangemeld")
    expect(organiser.locator('[data-waiting="Zoë Lammers"]')).to_be_visible()
    expect(organiser.locator('[data-phone="telefoon A"]')).to_have_count(2)
    organiser.screenshot(path=screenshot_dir / "evening-organiser.png", full_page=True)
    organiser.set_viewport_size({"width": 1280, "height": 800})
    organiser.screenshot(path=screenshot_dir / "evening-organiser-laptop.png", full_page=True)
    organiser.set_viewport_size(TABLET)
    organiser.locator('[data-waiting="Zoë Lammers"]').get_by_role(
        "button", name="Bevestigen"
    ).click()
    expect(organiser.locator("#board")).to_contain_text("12 spelers aangemeld")

    # Closing the QR: a phone that scans it now is told so.
    organiser.get_by_role("button", name="QR sluiten").click()
    expect(organiser.locator("#qr-closed")).to_be_visible()
    assert guest.goto(checkin).status == 410
    expect(guest.get_by_role("heading", level=1)).to_contain_text("werkt niet meer")

    organiser.get_by_role("button", name="Ronde 1 loten").click()
    expect(organiser.locator('[data-round="1"] [data-table]')).to_have_count(3)
    tables = list(evening.tables.select_related("session").order_by("number"))

    # Each table plays a round (the engine's part, tested elsewhere) and ends its game on the
    # tablet; the last table without the guest does not agree, the other two do.
    def seated(t) -> set[str]:
        return set(t.session.seats.values_list("player__name", flat=True))

    disputed = [t for t in tables if "Zoë Lammers" not in seated(t)][-1]
    tablet = organiser
    for t in tables:
        first = t.session.seats.select_related("player").first().player.name
        record(t.session, "win", first)
        tablet.goto(base_url + reverse("tablet", args=[t.session.pk]))
        tablet.locator("#more > summary").click()
        tablet.locator("#finish > summary").click()
        tablet.get_by_role("button", name="Ja, het spel beëindigen").click()
        expect(tablet.locator("#akkoord")).to_have_attribute("data-agreement", "open")
        if t.number == 1:
            tablet.evaluate("window.scrollTo(0, 0)")
            tablet.screenshot(path=screenshot_dir / "evening-tablet-akkoord.png")
        if t != disputed:
            tablet.get_by_role("button", name="Iedereen akkoord").click()
            expect(tablet.locator("#akkoord")).to_have_attribute("data-agreement", "agreed")
        else:
            tablet.locator("#dispute > summary").click()
            tablet.fill("#dispute-note", "Ronde 1 had Bas de boer")
            tablet.get_by_role("button", name="Niet akkoord", exact=True).click()
            expect(tablet.locator("#akkoord")).to_have_attribute("data-agreement", "disputed")
            tablet.evaluate("window.scrollTo(0, 0)")
            tablet.screenshot(path=screenshot_dir / "evening-tablet-disputed.png")
    agreements = sorted(Session.objects.values_list("agreement", flat=True))
    assert agreements == ["agreed", "agreed", "disputed"]

    # The standings: every game counts (the club's default rule), the disputed one marked.
    organiser.goto(base_url + reverse("league_season", args=[club.slug, season.pk]))
    marked = organiser.locator("[data-disputed]")
    expect(marked).to_have_count(len(seated(disputed)))
    organiser.screenshot(path=screenshot_dir / "evening-standings.png", full_page=True)

    # The club admin says only agreed games count, in the club's form in the admin.
    organiser.goto(base_url + reverse("admin:scoring_club_change", args=[club.pk]))
    organiser.select_option("#id_agreement_rule", "agreed")
    organiser.locator('input[name="_save"]').click()
    expect(organiser.locator(".messagelist")).to_be_visible()

    # The ratings page, from the club's page: the agreed tables' players are rated, the
    # disputed table's (who played nothing else) are not; the guest is listed apart.
    organiser.goto(base_url + reverse("league_club", args=[club.slug]))
    organiser.get_by_role("link", name="Rating", exact=True).first.click()
    expect(organiser.get_by_role("heading", level=1)).to_contain_text("Rating bij")
    expect(organiser.locator("main")).to_contain_text("telt een spel pas als de tafel akkoord")
    agreed = set().union(*(seated(t) for t in tables if t != disputed))
    members = organiser.locator("#ratings tbody th")
    expect(members).to_have_count(len(agreed) - 1)
    assert set(members.all_inner_texts()) == agreed - {"Zoë Lammers"}
    expect(organiser.locator("#ratings-guests tbody th")).to_have_text(["Zoë Lammers"])
    for name in seated(disputed):
        expect(organiser.locator("main")).not_to_contain_text(name)
    organiser.screenshot(path=screenshot_dir / "evening-ratings.png", full_page=True)
    for context in [desk, guest_phone, *(p.context for p in phones)]:
        context.close()
    assert errors == []
