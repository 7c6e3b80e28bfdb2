from django.urls import path

from scoring import views

urlpatterns = [
    # Home
    path("", views.home, name="home"),
]
