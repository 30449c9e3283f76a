"""Signing in: a bot author's own pages, and the helpers other features use.

An author signs in with the API token the platform gave them (``arena register NAME`` prints it;
``RotateToken`` replaces it). The site hashes what is typed with :func:`arena.sdk.auth.hash_token`
and looks up ``users.token_hash``: the site never stores a token and never writes the database.
No password exists: the token already is a strong secret the author holds, and a second secret
would need its own reset path.

The session is Flask's signed cookie holding the user's id, a fingerprint of the token's hash
(so a rotated token ends every session made with the old one) and a CSRF token:

* ``HttpOnly`` (no script reads it), ``SameSite=Lax`` (no cross-site POST carries it), and
  ``Secure`` whenever the request came over TLS — directly, or through a trusted reverse proxy
  (``ARENA_TRUSTED_PROXIES``) that says ``X-Forwarded-Proto: https`` — or always with
  ``ARENA_WEB_SECURE_COOKIE=1``;
* signed with a secret key that survives restarts: the file ``ARENA_WEB_SECRET_KEY_FILE`` names,
  else ``web-secret-key`` beside the SQLite database (or in ``ARENA_HOME`` for PostgreSQL),
  created once with mode 0600. Several web servers behind one name must share that file.

Every POST, PUT, PATCH and DELETE must carry the session's CSRF token (form field
``csrf_token``, or the ``X-CSRF-Token`` header for scripts), except views marked
:func:`csrf_exempt`. Exempt are only the replay viewer's ``/replay/view`` and ``/replay/step``:
they render a record file the visitor posts, read no session and change nothing, so a forged
request gains an attacker nothing it could not do itself (and the browser does not let the
forging page read the answer). The match filter form is a GET.

Failed sign-ins are limited per client (:class:`SignInLimiter`: ``SIGNIN_FAILURES`` in
``SIGNIN_WINDOW_S``), counted in this process's memory.

For other features: :func:`current_user`, :func:`sign_in_required`, the template globals
``current_user()``, ``csrf_field()`` and ``csrf_token()``.
"""

from __future__ import annotations

import functools
import hmac
import ipaddress
import os
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.sessions import SecureCookieSessionInterface
from markupsafe import Markup, escape
from sqlalchemy import make_url, select

from arena import SettingError
from arena.db import database_url
from arena.db.accounts import User
from arena.sdk.auth import hash_token
from arena.server.config import TRUSTED_PROXIES_ENV, default_data_dir
from arena.server.streams import ClientAddresses
from web.db import db

bp = Blueprint("account", __name__)

SECRET_FILE_ENV = "ARENA_WEB_SECRET_KEY_FILE"
SECRET_FILE_NAME = "web-secret-key"
SECURE_COOKIE_ENV = "ARENA_WEB_SECURE_COOKIE"
#: Failed sign-ins a client may make in ``SIGNIN_WINDOW_S`` before it must wait.
SIGNIN_FAILURES = 10
SIGNIN_WINDOW_S = 600.0
#: Characters of a token the form accepts: a real one is ``arena_`` + 43.
MAX_TOKEN_CHARS = 200
_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_EXEMPT_ATTR = "_arena_csrf_exempt"

F = TypeVar("F", bound=Callable[..., Any])


# --- the session cookie ------------------------------------------------------------------------
class _Sessions(SecureCookieSessionInterface):
    """Flask's signed cookie, ``Secure`` exactly when this request came over HTTPS."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return is_https()


def trusted_proxies() -> ClientAddresses:
    """The reverse proxies whose ``X-Forwarded-*`` headers are believed (``ARENA_TRUSTED_PROXIES``,
    the same setting as the gRPC server's; default none)."""
    raw = os.environ.get(TRUSTED_PROXIES_ENV, "")
    items = [item.strip() for item in raw.split(",") if item.strip()]
    try:
        return ClientAddresses(items)
    except ValueError as exc:
        raise SettingError(f"{TRUSTED_PROXIES_ENV}={raw!r}: {exc}") from None


def _trusted() -> ClientAddresses:
    return current_app.extensions["arena_trusted_proxies"]


def _peer() -> str:
    addr = request.remote_addr or ""
    return f"ipv6:[{addr}]:0" if ":" in addr else f"ipv4:{addr}:0" if addr else "unknown"


def _from_trusted_proxy() -> bool:
    trusted = _trusted().trusted
    try:
        ip = ipaddress.ip_address((request.remote_addr or "").split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip.version == net.version and ip in net for net in trusted)


def is_https() -> bool:
    """Did this request reach us over TLS (itself, or through a trusted proxy that says so)?
    ``ARENA_WEB_SECURE_COOKIE=1`` answers yes for every request: for a site only ever reached
    through an HTTPS proxy whose address is not known in advance."""
    if request.is_secure or current_app.config.get("ARENA_WEB_SECURE_COOKIE"):
        return True
    proto = request.headers.get("X-Forwarded-Proto", "").split(",")[0].strip().lower()
    return proto == "https" and _from_trusted_proxy()


def client_key() -> str:
    """Who is signing in, for the failure limit: the peer's address (IPv6 by /64), or the
    address a trusted proxy names (same rules as the gRPC server's caps)."""
    forwarded = request.headers.getlist("X-Forwarded-For")
    return _trusted().client(_peer(), [("x-forwarded-for", v) for v in forwarded])


def secret_key_file(url: str | None) -> Path:
    """Where the session-signing key lives (see the module docstring)."""
    explicit = os.environ.get(SECRET_FILE_ENV, "").strip()
    if explicit:
        return Path(explicit).expanduser()
    parsed = make_url(database_url(url))
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        return Path(parsed.database).expanduser().resolve().parent / SECRET_FILE_NAME
    return default_data_dir() / SECRET_FILE_NAME


def load_secret_key(path: Path) -> bytes:
    """The key in ``path``; a new random one written there (mode 0600) when it is missing."""
    try:
        key = path.read_bytes().strip()
    except FileNotFoundError:
        key = b""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first: use that one
            return load_secret_key(path)
        except OSError as exc:
            raise SettingError(
                f"cannot create the web secret key file {path}: {exc.strerror}"
            ) from None
        key = secrets.token_hex(32).encode()
        with os.fdopen(fd, "wb") as out:
            out.write(key + b"\n")
    except OSError as exc:
        raise SettingError(f"cannot read the web secret key file {path}: {exc.strerror}") from None
    if len(key) < 32:
        raise SettingError(
            f"the web secret key file {path} holds {len(key)} characters; it needs at least 32"
        )
    return key


# --- failed sign-ins ---------------------------------------------------------------------------
class SignInLimiter:
    """At most ``limit`` failed sign-ins per client in any ``window`` seconds."""

    def __init__(self, limit: int = SIGNIN_FAILURES, window: float = SIGNIN_WINDOW_S) -> None:
        self.limit, self.window = limit, window
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float]:
        times = self._failures.setdefault(client, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        return times

    def wait_s(self, client: str, now: float | None = None) -> float:
        """Seconds ``client`` must wait before trying again (0: it may try now)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            times = self._recent(client, now)
            if len(times) < self.limit:
                return 0.0
            return times[0] + self.window - now

    def failed(self, client: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            self._recent(client, now).append(now)
            if len(self._failures) > 10_000:  # forget clients whose failures have all expired
                for key in [
                    k for k, v in self._failures.items() if not v or v[-1] <= now - self.window
                ]:
                    del self._failures[key]


# --- who is signed in --------------------------------------------------------------------------
@dataclass(frozen=True)
class SignedIn:
    """The signed-in user, as pages need it (no ORM object outlives the request's session)."""

    id: int
    name: str
    role: str


def _fingerprint(token_hash: str) -> str:
    return token_hash[:16]


def current_user() -> SignedIn | None:
    """The user this request's session belongs to, or None. A session whose token was rotated
    (or whose user is gone) counts as signed out."""
    if "_arena_user" in g:
        return g._arena_user
    user = None
    uid, mark = session.get("uid"), session.get("tok")
    if isinstance(uid, int) and isinstance(mark, str):
        row = db().get(User, uid)
        if row is not None and hmac.compare_digest(_fingerprint(row.token_hash), mark):
            user = SignedIn(row.id, row.name, row.role)
    g._arena_user = user
    return user


def viewer() -> tuple[str, str] | None:
    """(name, role) of the signed-in user, or None: what a page needs to decide whether its
    reader may see an author's private text (arena.intake.refusals)."""
    user = current_user()
    return None if user is None else (user.name, user.role)


def sign_in_required(view: F) -> F:
    """A view only a signed-in user may see: anyone else gets 403 and the sign-in form."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if current_user() is None:
            return _signin_page(
                next_url=request.full_path.rstrip("?"),
                notice="Sign in to see this page.",
                status=403,
            )
        return view(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


# --- the nav's account links ------------------------------------------------------------------
#: What a page rendered for everyone holds where the account links go (see shared_render).
NAV_MARK = "<!--arena-account-nav-->"


def account_nav() -> Markup:
    """The nav's "Sign in" link, or the user's name and a Sign out button (in base.html)."""
    if g.get("_arena_shared_render"):
        return Markup(NAV_MARK)
    return Markup(render_template("_account_nav.html", user=current_user()))


@contextmanager
def shared_render() -> Iterator[None]:
    """Render a page a cache hands to every visitor (the leaderboard): its account links become
    :data:`NAV_MARK`, which :func:`fill_nav` replaces per request — a cached page must never
    carry one visitor's name or CSRF token to the next."""
    g._arena_shared_render = True
    try:
        yield
    finally:
        g.pop("_arena_shared_render", None)


def fill_nav(html: str) -> str:
    """A page rendered under :func:`shared_render`, with this visitor's account links."""
    return html.replace(NAV_MARK, str(account_nav()), 1)


# --- CSRF --------------------------------------------------------------------------------------
def csrf_token() -> str:
    """This session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = session["csrf"] = secrets.token_urlsafe(32)
    return token


def csrf_field() -> Markup:
    """The hidden input every POST form carries: ``{{ csrf_field() }}`` inside the form."""
    return Markup('<input type="hidden" name="csrf_token" value="{}">').format(escape(csrf_token()))


def csrf_exempt(view: F) -> F:
    """A POST view that needs no CSRF token: it must read no session and change nothing."""
    setattr(view, _EXEMPT_ATTR, True)
    return view


def _check_csrf() -> None:
    if request.method not in _UNSAFE:
        return
    view = current_app.view_functions.get(request.endpoint or "")
    if view is None or getattr(view, _EXEMPT_ATTR, False):
        return
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token") or ""
    expected = session.get("csrf")
    if not isinstance(expected, str) or not hmac.compare_digest(sent.encode(), expected.encode()):
        abort(
            400,
            description="The form had expired or did not come from this site: "
            "reload the page and try again.",
        )


# --- the views ---------------------------------------------------------------------------------
def _safe_next(target: str | None) -> str:
    """Where to go after signing in: a path on this site only (never ``//evil``, ``/\\evil``,
    a URL, or a path with control characters, which browsers drop before reading it)."""
    target = (target or "").strip()
    if (
        not target.startswith("/")
        or target.startswith("//")
        or "\\" in target
        or len(target) > 500
        or any(ord(c) < 32 or ord(c) == 127 for c in target)
    ):
        return url_for("me.me")
    try:
        parts = urlsplit(target)
    except ValueError:
        return url_for("me.me")
    return url_for("me.me") if parts.scheme or parts.netloc else target


def _signin_page(next_url: str = "", error: str = "", notice: str = "", status: int = 200) -> Any:
    return render_template(
        "signin.html", next_url=_safe_next(next_url), error=error, notice=notice
    ), status


@bp.get("/signin")
def signin_form():  # noqa: ANN201
    if current_user() is not None:
        return redirect(_safe_next(request.args.get("next")))
    return _signin_page(request.args.get("next", ""))


@bp.post("/signin")
def signin():  # noqa: ANN201
    """Check the token; on success a fresh session (a new CSRF token too) for that user."""
    limiter: SignInLimiter = current_app.extensions["arena_signin_limiter"]
    client = client_key()
    next_url = request.form.get("next", "")
    wait = limiter.wait_s(client)
    if wait > 0:
        return _signin_page(
            next_url,
            status=429,
            error=f"Too many failed sign-ins from your address: try again in "
            f"{int(wait // 60) + 1} min.",
        )
    token = request.form.get("token", "").strip()
    if token.lower().startswith("bearer "):
        token = token[7:].strip()
    if not token:
        return _signin_page(next_url, error="Paste your API token to sign in.", status=400)
    row = None
    if len(token) <= MAX_TOKEN_CHARS:
        row = db().scalar(select(User).where(User.token_hash == hash_token(token)))
    if row is None:
        limiter.failed(client)
        return _signin_page(
            next_url,
            status=401,
            error="That API token is not valid (unknown, mistyped or replaced by "
            "a newer one): `arena register NAME` prints a new user's token.",
        )
    session.clear()
    session.permanent = True
    session["uid"], session["tok"] = row.id, _fingerprint(row.token_hash)
    session["csrf"] = secrets.token_urlsafe(32)
    g.pop("_arena_user", None)
    return redirect(_safe_next(next_url), code=303)


@bp.post("/signout")
def signout():  # noqa: ANN201
    session.clear()
    g.pop("_arena_user", None)
    return redirect(url_for("pages.home"), code=303)


def _flag(name: str) -> bool:
    raw = os.environ.get(name, "").strip().lower()
    if raw in ("", "0", "no", "off", "false"):
        return False
    if raw in ("1", "yes", "on", "true"):
        return True
    raise SettingError(f"{name}={raw!r}: use 1 (always mark the session cookie Secure) or 0")


# --- wiring ------------------------------------------------------------------------------------
def init_app(app: Flask, database: str | None = None) -> None:
    """Sessions, CSRF checks and the sign-in views on ``app`` (the private pages, which are
    built on this module, are registered by :func:`web.app.create_app`)."""
    from datetime import timedelta

    app.secret_key = load_secret_key(secret_key_file(database))
    app.session_interface = _Sessions()
    app.config.update(
        SESSION_COOKIE_NAME="arena_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=timedelta(days=14),
        ARENA_WEB_SECURE_COOKIE=_flag(SECURE_COOKIE_ENV),
    )
    app.extensions["arena_signin_limiter"] = SignInLimiter()
    app.extensions["arena_trusted_proxies"] = trusted_proxies()
    app.before_request(_check_csrf)
    app.register_blueprint(bp)
    app.jinja_env.globals.update(
        current_user=current_user,
        csrf_field=csrf_field,
        csrf_token=csrf_token,
        account_nav=account_nav,
    )

    @app.after_request
    def _private_no_store(response):  # noqa: ANN001, ANN202
        # A page built for one signed-in user must not be kept by a shared cache.
        if g.get("_arena_user") is not None or request.method in _UNSAFE:
            response.cache_control.no_store = True
            response.cache_control.private = True
            response.vary.add("Cookie")
        return response
