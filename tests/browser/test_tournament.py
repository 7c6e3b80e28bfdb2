"""A toernooi in real Chromium: the organiser on a tablet, a table's own tablet, and the TV.

The organiser creates a tournament, checks 13 players in (11 members tapped, 2 walk-ins typed),
draws series 1 (tables of 5, 4 and 4) and starts it. A second browser context opens table 1's
scorer link from its table card (the URL the QR code holds) and scores the game through the
tablet to its toepkoning; table 2 is entered from a paper lei, table 3 is played out. The
organiser's series page shows each table finish without a reload, the series is closed and the
second series drawn, and the TV, which only polls, shows the new tables by itself.

The director's corrections on the way: a member checked in by mistake and tapped out at once
(no ghost anywhere), a wrong paper lei replaced by the right one, and after the close the
table's own tablet refused while the organiser corrects a round of its game on the lei; the
tournament's page lists every correction.

Screenshots of every page at the sizes people use them land in test-artifacts/screenshots/.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from scoring.models import Club, ClubMembership, Player, Session, Tournament
from scoring.toernooi import checkin
from scoring.toernooi import results as tournament_results
from scoring.toernooi import services as tournaments
from tests.browser.pages import LAPTOP, PHONE, TABLET, TV, console_errors, login
from tests.builders import play_out

pytestmark = pytest.mark.browser

MEMBERS = ["Anne", "Bas", "Cees", "Dirk", "Eva", "Fien", "Gijs", "Hans", "Ilse", "Joop", "Kees"]
GUESTS = ["Wim de Wit", "Zoë"]


def fits_without_scrolling(page) -> bool:
    return page.evaluate(
        "document.documentElement.scrollHeight <= window.innerHeight + 1"
        " && document.documentElement.scrollWidth <= window.innerWidth + 1"
    )


def test_an_organiser_runs_two_series_and_the_tv_follows(page, browser, base_url, screenshot_dir):
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer", standings_public=True)
    for name in [*MEMBERS, "Mien", "Nol"]:  # two members stay home
        Player.objects.create(club=club, name=name)
    user = get_user_model().objects.create_user("organisator", password="geheim-genoeg-1")
    ClubMembership.objects.create(user=user, club=club, role="admin")

    # Create the tournament: two series, the rest as the form suggests.
    login(page, base_url, "organisator", "geheim-genoeg-1")
    page.get_by_role("link", name="Toernooi organiseren").click()
    page.get_by_role("link", name="Nieuw toernooi").click()
    page.fill("#id_name", "Wintertoernooi")
    page.fill("#id_series", "2")
    page.screenshot(path=screenshot_dir / "toernooi-new-tablet.png", full_page=True)
    page.get_by_role("button", name="Toernooi aanmaken").click()
    page.wait_for_url(re.compile(r"/toernooi/\d+/aanmelden/$"))
    tournament = Tournament.objects.get(name="Wintertoernooi")

    # Check in: tap eleven members (each tap is one HTMX POST), type two walk-ins.
    for name in MEMBERS:
        toggle = page.locator(f'#checkin button[data-player="{name}"]')
        toggle.click()
        expect(page.locator(f'#checkin button[data-player="{name}"]')).to_have_attribute(
            "aria-pressed", "true"
        )
    for name in GUESTS:
        page.fill("#id_name", name)
        page.get_by_role("button", name="Aanmelden", exact=True).click()
        expect(page.locator("#checkin .present-list")).to_contain_text(name)
    expect(page.locator(".checkin__count")).to_have_text("13 spelers spelen mee")
    page.screenshot(path=screenshot_dir / "toernooi-checkin-tablet.png", full_page=True)
    page.set_viewport_size(LAPTOP)
    page.screenshot(path=screenshot_dir / "toernooi-checkin-laptop.png", full_page=True)
    page.set_viewport_size(TABLET)

    # The TV, in a context of its own without an account, watches from the start.
    tv_context = browser.new_context(viewport=TV, locale="nl-NL")
    tv_errors = console_errors(tv_context)
    tv = tv_context.new_page()
    tv.goto(f"{base_url}/club/{club.slug}/toernooi/{tournament.pk}/tv/")
    expect(tv.locator("#tv-board")).to_contain_text("Anne")

    # Draw series 1 and start it.
    page.get_by_role("link", name="Klaar: naar de loting").click()
    page.get_by_role("button", name="Serie 1 loten").click()
    page.wait_for_url(re.compile(r"/serie/1/$"))
    sizes = sorted(page.locator(f'[data-table="{n}"] tbody tr').count() for n in (1, 2, 3))
    assert sizes == [4, 4, 5]
    # Tap-tap: a name at table 1, then one at table 2, and the two trade places.
    first_pick = page.locator('[data-table="1"] [data-swap-id]').first
    second_pick = page.locator('[data-table="2"] [data-swap-id]').first
    a, b = first_pick.inner_text(), second_pick.inner_text()
    first_pick.click()
    expect(first_pick).to_have_attribute("aria-pressed", "true")
    second_pick.click()
    expect(page.locator(".notices")).to_contain_text(f"{a} en {b} zijn gewisseld.")
    expect(page.locator('[data-table="2"]')).to_contain_text(a)
    expect(page.locator('[data-table="1"]')).to_contain_text(b)
    expect(tv.locator("#tv-board")).to_contain_text("Serie 1: zoek je tafel", timeout=20_000)
    page.screenshot(path=screenshot_dir / "toernooi-series-drawn-tablet.png", full_page=True)
    page.get_by_role("button", name="Serie 1 beginnen").click()
    expect(page.locator('[data-state="running"]')).to_have_count(3)
    series_url = page.url

    # Mien is tapped in by mistake and out at once: her check-in is taken back, no ghost.
    page.goto(f"{base_url}/toernooi/{tournament.pk}/aanmelden/")
    page.locator('#checkin button[data-player="Mien"]').click()
    expect(page.locator('#checkin button[data-player="Mien"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    page.locator('#checkin button[data-player="Mien"]').click()
    expect(page.locator("#checkin")).to_contain_text("De aanmelding van Mien is ongedaan gemaakt.")
    expect(page.locator("#checkin")).not_to_contain_text("Vertrokken")
    expect(page.locator(".checkin__count")).to_have_text("13 spelers spelen mee")
    page.goto(series_url)

    # Table 1's card: its QR code holds the secret scorer link (as text beside it too).
    page.get_by_role("link", name="Tafelkaart").first.click()
    scorer_url = page.locator("[data-scorer-url]").get_attribute("data-scorer-url")
    assert "/tafel/" in scorer_url
    assert page.locator(".table-card__qr svg").count() == 1
    page.go_back()

    # A tablet without an account opens the link and scores table 1 to the toepkoning.
    table_context = browser.new_context(viewport=TABLET, locale="nl-NL")
    table_errors = console_errors(table_context)
    tablet = table_context.new_page()
    tablet.goto(scorer_url)
    tablet.wait_for_url(re.compile(r"/sessies/\d+/$"))
    session = Session.objects.get(pk=int(tablet.url.rstrip("/").split("/")[-1]))
    first = session.seats.select_related("player").first().player.name
    while True:
        session.refresh_from_db()
        if session.status != Session.Status.RUNNING:
            break
        before = session.version
        tablet.get_by_role("button", name=f"Laatste slag: {first}", exact=True).click()
        tablet.wait_for_selector(f'#round[data-version="{before + 1}"]')
    expect(tablet.locator("body")).to_contain_text("toepkoning")

    # The organiser's page shows table 1 finished by itself (it polls), no reload.
    expect(page.locator('[data-table="1"]')).to_have_attribute(
        "data-state", "finished", timeout=15_000
    )
    page.set_viewport_size(LAPTOP)
    page.screenshot(path=screenshot_dir / "toernooi-series-running-laptop.png", full_page=True)
    page.set_viewport_size(TABLET)

    # Table 2 from a paper lei (final totals), table 3 played out elsewhere. The lei entered
    # first was wrong and is replaced by the right one.
    series = tournament.series.get(number=1)
    page.goto(f"{base_url}/toernooi/{tournament.pk}/serie/1/tafel/2/papier/")
    fields = page.locator('input[name^="total_"]')
    seats = fields.count()
    for i in range(seats):
        fields.nth(i).fill(str(4 if i == 0 else 10 + i))  # the first left below 10
    page.screenshot(path=screenshot_dir / "toernooi-paper-tablet.png", full_page=True)
    page.get_by_role("button", name="Eindstand opslaan").click()
    page.wait_for_url(re.compile(r"/serie/1/$"))
    page.locator('[data-table="2"]').get_by_role("link", name="Papieren lei verbeteren").click()
    expect(page.locator("#paper-replaces")).to_be_visible()
    fields = page.locator('input[name^="total_"]')
    for i in range(seats):
        fields.nth(i).fill(str(4 if i == seats - 1 else 10 + i))  # the last was left, really
    page.get_by_role("button", name="Eindstand opslaan").click()
    page.wait_for_url(re.compile(r"/serie/1/$"))
    paper = series.tables.get(number=2).session
    last = paper.seats.order_by("-position").first().player_id
    assert paper.results.get(player_id=last).place == 1
    play_out(series.tables.get(number=3).session)
    expect(page.locator('[data-state="finished"]')).to_have_count(3, timeout=15_000)
    expect(page.locator("#series-tables")).to_contain_text("Alle tafels zijn klaar.")

    # Close the series, draw the second one: the TV shows its tables by itself.
    standings_before = tv.locator("#tv-board").inner_text()
    page.get_by_role("button", name="Serie afsluiten").click()
    expect(page.locator(".notices")).to_contain_text("Serie 1 is afgesloten.")

    # Closed: table 1's own tablet cannot take its last tap back any more...
    tablet.get_by_role("button", name="Ongedaan maken: de laatste tik terugnemen").click()
    expect(tablet.locator("#closed")).to_contain_text("De serie van deze tafel is afgesloten")
    assert Session.objects.get(pk=session.pk).status == Session.Status.FINISHED
    # ...while the organiser corrects its first round on the lei: won with a jack after all.
    page.goto(f"{base_url}/sessies/{session.pk}/")
    page.get_by_role("link", name="Ronde 1 verbeteren").click()
    page.locator('#editor input[name="events-0-jack"]').check()
    page.get_by_role("button", name="Ronde opslaan").click()
    expect(page.locator("#live .badge--fixed")).to_have_count(1)
    assert Session.objects.get(pk=session.pk).rounds.get(number=1).events[0]["jack"] is True
    page.goto(series_url)
    expect(page.locator("h1 .badge")).to_have_text("klaar")
    expect(page.locator('[data-table="1"]')).to_have_attribute("data-state", "finished")
    page.get_by_role("button", name="Serie 2 loten").click()
    page.wait_for_url(re.compile(r"/serie/2/$"))
    expect(page.locator("h1")).to_contain_text("Serie 2 van 2")
    page.screenshot(path=screenshot_dir / "toernooi-series-2-drawn-tablet.png", full_page=True)
    url_before = tv.url
    expect(tv.locator("#tv-board")).to_contain_text("Serie 2: zoek je tafel", timeout=20_000)
    assert tv.url == url_before  # updated in place, never reloaded
    assert tv.locator("#tv-board").inner_text() != standings_before
    tv.screenshot(path=screenshot_dir / "toernooi-tv-13.png")

    # The organiser's overview and the (provisional) prize list, on a laptop.
    page.set_viewport_size(LAPTOP)
    page.locator("nav .steps a").first.click()
    expect(page.locator("#next-step")).to_be_visible()
    corrections = page.locator("#corrections")
    expect(corrections).to_contain_text("Aanmelding van Mien ongedaan gemaakt")
    expect(corrections).to_contain_text("Papieren lei vervangen: serie 1, tafel 2")
    expect(corrections).to_contain_text("Ronde 1 verbeterd: serie 1, tafel 1")
    page.screenshot(path=screenshot_dir / "toernooi-overview-laptop.png", full_page=True)
    page.get_by_role("link", name="Prijslijst").first.click()
    expect(page.locator(".prize-list tbody tr")).to_have_count(13)
    page.screenshot(path=screenshot_dir / "toernooi-prizes-laptop.png", full_page=True)

    # The public standings on a phone.
    phone_context = browser.new_context(viewport=PHONE, locale="nl-NL")
    phone_errors = console_errors(phone_context)
    phone = phone_context.new_page()
    phone.goto(f"{base_url}/club/{club.slug}/toernooi/{tournament.pk}/")
    expect(phone.locator("#tournament-standings tbody tr")).to_have_count(13)
    expect(phone.locator("#tournament-standings")).not_to_contain_text("Mien")
    phone.screenshot(path=screenshot_dir / "toernooi-standings-phone.png", full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")

    for context in (tv_context, table_context, phone_context):
        context.close()
    assert tv_errors == []
    assert table_errors == []
    assert phone_errors == []


def test_the_tv_shows_40_players_without_scrolling_and_turns_pages_beyond(
    browser, base_url, screenshot_dir
):
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer", standings_public=True)
    players = [Player.objects.create(club=club, name=f"Speler {i:02}") for i in range(1, 41)]
    tournament = tournaments.tournament_create(club=club, name="Grote avond", series_count=3)
    checkin.tournament_check_in(tournament=tournament, players=players)
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=4)
    tournaments.series_start(series=series)
    for table in series.tables.all():
        play_out(table.session)
    tournament_results.series_finish(series=series)
    tournaments.series_draw(tournament=tournament, expected_number=2, seed=5)

    context = browser.new_context(viewport=TV, locale="nl-NL")
    errors = console_errors(context)
    tv = context.new_page()
    url = f"{base_url}/club/{club.slug}/toernooi/{tournament.pk}/tv/"
    tv.goto(url)
    # The standings beside the next series' ten tables: all 40 on one screen.
    expect(tv.locator(".tv-table")).to_have_count(10)
    expect(tv.locator(".tv-standings tbody tr")).to_have_count(40)
    assert fits_without_scrolling(tv)
    assert tv.locator(".tv-page").count() == 0
    tv.screenshot(path=screenshot_dir / "toernooi-tv-40-tables.png")

    # Ten late arrivals: 50 rows, two pages that the poll turns by itself.
    late = [Player.objects.create(club=club, name=f"Laat {i:02}") for i in range(1, 11)]
    checkin.tournament_check_in(tournament=tournament, players=late)
    expect(tv.locator(".tv-page")).to_contain_text("pagina 1 van 2", timeout=20_000)
    first_page = tv.locator(".tv-standings").inner_text()
    expect(tv.locator(".tv-page")).to_contain_text("pagina 2 van 2", timeout=20_000)
    assert tv.locator(".tv-standings").inner_text() != first_page
    assert fits_without_scrolling(tv)
    tv.screenshot(path=screenshot_dir / "toernooi-tv-50-page-2.png")

    # Between series (nothing drawn): the standings alone, still no scrolling.
    second = tournament.series.get(number=2)
    tournaments.series_redraw(series=second, seed=6)  # with the late arrivals
    tournaments.series_start(series=second)
    for table in second.tables.all():
        play_out(table.session)
    tournament_results.series_finish(series=second)
    tv.goto(url)
    expect(tv.locator(".tv-standings tbody tr")).to_have_count(40)
    assert fits_without_scrolling(tv)
    tv.screenshot(path=screenshot_dir / "toernooi-tv-50-standings.png")

    # A hundred players: the 25 tables of the next series a row each, 14 to a page.
    crowd = [Player.objects.create(club=club, name=f"Gast {i:02}") for i in range(1, 51)]
    checkin.tournament_check_in(tournament=tournament, players=crowd)
    tournaments.series_draw(tournament=tournament, expected_number=3, seed=8)
    tv.goto(url)
    expect(tv.locator(".tv-tables--compact .tv-table")).to_have_count(14)
    expect(tv.locator("#tv-tables-heading")).to_contain_text("tafel 1\u201314 van 25")
    tv.screenshot(path=screenshot_dir / "toernooi-tv-100-tables.png")
    assert fits_without_scrolling(tv)
    context.close()
    assert errors == []


def test_the_table_cards_print_as_a6_pages(browser, base_url, screenshot_dir):
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    players = [Player.objects.create(club=club, name=n) for n in MEMBERS[:9]]
    user = get_user_model().objects.create_user("organisator", password="geheim-genoeg-1")
    ClubMembership.objects.create(user=user, club=club, role="admin")
    tournament = tournaments.tournament_create(club=club, name="Wintertoernooi", series_count=2)
    checkin.tournament_check_in(tournament=tournament, players=players)
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=2)
    tournaments.series_start(series=series)

    context = browser.new_context(viewport=TABLET, locale="nl-NL")
    errors = console_errors(context)
    page = context.new_page()
    login(page, base_url, "organisator", "geheim-genoeg-1")
    page.goto(f"{base_url}/toernooi/{tournament.pk}/serie/1/tafelkaarten/")
    expect(page.locator(".table-card")).to_have_count(2)  # 9 players: 5 + 4
    page.screenshot(path=screenshot_dir / "toernooi-cards-tablet.png", full_page=True)
    pdf = page.pdf(path=str(screenshot_dir / "toernooi-cards-a6.pdf"), prefer_css_page_size=True)
    pages = pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages")
    assert pages == 2  # one A6 page per table
    # A6 is 105 x 148 mm: 297.6 x 419.5 points (Chromium rounds to whole CSS pixels).
    boxes = re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf)
    assert boxes
    assert all(abs(float(w) - 297.6) < 1 and abs(float(h) - 419.5) < 1 for w, h in boxes)
    page.emulate_media(media="print")
    page.set_viewport_size({"width": 397, "height": 559})  # A6 at 96 dpi
    page.screenshot(path=screenshot_dir / "toernooi-card-a6-print.png")
    context.close()
    assert errors == []


def test_the_series_page_says_when_its_poll_cannot_get_through(browser, base_url, screenshot_dir):
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    players = [Player.objects.create(club=club, name=n) for n in MEMBERS[:8]]
    user = get_user_model().objects.create_user("organisator", password="geheim-genoeg-1")
    ClubMembership.objects.create(user=user, club=club, role="admin")
    tournament = tournaments.tournament_create(club=club, name="Wintertoernooi", series_count=2)
    checkin.tournament_check_in(tournament=tournament, players=players)
    series = tournaments.series_draw(tournament=tournament, expected_number=1, seed=2)
    tournaments.series_start(series=series)

    context = browser.new_context(viewport=TABLET, locale="nl-NL")
    errors = console_errors(context)
    page = context.new_page()
    login(page, base_url, "organisator", "geheim-genoeg-1")
    page.goto(f"{base_url}/toernooi/{tournament.pk}/serie/1/")
    stale = page.locator("[data-stale]")
    expect(stale).to_be_hidden()
    context.set_offline(True)  # the pub's wifi drops
    expect(stale).to_be_visible(timeout=10_000)
    page.screenshot(path=screenshot_dir / "toernooi-series-offline-tablet.png", full_page=True)
    play_out(series.tables.get(number=1).session)
    context.set_offline(False)
    expect(stale).to_be_hidden(timeout=10_000)
    expect(page.locator('[data-table="1"]')).to_have_attribute("data-state", "finished")
    context.close()
    # Offline, the browser and htmx log the failed polls; nothing else went wrong.
    assert errors
    expected = ("ERR_INTERNET_DISCONNECTED", "htmx:sendError", "htmx:afterRequest")
    assert all(any(word in e for word in expected) for e in errors), errors


def test_a_tap_at_the_check_in_keeps_the_focus_on_that_toggle(page, base_url):
    club = Club.objects.create(name="De Gouden Boer", slug="gouden-boer")
    for name in MEMBERS[:4]:
        Player.objects.create(club=club, name=name)
    user = get_user_model().objects.create_user("organisator", password="geheim-genoeg-1")
    ClubMembership.objects.create(user=user, club=club, role="admin")
    tournament = tournaments.tournament_create(club=club, name="Wintertoernooi", series_count=2)
    login(page, base_url, "organisator", "geheim-genoeg-1")
    page.goto(f"{base_url}/toernooi/{tournament.pk}/aanmelden/")
    toggle = page.locator('#checkin button[data-player="Cees"]')
    toggle.focus()
    page.keyboard.press("Enter")  # a keyboard or switch user taps
    expect(toggle).to_have_attribute("aria-pressed", "true")
    focused = page.locator("#checkin button:focus")  # htmx gives it back once the swap settles
    expect(focused).to_have_attribute("data-player", "Cees")
    # htmx wires the new forms up when the swap has settled; a tap before that is a plain
    # POST (the page comes back whole, correct, but with the focus at the top).
    expect(page.locator(".htmx-settling")).to_have_count(0)
    page.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(focused).to_have_attribute("data-player", "Cees")
