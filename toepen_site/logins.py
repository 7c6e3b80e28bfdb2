"""Login limits that stop guessing without locking a pub out (django-axes' callables).

A pub is one address: a guest guessing there must not keep the club admin out. Counted in
axes' ``AccessAttempt`` rows, so every app server sees the same counts:

- **A name from an address**: ``LOGIN_FAILURE_LIMIT`` wrong passwords lock that name out of
  that address until ``LOGIN_COOLOFF_MINUTES`` after the last one. Attempts refused during
  the lockout are not counted and do not restart it
  (``AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False``).
- **An address**: once ``LOGIN_ADDRESS_FAILURE_LIMIT`` failures, whatever the names, lie within
  the cool-off, the address waits ``LOGIN_ADDRESS_WAIT_SECONDS`` after each further failure:
  a minute for the pub, a guess a minute for a script (:func:`address_wait`).
- **The second question**: a locked name is not a dead end. The login page asks to wait
  ``LOGIN_DELAY_SECONDS`` and carries a signed token; after the wait that token lets exactly one
  real password check through. Nothing is checked before it, so the page says nothing about the
  password; one check per wait per (name, address), whichever browser comes first, and every
  wrong password after a wait doubles the next wait, so guessing stays slow.
- **A browser that signed in before** (OWASP's device cookies): a successful login leaves a
  signed cookie bound to that username (``DEVICE_COOKIE``). When a login for that username
  brings it, neither the address's wait nor the name's lock applies: that browser has its own
  budget of ``LOGIN_DEVICE_FAILURE_LIMIT`` wrong passwords within the cool-off, after which it
  is treated as any other. A stranger guessing names at the pub, or guessing one member's
  password, no longer keeps that member out on their own tablet or phone. Axes still counts
  every failure, the device's too.
"""

from __future__ import annotations

import datetime
import hashlib
import math
import secrets
from collections.abc import Callable

from axes.attempts import get_cool_off_threshold
from axes.helpers import get_client_username, get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core import signing
from django.core.cache import cache
from django.db.models import Max, Sum
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import ngettext

# The form field that carries the token, and what signs it.
DELAY_FIELD = "login_delay"
DELAY_SALT = "toepen_site.logins.delay"
# Doubling stops here: 2**10 delays is far past any cool-off, which caps the wait anyway.
MAX_DOUBLINGS = 10


def login_failure_limit(request: HttpRequest, credentials: dict | None = None) -> int:
    """How many failures lock this login's (name, address) pair (``AXES_FAILURE_LIMIT``).

    0 while the address waits (everything from it is refused). One more than the pair has
    when the request brings a valid token after its wait, so axes lets that one password be
    checked; a wrong one is then counted and locks again. Axes asks before the check and again
    after a failure; the token is judged, and spent, once per request. From a browser with the
    name's device cookie and budget left (``trusted_device``), never locked.
    """
    username = get_client_username(request, credentials)
    if trusted_device(request, username):
        return pair_failures(request, username)[0] + 1
    if address_wait(request) > 0:
        return 0
    decided = getattr(request, "login_failure_limit", None)
    if decided is None:
        decided = settings.LOGIN_FAILURE_LIMIT
        failures, _ = pair_failures(request, username)
        if failures >= decided and _spend_token(request, username):
            decided = failures + 1
        request.login_failure_limit = decided
    return decided


def address_wait(request: HttpRequest) -> float:
    """Seconds this request's address still waits; 0 when it does not.

    It waits once its failures within the cool-off reach ``LOGIN_ADDRESS_FAILURE_LIMIT``, for
    ``LOGIN_ADDRESS_WAIT_SECONDS`` after its last failure. Refused attempts are no failures, so
    waiting is all it takes; a script still gets one guess per wait.
    """
    found = AccessAttempt.objects.filter(
        ip_address=request.axes_ip_address, attempt_time__gte=get_cool_off_threshold(request)
    ).aggregate(failures=Sum("failures_since_start"), last=Max("attempt_time"))
    if (found["failures"] or 0) < settings.LOGIN_ADDRESS_FAILURE_LIMIT:
        return 0
    ends = found["last"] + datetime.timedelta(seconds=settings.LOGIN_ADDRESS_WAIT_SECONDS)
    return max(0.0, (ends - timezone.now()).total_seconds())


def pair_failures(
    request: HttpRequest, username: str | None
) -> tuple[int, datetime.datetime | None]:
    """The failures of (``username``, this request's address) within the cool-off, and the
    time of the last one."""
    found = AccessAttempt.objects.filter(
        username=username,
        ip_address=request.axes_ip_address,
        attempt_time__gte=get_cool_off_threshold(request),
    ).aggregate(failures=Sum("failures_since_start"), last=Max("attempt_time"))
    return found["failures"] or 0, found["last"]


def login_lockout_response(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict | None = None,
) -> HttpResponse:
    """The answer to a refused login (``AXES_LOCKOUT_CALLABLE``): the login page, 429, saying
    in the user's language how long to wait, with the token for the check after the wait
    when a name is locked. The admin's login is answered with the same page; it signs in and
    goes on to the admin (its ``next``)."""
    username = get_client_username(request, credentials)
    now = timezone.now()
    wait = address_wait(request)
    token = ""
    failures, last = pair_failures(request, username)
    limit = settings.LOGIN_FAILURE_LIMIT
    if failures >= limit and last is not None and username is not None:
        # The next check waits the delay, doubled by each wrong password after a wait, and
        # never longer than the lockout itself lasts.
        doublings = min(failures - limit, MAX_DOUBLINGS)
        lock_left = (last + get_cool_off(request) - now).total_seconds()
        delay = min(settings.LOGIN_DELAY_SECONDS * 2**doublings, lock_left)
        slot = _open_slot(username, request.axes_ip_address, now.timestamp() + max(delay, 0.0))
        token = signing.dumps(
            {"u": username, "a": request.axes_ip_address, "n": slot["nonce"]}, salt=DELAY_SALT
        )
        wait = max(wait, slot["from"] - now.timestamp())
    seconds = max(1, math.ceil(round(wait, 3)))  # 2.0000001 s is "2 seconds"
    if token:
        message = ngettext(
            "Te veel mislukte inlogpogingen voor deze gebruikersnaam vanaf dit adres. Wacht "
            "%(seconds)s seconde en log dan opnieuw in.",
            "Te veel mislukte inlogpogingen voor deze gebruikersnaam vanaf dit adres. Wacht "
            "%(seconds)s seconden en log dan opnieuw in.",
            seconds,
        ) % {"seconds": seconds}
    else:
        message = ngettext(
            "Te veel mislukte inlogpogingen vanaf dit adres. Wacht %(seconds)s seconde en log "
            "dan opnieuw in.",
            "Te veel mislukte inlogpogingen vanaf dit adres. Wacht %(seconds)s seconden en log "
            "dan opnieuw in.",
            seconds,
        ) % {"seconds": seconds}
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    if not next_url and request.path == reverse("admin:login"):
        next_url = reverse("admin:index")
    context = {
        "form": AuthenticationForm(request, initial={"username": username or ""}),
        "next": next_url,
        "login_wait_message": message,
        "login_delay": token,
    }
    response = render(request, "scoring/login.html", context, status=429)
    response["Retry-After"] = str(seconds)
    return response


def _slot_key(username: str, address: str | None) -> str:
    digest = hashlib.sha256(f"{username}\x00{address}".encode(errors="surrogatepass")).hexdigest()
    return f"login-delay:{digest}"


def _open_slot(username: str, address: str | None, start: float) -> dict:
    """The (name, address) pair's next check: a nonce and the time from which it may be made
    (``start``, a timestamp, for a slot opened now).

    One per pair: every browser asking during the wait gets the same one, so asking again
    neither restarts the wait nor buys a second check. It lives in the cache (the database's,
    shared by every app server) until ``LOGIN_DELAY_VALID_SECONDS`` after the wait.
    """
    key = _slot_key(username, address)
    slot = cache.get(key)
    if slot is None:
        slot = {"nonce": secrets.token_urlsafe(16), "from": start}
        timeout = start - timezone.now().timestamp() + settings.LOGIN_DELAY_VALID_SECONDS
        if not cache.add(key, slot, timeout=timeout):
            slot = cache.get(key) or slot  # another request opened it a moment ago
    return slot


def _spend_token(request: HttpRequest, username: str | None) -> bool:
    """Whether the request brings the token of its pair's open slot, after the wait; if so the
    slot is spent, so no other request gets a check from it."""
    token = request.POST.get(DELAY_FIELD, "") if request.method == "POST" else ""
    if not token or len(token) > 500 or username is None:
        return False
    max_age = get_cool_off(request).total_seconds() + settings.LOGIN_DELAY_VALID_SECONDS
    try:
        claims = signing.loads(token, salt=DELAY_SALT, max_age=max_age)
    except (signing.BadSignature, ValueError):
        return False
    address = request.axes_ip_address
    if not isinstance(claims, dict) or claims.get("u") != username or claims.get("a") != address:
        return False
    key = _slot_key(username, address)
    slot = cache.get(key)
    if (
        slot is None
        or slot["nonce"] != claims.get("n")
        or timezone.now().timestamp() < slot["from"]
    ):
        return False
    # Two browsers with the same slot's token at once: adding a key is atomic (its row is
    # unique), so exactly one of them gets the check.
    if not cache.add(f"{key}:spent:{slot['nonce']}", True, settings.LOGIN_DELAY_VALID_SECONDS):
        return False
    cache.delete(key)
    return True


# --- device cookies: a browser that signed in before keeps its own allowance ------------------

DEVICE_COOKIE = "lei_apparaat"
DEVICE_SALT = "toepen_site.logins.device"
DEVICE_DAYS = 365


def trusted_device(request: HttpRequest, username: str | None) -> bool:
    """Whether this login comes from a browser that signed in as ``username`` before (its
    device cookie) and has not spent its own budget of wrong passwords. Judged once a request."""
    nonce = getattr(request, "login_device", None)
    if nonce is None:
        nonce = _device_nonce(request, username)
        if nonce and _device_failures(nonce) >= settings.LOGIN_DEVICE_FAILURE_LIMIT:
            nonce = ""
        request.login_device = nonce
    return bool(nonce)


def _device_nonce(request: HttpRequest, username: str | None) -> str:
    """The nonce of the request's device cookie when it is ours, unspoilt and for ``username``."""
    raw = request.COOKIES.get(DEVICE_COOKIE, "")
    if not raw or len(raw) > 500 or not username:
        return ""
    try:
        claims = signing.loads(raw, salt=DEVICE_SALT, max_age=DEVICE_DAYS * 24 * 3600)
    except (signing.BadSignature, ValueError):
        return ""
    if not isinstance(claims, dict) or claims.get("u") != username:
        return ""
    nonce = claims.get("n")
    return nonce if isinstance(nonce, str) and 0 < len(nonce) <= 40 else ""


def _device_key(nonce: str) -> str:
    return "login-device:" + hashlib.sha256(nonce.encode()).hexdigest()


def _device_failures(nonce: str) -> int:
    return cache.get(_device_key(nonce), 0)


@receiver(user_login_failed)
def count_device_failure(sender, credentials: dict, request: HttpRequest | None = None, **kwargs):
    """A wrong password from a trusted browser spends its own budget, for the cool-off."""
    nonce = getattr(request, "login_device", "") if request is not None else ""
    if nonce:
        key = _device_key(nonce)
        timeout = settings.AXES_COOLOFF_TIME.total_seconds()
        cache.add(key, 0, timeout=timeout)
        try:
            cache.incr(key)
        except ValueError:  # expired between the two: count it afresh
            cache.set(key, 1, timeout=timeout)


@receiver(user_logged_in)
def issue_device_cookie(sender, request: HttpRequest | None = None, user=None, **kwargs):
    """A successful login: the browser gets (or keeps) its device cookie for this username,
    with its budget whole again; ``DeviceCookieMiddleware`` sets it on the answer."""
    if request is None or user is None:
        return
    username = user.get_username()
    nonce = _device_nonce(request, username) or secrets.token_urlsafe(16)
    cache.delete(_device_key(nonce))
    request.device_cookie = signing.dumps({"u": username, "n": nonce}, salt=DEVICE_SALT)


class DeviceCookieMiddleware:
    """Sets the device cookie that a successful login in this request issued."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        value = getattr(request, "device_cookie", "")
        if value:
            response.set_cookie(
                DEVICE_COOKIE,
                value,
                max_age=DEVICE_DAYS * 24 * 3600,
                httponly=True,
                samesite="Lax",
                secure=settings.SESSION_COOKIE_SECURE,
            )
        return response
