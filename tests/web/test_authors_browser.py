"""Issue #35's pages in a real Chromium over real HTTP: carol, an organiser, signs in through the
form and reads the collusion report (the planted pair flagged; it fits a phone); the public reads
a refused upload's qualification match with the reason word only, its author the text; on
``/play`` a refused move's message is the server's own (through the signed session) and a
``?error=`` in the address shows nothing. Screenshots at 1280 and 390 px go to docs/screenshots
(``ARENA_UPDATE_SCREENSHOTS=1``; see tests/web/test_browser.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.db import dispose_all
from tests.web.authors_seed import QUALIFICATION_ID, Site, seed
from tests.web.conftest import serving
from tests.web.test_browser import _save_screenshot
from tests.web.test_play_browser import _start, default_setup  # noqa: F401 - the fixture
from tests.web.test_signin_browser import _sign_in
from web.app import create_app

pytestmark = pytest.mark.browser

#: Sends the seat's option form with a decision that is not waiting (a stale click), as a plain
#: form post: the server refuses it and says why.
STALE_CLICK = """() => {
    const form = document.querySelector('#your-turn form.options');
    form.querySelector('[name=decision]').value = '999999';
    const button = form.querySelector('button[name=option]');
    const option = document.createElement('input');
    option.type = 'hidden'; option.name = 'option'; option.value = button.value;
    form.appendChild(option);
    HTMLFormElement.prototype.submit.call(form);
}"""


@pytest.fixture(scope="module")
def authors_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Site]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('authors-browser') / 'arena.sqlite3'}"
    yield url, seed(url)
    dispose_all()


@pytest.fixture(scope="module")
def server(authors_site) -> Iterator[str]:  # noqa: ANN001
    with serving(create_app(authors_site[0])) as url:
        yield url


def _fits(page) -> bool:  # noqa: ANN001
    return page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def test_the_organiser_reads_the_collusion_report(browser, server, authors_site, tmp_path: Path) -> None:  # noqa: ANN001
    site = authors_site[1]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        _sign_in(page, server, site.organiser_token)
        page.get_by_role("link", name="the collusion report").click()
        page.wait_for_url(f"{server}/organiser/collusion")
        page.select_option("#c-game", "toy")
        page.get_by_role("button", name="Show").click()
        page.wait_for_url("**/organiser/collusion?game=toy*")
        flagged = page.locator("#collusion-pairs tbody tr.flagged")
        assert flagged.count() == 1
        row = flagged.inner_text()
        assert "mallory" in row and "trent" in row and "flagged" in row
        assert page.locator("#collusion-pairs tbody tr").count() == 28  # every pair of eight authors
        _save_screenshot(page, "organiser-collusion.png", tmp_path)
        page.set_viewport_size({"width": 390, "height": 844})
        page.reload()
        assert _fits(page)
        assert flagged.locator("td").first.is_visible()
        _save_screenshot(page, "organiser-collusion-phone.png", tmp_path)
        assert not errors
    finally:
        context.close()


def test_a_refused_uploads_text_is_its_authors_only(browser, server, authors_site, tmp_path: Path) -> None:  # noqa: ANN001
    site = authors_site[1]
    public = browser.new_context(viewport={"width": 1280, "height": 900})
    page = public.new_page()
    try:
        page.goto(f"{server}/matches/{QUALIFICATION_ID}")
        seat = page.locator("table tbody tr").first
        assert "illegal_option" in seat.inner_text()
        assert "ALICE-REFUSAL-TEXT" not in page.content()
        _save_screenshot(page, "qualification-public.png", tmp_path)
        page.set_viewport_size({"width": 390, "height": 844})
        page.reload()
        assert _fits(page)
        _save_screenshot(page, "qualification-public-phone.png", tmp_path)
    finally:
        public.close()
    author = browser.new_context(viewport={"width": 1280, "height": 900})
    page = author.new_page()
    try:
        _sign_in(page, server, site.authors.tokens["alice"])
        page.goto(f"{server}/matches/{QUALIFICATION_ID}")
        assert "ALICE-REFUSAL-TEXT" in page.locator("table tbody tr").first.inner_text()
        _save_screenshot(page, "qualification-author.png", tmp_path)
    finally:
        author.close()


def test_play_shows_the_servers_message_never_the_query_strings(browser, default_setup: str, tmp_path: Path) -> None:  # noqa: ANN001, F811
    site = default_setup
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        match_id = _start(page, site, "solenia")
        # a click on a decision that is no longer waiting: the server refuses it in its own words
        for width, shot in ((1280, "play-refused-move.png"), (390, "play-refused-move-phone.png")):
            page.set_viewport_size({"width": width, "height": 900 if width > 400 else 844})
            page.wait_for_selector("#your-turn", timeout=60000)
            # the page is at /play/<id> before the post too (the second time round), so wait for
            # the post's own navigation, not for the address: reading the old page while the new
            # one loads lost the page under the check ("Execution context was destroyed")
            with page.expect_navigation(url=f"{site}/play/{match_id}"):
                page.evaluate(STALE_CLICK)
            assert "error=" not in page.url
            alert = page.locator(".error-box[role=alert]").first
            assert "no longer waiting" in alert.inner_text()
            assert _fits(page)
            _save_screenshot(page, shot, tmp_path)
        page.goto(f"{site}/play/{match_id}")  # the message was shown once: gone now
        assert page.locator(".error-box[role=alert]", has_text="no longer waiting").count() == 0
        page.goto(f"{site}/play/{match_id}?error=EVIL-TEXT%3A+your+session+expired%2C+paste+your+token")
        assert "EVIL-TEXT" not in page.content()
        assert _fits(page)
    finally:
        context.close()
