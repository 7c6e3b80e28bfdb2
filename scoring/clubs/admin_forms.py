"""Forms of the club admin: invitations, people by username (the superuser's only), a club's
house rules, a season's ranking, and merging two players."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from scoring.admin_base import SettingJSONField, refusal_message
from scoring.clubs.ranking import InvalidRanking, Ranking
from scoring.engine import Refusal, resolve_rules
from scoring.models import Club, ClubInvitation, ClubMembership, Player, Season
from scoring.names import name_key, tidy


class UsernameField(forms.ModelChoiceField):
    """A user typed by their exact username, so the form never lists every account. Only the
    site's superusers have it (who see every account anyway): a club admin adds a member by
    invitation (``ClubInvitationForm``), since a field that says whether a name is taken tells
    who has an account."""

    widget = forms.TextInput

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("queryset", get_user_model().objects.filter(is_active=True))
        kwargs.setdefault("to_field_name", get_user_model().USERNAME_FIELD)
        kwargs.setdefault(
            "error_messages", {"invalid_choice": _("There is no active user with that username.")}
        )
        super().__init__(**kwargs)


class _UsernameInitialMixin:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The admin excludes a read-only field from the form it builds, but a declared field
        # stays: a required username that the page never sends refused every save.
        if "user" in (self._meta.exclude or ()):
            self.fields.pop("user", None)
        user = getattr(self.instance, "user", None) if self.instance.user_id else None
        if user is not None and "user" in self.fields:
            self.initial["user"] = user.get_username()


class ClubMembershipForm(_UsernameInitialMixin, forms.ModelForm):
    user = UsernameField(label=_("username"))

    class Meta:
        model = ClubMembership
        fields = ["user", "club", "role"]

    def _post_clean(self) -> None:
        # A row of the club's page that nobody changed is not saved, and it was checked when
        # it was: asking the database for its constraints again cost two queries per member.
        if self.instance.pk and not self.has_changed():
            return
        super()._post_clean()


class PlayerForm(_UsernameInitialMixin, forms.ModelForm):
    user = UsernameField(
        label=_("username"),
        required=False,
        help_text=_("The account of this player, if they have one (optional)."),
    )

    class Meta:
        model = Player
        fields = ["club", "name", "is_guest", "public_initials", "confirmed", "user"]

    def clean_name(self) -> str:
        return tidy(self.cleaned_data.get("name") or "")

    def clean(self) -> dict[str, Any]:
        """A name is the club's only one as names are compared at the table (scoring/names.py):
        "anne  vos" is Anne Vos, and would be found as her."""
        data = super().clean()
        club = data.get("club")
        club_id = club.pk if club is not None else self.instance.club_id  # read-only: its own
        name = data.get("name")
        if club_id is not None and name:
            others = Player.objects.filter(club_id=club_id, name_key=name_key(name))
            if others.exclude(pk=self.instance.pk).exists():
                self.add_error(
                    "name",
                    _("The club has a player of this name already (as the lei compares names)."),
                )
        return data


class ClubInvitationForm(forms.ModelForm):
    """An invitation to become a member of a club: its role, the club's player who is the one
    invited (optional), and until when its link works."""

    class Meta:
        model = ClubInvitation
        fields = ["club", "role", "player", "note", "expires_at"]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        club, player = data.get("club") or self.instance_club(), data.get("player")
        if player is not None and club is not None and player.club_id != club.pk:
            self.add_error("player", _("Choose a player of the club this invitation is for."))
        elif player is not None and player.user_id is not None:
            self.add_error("player", _("This player has an account already."))
        expires = data.get("expires_at")
        if expires is not None and "expires_at" in self.changed_data and expires <= timezone.now():
            self.add_error("expires_at", _("Choose a moment in the future."))
        return data

    def instance_club(self) -> Club | None:
        return self.instance.club if self.instance.club_id else None


class ClubForm(forms.ModelForm):
    """A club's house rules are checked by the engine before they are saved, so that the next
    session of the club does not start on rules that contradict themselves."""

    class Meta:
        model = Club
        fields = [
            "name",
            "slug",
            "preset",
            "rules",
            "standings_public",
            "win_chance",
            "agreement_rule",
            "language",
            "embed_origins",
        ]
        field_classes = {"rules": SettingJSONField}

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        preset = data.get("preset", self.instance.preset)
        rules = data.get("rules", self.instance.rules)
        try:
            resolve_rules(preset, rules or {})
        except Refusal as refusal:
            raise forms.ValidationError(refusal_message(refusal)) from None
        return data


class SeasonForm(forms.ModelForm):
    """A season's ranking is read by the one code that ranks the standings
    (``clubs.ranking.Ranking.parse``), so what it cannot read is a form error, never a page that
    breaks later."""

    class Meta:
        model = Season
        fields = ["club", "name", "starts_on", "ends_on", "ranking", "min_sessions"]
        field_classes = {"ranking": SettingJSONField}

    def clean_ranking(self) -> Any:
        ranking = self.cleaned_data.get("ranking")
        try:
            Ranking.parse(ranking)
        except InvalidRanking as problem:
            raise forms.ValidationError(str(problem)) from None
        return ranking


class MergeForm(forms.Form):
    keep = forms.ModelChoiceField(
        queryset=Player.objects.none(),
        widget=forms.RadioSelect,
        label=_("Keep"),
        empty_label=None,
    )

    def __init__(self, *args: Any, players: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["keep"].queryset = players
