from django.urls import path

from scoring import league_views, views

urlpatterns = [
    # Home
    path("", views.home, name="home"),
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
