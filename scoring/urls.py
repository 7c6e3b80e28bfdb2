from django.contrib.auth import views as auth_views
from django.urls import path, register_converter

from scoring.clubs import views as club_views
from scoring.evening import phone_views
from scoring.evening import views as evening_views
from scoring.http import ID
from scoring.league import archive_views, calendar, embed_views, exports, picture_views
from scoring.league import views as league_views
from scoring.lei import akkoord_views, correction_views, start_views, viewer_views, views
from scoring.lei import picture_views as lei_pictures
from scoring.push import views as push_views
from scoring.ratings import views as rating_views
from scoring.toernooi import akkoord_views as tournament_akkoord
from scoring.toernooi import checkin_views, finish_views, room_views, table_views, wall_views
from scoring.toernooi import picture_views as tournament_pictures
from scoring.toernooi import views as tournament_views


class IdConverter:
    """A row's id in a URL: at most 18 digits, so a longer number is a 404 like any id that is
    not there, and never reaches the database as an integer its columns cannot hold (SQLite
    refuses one with an OverflowError)."""

    regex = ID.pattern

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")

urlpatterns = [
    # The viewers' poll first: every phone and TV asks it every few seconds, and URLs are
    # tried in this order.
    path("kijk/<str:signed>/", viewer_views.viewer, name="viewer"),
    # The pushed parts of the pages people watch (scoring/push/views.py): one stream a page
    path("stroom/", push_views.stream, name="push_stream"),
    # Home
    path("", league_views.home, name="home"),
    # Logging in and out (club members)
    path(
        "inloggen/",
        auth_views.LoginView.as_view(template_name="scoring/login.html"),
        name="login",
    ),
    path("uitloggen/", auth_views.LogoutView.as_view(), name="logout"),
    # A club's invitation to become a member, made by its admin in the admin
    path("uitnodiging/<str:token>/", club_views.invitation_accept, name="invitation_accept"),
    # Starting a session
    path("sessies/nieuw/", start_views.session_new, name="session_new"),
    path("sessies/nieuw/spelers/", start_views.player_search, name="player_search"),
    # The tablet: the round panel and the sheet, one POST per tap
    path("lei-sw.js", views.service_worker, name="service_worker"),  # scope: the whole site
    path("sessies/<id:pk>/", views.tablet, name="tablet"),
    path("sessies/<id:pk>/gebeurtenis/", views.session_event, name="session_event"),
    path("sessies/<id:pk>/ongedaan/", views.session_undo, name="session_undo"),
    path("sessies/<id:pk>/aanwezig/", views.session_presence, name="session_presence"),
    path("sessies/<id:pk>/einde/", views.session_finish, name="session_finish"),
    path("sessies/<id:pk>/opnieuw/", views.session_again, name="session_again"),
    path("sessies/<id:pk>/ronde/<id:number>/", correction_views.round_edit, name="round_edit"),
    path("sessies/<id:pk>/scorerlink/", views.scorer_link_change, name="scorer_link_change"),
    path("sessies/<id:pk>/kijklink/", views.viewer_link_change, name="viewer_link_change"),
    path("sessies/<id:pk>/deel/", views.session_share, name="session_share"),
    path("sessies/<id:pk>/lei.png", lei_pictures.session_picture, name="session_picture"),
    # The table's akkoord with the final lei
    path("sessies/<id:pk>/akkoord/", akkoord_views.session_agree, name="session_agree"),
    path("sessies/<id:pk>/niet-akkoord/", akkoord_views.session_dispute, name="session_dispute"),
    # The secret scorer link for a tablet (the read-only viewer link is the first URL)
    path("tafel/<str:token>/", views.scorer_link, name="scorer_link"),
    # The toernooi: the organiser's pages (create, check-in, the draw, each series and its
    # tables, table cards, a paper lei, the final table, prizes); its standings and TV are
    # league pages of the club, with the others below.
    path("toernooi/<id:pk>/qr/", evening_views.tournament_checkin_qr, name="tournament_checkin_qr"),
    path("toernooi/", tournament_views.tournament_list, name="tournament_list"),
    path("toernooi/nieuw/", tournament_views.tournament_new, name="tournament_new"),
    path("toernooi/<id:pk>/", tournament_views.tournament_page, name="tournament_page"),
    path(
        "toernooi/<id:pk>/aanmelden/",
        tournament_views.tournament_checkin,
        name="tournament_checkin",
    ),
    path(
        "toernooi/<id:pk>/aanmelden/lijst/",
        checkin_views.tournament_paste,
        name="tournament_paste",
    ),
    path("toernooi/<id:pk>/loten/", tournament_views.tournament_draw, name="tournament_draw"),
    path(
        "toernooi/<id:pk>/serie/<id:number>/",
        tournament_views.series_page,
        name="tournament_series",
    ),
    path(
        "toernooi/<id:pk>/serie/<id:number>/opnieuw/",
        tournament_views.series_redraw,
        name="tournament_series_redraw",
    ),
    path(
        "toernooi/<id:pk>/serie/<id:number>/wissel/",
        tournament_views.series_swap,
        name="tournament_series_swap",
    ),
    path(
        "toernooi/<id:pk>/serie/<id:number>/start/",
        tournament_views.series_start,
        name="tournament_series_start",
    ),
    path(
        "toernooi/<id:pk>/serie/<id:number>/afsluiten/",
        tournament_views.series_finish,
        name="tournament_series_finish",
    ),
    path(
        "toernooi/<id:pk>/serie/<id:number>/heropenen/",
        tournament_views.series_reopen,
        name="tournament_series_reopen",
    ),
    path(
        "toernooi/<id:pk>/serie/<id:number>/tafelkaarten/",
        table_views.table_cards,
        name="tournament_table_cards",
    ),
    path(
        "toernooi/<id:pk>/serie/<id:number>/indeling/",
        wall_views.series_sheet,
        name="tournament_series_sheet",
    ),
    path(
        "toernooi/<id:pk>/serie/<id:number>/klok/",
        wall_views.series_clock,
        name="tournament_series_clock",
    ),
    path(
        "toernooi/<id:pk>/serie/<id:number>/tafel/<id:table>/papier/",
        table_views.table_paper,
        name="tournament_table_paper",
    ),
    path(
        "toernooi/<id:pk>/serie/<id:number>/tafel/<id:table>/papier/terug/",
        table_views.table_paper_undo,
        name="tournament_table_paper_undo",
    ),
    path(
        "toernooi/<id:pk>/serie/<id:number>/tafel/<id:table>/einde/",
        table_views.table_finish,
        name="tournament_table_finish",
    ),
    path(
        "toernooi/<id:pk>/serie/<id:number>/tafel/<id:table>/accepteren/",
        tournament_akkoord.table_accept,
        name="tournament_table_accept",
    ),
    path("toernooi/<id:pk>/finaletafel/", table_views.final_table, name="tournament_final"),
    path("toernooi/<id:pk>/prijzen/", table_views.prize_list, name="tournament_prizes"),
    path(
        "toernooi/<id:pk>/prijzen/openbaar/",
        finish_views.prizes_public_set,
        name="tournament_prizes_public",
    ),
    path("toernooi/<id:pk>/uitslag.csv", finish_views.organiser_csv, name="tournament_csv"),
    path(
        "club/<slug:slug>/toernooi/<id:pk>/",
        room_views.standings_page,
        name="tournament_standings",
    ),
    path("club/<slug:slug>/toernooi/<id:pk>/tv/", room_views.tv_page, name="tournament_tv"),
    path(
        "club/<slug:slug>/toernooi/<id:pk>/stand.png",
        tournament_pictures.standings_picture,
        name="tournament_standings_picture",
    ),
    path(
        "club/<slug:slug>/toernooi/<id:pk>/prijzen/",
        finish_views.public_prizes,
        name="tournament_public_prizes",
    ),
    path(
        "club/<slug:slug>/toernooi/<id:pk>/uitslag.csv",
        finish_views.public_csv,
        name="tournament_public_csv",
    ),
    # A club evening: check-in by QR on the players' phones, the organiser's screen, the draw
    path("aanmelden/<str:token>/", phone_views.checkin_phone, name="checkin_phone"),
    path("avonden/", evening_views.evening_new, name="evening_new"),
    path("avonden/<id:pk>/", evening_views.evening_page, name="evening_page"),
    path("avonden/<id:pk>/qr/", evening_views.evening_qr, name="evening_qr"),
    path("avonden/<id:pk>/datum/", evening_views.evening_date, name="evening_date"),
    path("avonden/<id:pk>/qr/afdruk/", evening_views.evening_poster, name="evening_poster"),
    path("avonden/<id:pk>/aanmelden/", evening_views.evening_add, name="evening_add"),
    path("avonden/<id:pk>/gast/", evening_views.evening_guest, name="evening_guest"),
    path("avonden/<id:pk>/vloed/", evening_views.evening_flood, name="evening_flood"),
    path("avonden/<id:pk>/afmelden/", evening_views.evening_sign_out, name="evening_sign_out"),
    path("avonden/<id:pk>/loten/", evening_views.evening_draw, name="evening_draw"),
    path(
        "avonden/<id:pk>/loten/weggooien/",
        evening_views.evening_draw_discard,
        name="evening_draw_discard",
    ),
    # The league: a club's seasons and standings, players, the archive, the evening on the TV
    path("club/<slug:slug>/", league_views.club_home, name="league_club"),
    path(
        "club/<slug:slug>/seizoen/<id:season_id>/",
        league_views.season_standings,
        name="league_season",
    ),
    path(
        "club/<slug:slug>/seizoen/<id:season_id>/stand.csv",
        exports.season_standings_csv,
        name="league_season_csv",
    ),
    path(
        "club/<slug:slug>/seizoen/<id:season_id>/rondes.csv",
        exports.season_rounds_csv,
        name="league_season_rounds_csv",
    ),
    path("club/<slug:slug>/speler/<id:player_id>/", league_views.player_page, name="league_player"),
    path("club/<slug:slug>/rating/", rating_views.club_ratings, name="league_ratings"),
    path("club/<slug:slug>/rating.csv", rating_views.club_ratings_csv, name="league_ratings_csv"),
    path("club/<slug:slug>/archief/", archive_views.archive, name="league_archive"),
    path(
        "club/<slug:slug>/archief/<id:session_id>/",
        archive_views.session_page,
        name="league_session",
    ),
    path(
        "club/<slug:slug>/archief/<id:session_id>/toepen.json",
        exports.session_export,
        name="league_session_export",
    ),
    # The pictures of a game and an evening for a group chat (their pages' og:image)
    path(
        "club/<slug:slug>/archief/<id:session_id>/lei.png",
        picture_views.session_picture,
        name="league_session_picture",
    ),
    path(
        "club/<slug:slug>/avond/<str:day>/lei.png",
        picture_views.evening_picture,
        name="league_evening_picture",
    ),
    path("club/<slug:slug>/avond/", archive_views.evening_today, name="league_evening_today"),
    # The club's own website: the standings and an evening in a frame (only the sites the club
    # names), the same as JSON, and the club's calendar (only for clubs that publish)
    path("club/<slug:slug>/ingebed/", embed_views.embed_standings, name="embed_standings"),
    path("club/<slug:slug>/ingebed/avond/", embed_views.embed_evening, name="embed_evening_today"),
    path(
        "club/<slug:slug>/ingebed/avond/<str:day>/",
        embed_views.embed_evening,
        name="embed_evening",
    ),
    path("club/<slug:slug>/stand.json", embed_views.standings_feed, name="standings_feed"),
    path("club/<slug:slug>/kalender.ics", calendar.calendar_feed, name="club_calendar"),
    path(
        "club/<slug:slug>/avond/<str:day>/uitslag.json",
        embed_views.evening_feed,
        name="evening_feed",
    ),
    path("club/<slug:slug>/avond/<str:day>/", archive_views.evening, name="league_evening"),
]
