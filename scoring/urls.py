from django.contrib.auth import views as auth_views
from django.urls import path

from scoring import league_views, views

urlpatterns = [
    # The viewers' poll first: every phone and TV asks it every few seconds, and URLs are
    # tried in this order (BENCHMARKS.md, "load").
    path("kijk/<str:signed>/", views.viewer, name="viewer"),
    # Home
    path("", views.home, name="home"),
    # Logging in and out (club members)
    path(
        "inloggen/",
        auth_views.LoginView.as_view(template_name="scoring/login.html"),
        name="login",
    ),
    path("uitloggen/", auth_views.LogoutView.as_view(), name="logout"),
    # Starting a session
    path("sessies/nieuw/", views.session_new, name="session_new"),
    path("sessies/nieuw/spelers/", views.player_search, name="player_search"),
    # The tablet: the round panel and the sheet, one POST per tap
    path("lei-sw.js", views.service_worker, name="service_worker"),  # scope: the whole site
    path("sessies/<int:pk>/", views.tablet, name="tablet"),
    path("sessies/<int:pk>/gebeurtenis/", views.session_event, name="session_event"),
    path("sessies/<int:pk>/ongedaan/", views.session_undo, name="session_undo"),
    path("sessies/<int:pk>/aanwezig/", views.session_presence, name="session_presence"),
    path("sessies/<int:pk>/einde/", views.session_finish, name="session_finish"),
    path("sessies/<int:pk>/opnieuw/", views.session_again, name="session_again"),
    path("sessies/<int:pk>/ronde/<int:number>/", views.round_edit, name="round_edit"),
    path("sessies/<int:pk>/scorerlink/", views.scorer_link_change, name="scorer_link_change"),
    # The secret scorer link for a tablet (the read-only viewer link is the first URL)
    path("tafel/<str:token>/", views.scorer_link, name="scorer_link"),
    # The league: a club's seasons and standings, players, the archive, the evening on the TV
    path("club/<slug:slug>/", league_views.club_home, name="league_club"),
    path(
        "club/<slug:slug>/seizoen/<int:season_id>/",
        league_views.season_standings,
        name="league_season",
    ),
    path(
        "club/<slug:slug>/seizoen/<int:season_id>/stand.csv",
        league_views.season_standings_csv,
        name="league_season_csv",
    ),
    path(
        "club/<slug:slug>/seizoen/<int:season_id>/rondes.csv",
        league_views.season_rounds_csv,
        name="league_season_rounds_csv",
    ),
    path(
        "club/<slug:slug>/speler/<int:player_id>/", league_views.player_page, name="league_player"
    ),
    path("club/<slug:slug>/archief/", league_views.archive, name="league_archive"),
    path(
        "club/<slug:slug>/archief/<int:session_id>/",
        league_views.session_page,
        name="league_session",
    ),
    path(
        "club/<slug:slug>/archief/<int:session_id>/toepen.json",
        league_views.session_export,
        name="league_session_export",
    ),
    path("club/<slug:slug>/avond/", league_views.evening_today, name="league_evening_today"),
    path("club/<slug:slug>/avond/<str:day>/", league_views.evening, name="league_evening"),
]
