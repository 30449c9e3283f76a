"""Signing in, in a real Chromium over real HTTP: alice signs in with her token through the form,
finds her bot's crash log from her bot's page; bob, in another browser context, is refused it.
The private pages must not scroll sideways at 390 px. Screenshots of "my bot's page signed in"
at 1280 and 390 px go to docs/screenshots (see tests/web/test_browser.py for when they are
rewritten)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from werkzeug.serving import make_server

from arena.db import dispose_all
from tests.web.signin_seed import Authors, seed_authors
from tests.web.test_browser import _save_screenshot
from web.app import create_app

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def authors_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Authors]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('signin-browser') / 'arena.sqlite3'}"
    yield url, seed_authors(url)
    dispose_all()


@pytest.fixture(scope="module")
def app(authors_site) -> Flask:  # noqa: ANN001
    return create_app(authors_site[0])


@pytest.fixture(scope="module")
def server(app: Flask) -> Iterator[str]:
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}"
    finally:
        srv.shutdown()
        thread.join(timeout=5)


def _sign_in(page, server: str, token: str) -> None:  # noqa: ANN001
    page.goto(f"{server}/")
    page.get_by_role("link", name="Sign in").click()
    page.get_by_label("API token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{server}/me")


def _no_sideways_scroll(page) -> int:  # noqa: ANN001
    return page.evaluate("document.documentElement.scrollWidth")


def test_alice_reads_her_log_bob_cannot(browser, server, authors_site, tmp_path: Path) -> None:  # noqa: ANN001
    _url, authors = authors_site
    bot = authors.bots["alice-search"]
    alice_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = alice_ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        # a wrong token: one clear line, still signed out
        page.goto(f"{server}/signin")
        page.get_by_label("API token").fill("arena_wrong")
        page.get_by_role("button", name="Sign in").click()
        assert "That API token is not valid" in page.get_by_role("alert").inner_text()

        _sign_in(page, server, authors.tokens["alice"])
        nav = page.locator(".site-nav li.account")
        assert nav.get_by_role("link", name="alice").is_visible()
        assert nav.get_by_role("button", name="Sign out").is_visible()
        cookie = next(c for c in alice_ctx.cookies() if c["name"] == "arena_session")
        # plain HTTP: not Secure
        assert cookie["httpOnly"] and cookie["sameSite"] == "Lax" and not cookie["secure"]

        page.get_by_role("link", name="alice-search").click()
        page.wait_for_url(f"{server}/me/bots/{bot}")
        assert page.locator("#upload-3 .badge.forfeit", has_text="crash").is_visible()
        assert "ALICE-SPRT-NOTE" in page.locator("#sprt-table").inner_text()
        _save_screenshot(page, "my-bot.png", tmp_path)
        row = page.locator(
            "#my-matches tbody tr", has=page.locator(f"a[href='/matches/{authors.both_faulted}']")
        )
        row.get_by_role("link", name="your log").click()
        page.wait_for_url(f"**/me/bots/{bot}/matches/{authors.both_faulted}")
        log = page.locator("pre.log").inner_text()
        assert "ALICE-SECRET-KEY=hunter2" in log and "BOB-SECRET" not in page.content()

        # the phone width: every private page fits, the bot's page is screenshotted
        page.set_viewport_size({"width": 390, "height": 844})
        for path in (
            "/me",
            f"/me/bots/{bot}",
            f"/me/bots/{bot}/matches/{authors.both_faulted}",
            f"/me/bots/{bot}/matches/{authors.alice_only}",
            "/games/toy",
        ):
            page.goto(server + path)
            assert _no_sideways_scroll(page) <= 390, path
        page.goto(f"{server}/me/bots/{bot}")
        _save_screenshot(page, "my-bot-phone.png", tmp_path)

        # bob, in his own browser, gets neither her page nor her log
        bob_ctx = browser.new_context(viewport={"width": 390, "height": 844})
        bob = bob_ctx.new_page()
        try:
            _sign_in(bob, server, authors.tokens["bob"])
            for path in (f"/me/bots/{bot}", f"/me/bots/{bot}/matches/{authors.both_faulted}"):
                response = bob.goto(server + path)
                assert response is not None and response.status == 403, path
                assert "ALICE-SECRET" not in bob.content()
            bob.goto(f"{server}/signin")  # signed in already: on to his page
            bob.wait_for_url(f"{server}/me")
            assert _no_sideways_scroll(bob) <= 390
        finally:
            bob_ctx.close()

        # signing out: back to the public site, the private pages ask for a sign-in again
        page.goto(f"{server}/me")
        page.locator(".site-nav").get_by_role("button", name="Sign out").click()
        page.wait_for_url(f"{server}/")
        assert page.locator(".site-nav").get_by_role("link", name="Sign in").is_visible()
        response = page.goto(f"{server}/me/bots/{bot}/matches/{authors.both_faulted}")
        assert response is not None and response.status == 403
        assert "ALICE-SECRET" not in page.content()
        page.goto(f"{server}/signin")
        assert _no_sideways_scroll(page) <= 390
        # signing in from there comes back to the page asked for
        response = page.goto(f"{server}/me/bots/{bot}")
        page.get_by_label("API token").fill(authors.tokens["alice"])
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{server}/me/bots/{bot}")
        assert errors == []
    finally:
        alice_ctx.close()
