"""Django's admin looks for ``scoring.admin``: the admin lives in the rooms it looks after."""

from scoring.clubs import admin as clubs_admin
from scoring.lei import admin as lei_admin
from scoring.toernooi import admin as toernooi_admin

__all__ = ["clubs_admin", "lei_admin", "toernooi_admin"]
