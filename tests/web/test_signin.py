"""Signing in with an API token and an author's private pages, through Flask's test client on a
real SQLite database: who sees which bot's logs (two accounts), the session cookie's flags,
CSRF on every form, the failed sign-in limit, tokens that were replaced, the secret key file."""

from __future__ import annotations

import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from arena import SettingError
from arena.db import dispose_all, session_scope
from arena.db.accounts import User
from arena.sdk.auth import hash_token
from tests.web.signin_seed import ALICE_QUAL_LOG, BOB_LOG, Authors, seed_authors
from web.account import SIGNIN_FAILURES, SignInLimiter, load_secret_key
from web.app import create_app

SECRETS = ("ALICE-SECRET", "BOB-SECRET", "ALICE-QUALIFICATION-LOG")


@pytest.fixture(scope="module")
def authors_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Authors, Path]]:
    folder = tmp_path_factory.mktemp("signin")
    url = f"sqlite:///{folder / 'arena.sqlite3'}"
    yield url, seed_authors(url), folder
    dispose_all()


@pytest.fixture(scope="module")
def app(authors_site) -> Flask:  # noqa: ANN001
    application = create_app(authors_site[0])
    application.config["TESTING"] = True
    return application


@pytest.fixture()
def authors(authors_site) -> Authors:  # noqa: ANN001
    return authors_site[1]


def _csrf(client: FlaskClient, path: str = "/signin") -> str:
    html = client.get(path).get_data(as_text=True)
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, html[:500]
    return found.group(1)


def sign_in(client: FlaskClient, token: str, next_url: str = "") -> object:
    return client.post(
        "/signin", data={"token": token, "csrf_token": _csrf(client), "next": next_url}
    )


def _client(app: Flask, who: str | None, authors: Authors, addr: str = "127.0.0.1") -> FlaskClient:
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = addr
    if who is not None:
        response = sign_in(client, authors.tokens[who])
        assert response.status_code == 303, response.get_data(as_text=True)[:300]
    return client


def _private_paths(authors: Authors) -> list[str]:
    a = authors.bots["alice-search"]
    return [
        "/me",
        f"/me/bots/{a}",
        f"/me/bots/{a}/matches/{authors.both_faulted}",
        f"/me/bots/{a}/matches/{authors.alice_only}",
    ]


def test_nobody_signed_in_sees_no_private_page_and_no_log(app, authors) -> None:  # noqa: ANN001
    client = _client(app, None, authors)
    for path in _private_paths(authors):
        response = client.get(path)
        body = response.get_data(as_text=True)
        assert response.status_code == 403, path
        assert "Sign in to see this page." in body and 'name="token"' in body
        assert not any(secret in body for secret in SECRETS), path
    # the public pages of the same match and bot show the fault reason, never the log
    for path in (
        f"/matches/{authors.both_faulted}",
        f"/bots/{authors.bots['alice-search']}",
        f"/api/matches/{authors.both_faulted}",
    ):
        body = client.get(path).get_data(as_text=True)
        assert not any(secret in body for secret in SECRETS), path
    assert "seat 0 crashed" in client.get(f"/matches/{authors.both_faulted}").get_data(as_text=True)


def test_alice_sees_her_bots_uploads_sprt_matches_and_her_own_log_only(app, authors) -> None:  # noqa: ANN001
    client = _client(app, "alice", authors)
    me = client.get("/me").get_data(as_text=True).replace("<wbr>", "")
    assert "alice-search" in me and "alice-greedy" in me and "bob-random" not in me
    assert "Sign out" in me and "Signed in as <strong>alice" in me

    a = authors.bots["alice-search"]
    page = client.get(f"/me/bots/{a}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "no-store" in page.headers["Cache-Control"]
    assert "the bot process exited with code 1 before StartMatch" in html  # the refused upload
    assert ALICE_QUAL_LOG in html  # its qualification crash log
    assert "ALICE-SPRT-NOTE: 20 of 200 pairs played" in html and "v2 vs v1" in html
    assert f"/me/bots/{a}/matches/{authors.both_faulted}" in html
    assert f"/me/bots/{a}/matches/{authors.alice_only}" in html

    log = client.get(f"/me/bots/{a}/matches/{authors.both_faulted}")
    text = log.get_data(as_text=True)
    assert log.status_code == 200
    assert "ALICE-SECRET-KEY=hunter2" in text and "seat 0 crashed" in text
    assert "BOB-SECRET" not in text and BOB_LOG not in text  # the opponent's log stays his
    # a match the bot played without a fault: no log, and saying why
    quiet = client.get(f"/me/bots/{a}/matches/{authors.alice_only}").get_data(as_text=True)
    assert "only when it faults" in quiet


def test_bob_cannot_see_alices_pages_or_logs(app, authors) -> None:  # noqa: ANN001
    client = _client(app, "bob", authors)
    a, b = authors.bots["alice-search"], authors.bots["bob-random"]
    for path in _private_paths(authors)[1:]:
        response = client.get(path)
        assert response.status_code == 403, path
        assert not any(s in response.get_data(as_text=True) for s in SECRETS)
    assert "not yours" in client.get(f"/me/bots/{a}").get_data(as_text=True)
    # his own bot in the shared match: his log, not hers
    own = client.get(f"/me/bots/{b}/matches/{authors.both_faulted}").get_data(as_text=True)
    assert BOB_LOG in own and "ALICE-SECRET" not in own
    # a match his bot did not play, and things that do not exist: 404
    assert client.get(f"/me/bots/{b}/matches/{authors.alice_only}").status_code == 404
    assert client.get("/me/bots/999999").status_code == 404
    assert client.get(f"/me/bots/{b}/matches/nosuchmatch").status_code == 404
    me = client.get("/me").get_data(as_text=True).replace("<wbr>", "")
    assert "bob-random" in me and "alice-search" not in me


def test_wrong_token_is_one_clear_line_and_failures_are_limited(app, authors) -> None:  # noqa: ANN001
    client = _client(app, None, authors, addr="10.9.9.9")
    response = sign_in(client, "arena_not-a-real-token")
    body = response.get_data(as_text=True)
    assert response.status_code == 401
    assert "That API token is not valid (unknown, mistyped or replaced by a newer one)" in body
    assert "Sign out" not in body
    assert sign_in(client, "   ").status_code == 400
    for _ in range(SIGNIN_FAILURES - 1):
        assert sign_in(client, "arena_wrong").status_code == 401
    blocked = sign_in(client, authors.tokens["alice"])  # even the right token must wait now
    assert blocked.status_code == 429
    assert "Too many failed sign-ins from your address" in blocked.get_data(as_text=True)
    # another address is not held back by this one's failures
    assert (
        sign_in(_client(app, None, authors, addr="10.9.9.10"), authors.tokens["alice"]).status_code
        == 303
    )


def test_limiter_forgets_failures_after_its_window() -> None:
    limiter = SignInLimiter(limit=2, window=60)
    limiter.failed("addr:a", now=0)
    limiter.failed("addr:a", now=10)
    assert limiter.wait_s("addr:a", now=20) == pytest.approx(40)
    assert limiter.wait_s("addr:b", now=20) == 0
    assert limiter.wait_s("addr:a", now=61) == 0


def test_session_cookie_flags_http_and_https(app, authors) -> None:  # noqa: ANN001
    client = _client(app, None, authors)
    response = sign_in(client, authors.tokens["alice"])
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    secure = app.test_client()
    secure.environ_base["REMOTE_ADDR"] = "127.0.0.2"
    html = secure.get("/signin", base_url="https://arena.example").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    response = secure.post(
        "/signin",
        base_url="https://arena.example",
        data={"token": authors.tokens["alice"], "csrf_token": csrf},
    )
    assert response.status_code == 303
    cookie = response.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    # a plain-HTTP client that merely claims HTTPS is not believed (no trusted proxy is set)
    claim = app.test_client()
    response = claim.get("/signin", headers={"X-Forwarded-Proto": "https"})
    assert "Secure" not in response.headers["Set-Cookie"]


def test_a_trusted_proxy_saying_https_makes_the_cookie_secure(authors_site, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("ARENA_TRUSTED_PROXIES", "127.0.0.1")
    proxied = create_app(authors_site[0]).test_client()
    proxied.environ_base["REMOTE_ADDR"] = "127.0.0.1"
    response = proxied.get("/signin", headers={"X-Forwarded-Proto": "https"})
    assert "Secure" in response.headers["Set-Cookie"]
    other = create_app(authors_site[0]).test_client()
    other.environ_base["REMOTE_ADDR"] = "10.1.2.3"
    response = other.get("/signin", headers={"X-Forwarded-Proto": "https"})
    assert "Secure" not in response.headers["Set-Cookie"]


def test_secure_cookie_can_be_forced_and_bad_settings_are_one_line(
    authors_site, monkeypatch
) -> None:  # noqa: ANN001
    monkeypatch.setenv("ARENA_WEB_SECURE_COOKIE", "1")
    assert (
        "Secure" in create_app(authors_site[0]).test_client().get("/signin").headers["Set-Cookie"]
    )
    monkeypatch.setenv("ARENA_TRUSTED_PROXIES", "10.0.0.0/8,proxy.example")
    with pytest.raises(SettingError, match="ARENA_TRUSTED_PROXIES='10.0.0.0/8,proxy.example'"):
        create_app(authors_site[0])
    monkeypatch.setenv("ARENA_TRUSTED_PROXIES", "")
    monkeypatch.setenv("ARENA_WEB_SECURE_COOKIE", "maybe")
    with pytest.raises(SettingError, match="ARENA_WEB_SECURE_COOKIE='maybe': use 1"):
        create_app(authors_site[0])


def test_every_form_needs_the_csrf_token(app, authors) -> None:  # noqa: ANN001
    client = _client(app, None, authors)
    client.get("/signin")
    forged = client.post("/signin", data={"token": authors.tokens["alice"]})
    assert forged.status_code == 400
    assert "did not come from this site" in forged.get_data(as_text=True)
    wrong = client.post("/signin", data={"token": authors.tokens["alice"], "csrf_token": "x" * 43})
    assert wrong.status_code == 400
    assert client.get("/me").status_code == 403  # still signed out

    alice = _client(app, "alice", authors)
    assert alice.post("/signout").status_code == 400  # a forged sign-out does nothing
    assert alice.get("/me").status_code == 200
    token = _csrf(alice, "/me")  # the nav's sign-out form carries it
    assert alice.post("/signout", data={"csrf_token": token}).status_code == 303
    assert alice.get("/me").status_code == 403
    # the replay viewer's posts are exempt by design (stateless, public): a bad record is a 400
    # about the record, not about CSRF
    answer = app.test_client().post("/replay/view", data=b"{}", content_type="application/json")
    assert "did not come from this site" not in answer.get_data(as_text=True)


def test_a_new_session_gets_a_new_csrf_token_on_sign_in(app, authors) -> None:  # noqa: ANN001
    client = _client(app, None, authors)
    before = _csrf(client)
    assert sign_in(client, authors.tokens["alice"]).status_code == 303
    assert _csrf(client, "/me") != before  # a token an attacker planted before sign-in is useless


def test_a_replaced_token_ends_the_session(authors_site, app) -> None:  # noqa: ANN001
    url, authors, _ = authors_site
    from arena.server.accounts import register_user

    _user, token = register_user("carol", url)
    client = app.test_client()
    assert sign_in(client, token).status_code == 303
    assert client.get("/me").status_code == 200
    with session_scope(url) as s:
        s.query(User).filter(User.name == "carol").one().token_hash = hash_token("arena_newer")
    assert client.get("/me").status_code == 403
    assert sign_in(app.test_client(), token).status_code == 401


def test_next_goes_only_to_this_site(app, authors) -> None:  # noqa: ANN001
    a = authors.bots["alice-search"]
    for target, expected in (
        (f"/me/bots/{a}", f"/me/bots/{a}"),
        ("//evil.example/x", "/me"),
        ("https://evil.example/", "/me"),
        ("/\t/evil.example", "/me"),
        ("//[bad", "/me"),
        ("/\\evil.example", "/me"),
    ):
        client = _client(app, None, authors)
        response = sign_in(client, authors.tokens["alice"], target)
        assert response.status_code == 303
        assert response.headers["Location"] == expected, target


def test_cached_leaderboard_never_carries_a_visitors_nav(app, authors) -> None:  # noqa: ANN001
    alice = _client(app, "alice", authors)
    mine = alice.get("/games/toy").get_data(as_text=True)  # renders the cached page
    assert "Sign out" in mine and 'href="/me"' in mine
    anonymous = app.test_client().get("/games/toy").get_data(as_text=True)
    assert "Sign out" not in anonymous and 'name="csrf_token"' not in anonymous
    assert 'href="/signin"' in anonymous
    bob = _client(app, "bob", authors).get("/games/toy").get_data(as_text=True)
    assert bob.count('name="csrf_token"') == 1 and ">bob<" in bob.replace("<wbr>", "")


def test_secret_key_persists_and_is_private(authors_site, authors) -> None:  # noqa: ANN001
    url, _, folder = authors_site
    key_file = folder / "web-secret-key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    first = create_app(url)
    client = first.test_client()
    assert sign_in(client, authors.tokens["alice"]).status_code == 303
    cookie = client.get_cookie("arena_session")
    assert cookie is not None
    restarted = create_app(url).test_client()  # a restart reads the same key
    restarted.set_cookie("arena_session", cookie.value)
    assert restarted.get("/me").status_code == 200
    short = folder / "short-key"
    short.write_text("too short\n")
    with pytest.raises(SettingError, match="needs at least 32"):
        load_secret_key(short)
    made = folder / "sub" / "key"
    assert load_secret_key(made) == load_secret_key(made)
    assert stat.S_IMODE(made.stat().st_mode) == 0o600


def test_a_match_still_running_has_no_log_yet(authors_site, app) -> None:  # noqa: ANN001
    from arena.db import BotVersion
    from arena.records.recording import create_match

    url, authors, _ = authors_site
    with session_scope(url) as s:
        vids = [
            s.query(BotVersion.id).filter(BotVersion.bot_id == authors.bots[n]).first()[0]
            for n in ("alice-greedy", "bob-random")
        ]
        match_id = create_match(s, "toy", "base", vids, seed=7, kind="ladder", sandbox=False).id
    client = _client(app, "alice", authors)
    page = client.get(f"/me/bots/{authors.bots['alice-greedy']}/matches/{match_id}")
    assert page.status_code == 200
    assert "No fault: your bot played its seat to the end so far." in page.get_data(as_text=True)
    assert client.get(f"/me/bots/{authors.bots['alice-greedy']}").status_code == 200
