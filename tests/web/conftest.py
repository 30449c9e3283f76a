"""Fixtures for the website tests: a seeded SQLite database, the Flask app, a live server and a
real Chromium (Debian's ``/usr/bin/chromium`` driven by Playwright; never a downloaded browser).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from werkzeug.serving import make_server

from arena.db import dispose_all
from tests.web.seed import Seeded, seed_site
from web.app import create_app

CHROMIUM = Path(os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Seeded]]:
    """A database with four toy bots, a tournament and six real toy matches."""
    path = tmp_path_factory.mktemp("web") / "arena.sqlite3"
    url = f"sqlite:///{path}"
    seeded = seed_site(url)
    yield url, seeded
    dispose_all()


@pytest.fixture(scope="module")
def app(site: tuple[str, Seeded]) -> Flask:
    application = create_app(site[0])
    application.config["TESTING"] = True
    return application


@pytest.fixture(scope="module")
def seeded(site: tuple[str, Seeded]) -> Seeded:
    return site[1]


@pytest.fixture()
def client(app: Flask):  # noqa: ANN201
    return app.test_client()


@contextlib.contextmanager
def serving(app: Flask) -> Iterator[str]:
    """``app`` on a real socket in a thread; yields its base URL (modules with a site of their
    own serve it through this too)."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def live_server(app: Flask) -> Iterator[str]:
    """The app on a real socket in a thread; yields its base URL."""
    with serving(app) as url:
        yield url


@pytest.fixture(scope="module")
def browser():  # noqa: ANN201
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture()
def page(browser):  # noqa: ANN001, ANN201
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("dialog", lambda d: (errors.append(f"dialog opened: {d.message}"), d.dismiss()))
    pg.js_errors = errors  # type: ignore[attr-defined]
    yield pg
    context.close()


@pytest.fixture(autouse=True)
def _replay_buckets_refilled() -> None:
    """Each test starts with full per-client replay buckets (web.request_limits): the tests post
    far more replays from 127.0.0.1 than one visitor would, and a bucket must not carry over."""
    from web.request_limits import REPLAYS

    REPLAYS.forget_clients()
