"""Every page the site links to, in a real Chromium at 390 px (issue #37, item 7): each link
answers (no 4xx/5xx, the signed-in author's ``/me`` pages and her refused bot's qualification
match included), and no page scrolls sideways — neither the page nor any table in it (a
``.table-wrap`` scrolls inside itself: at 390 px its table must fit anyway).

The crawl starts at ``/`` and ``/me`` (signed in as alice of :func:`seed_authors`) and visits one
page per route shape (ids replaced by ``#``), so it grows with the site rather than a list."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select

from arena.competition import tournaments
from arena.db import Match, dispose_all, session_scope
from arena.records import recording
from tests.web.conftest import serving
from tests.web.seed import add_bot
from tests.web.signin_seed import Authors, seed_authors
from tests.web.test_signin_browser import _sign_in
from web.app import create_app

pytestmark = pytest.mark.browser
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

#: At most this many pages (one per route shape): the site has about thirty.
MAX_PAGES = 60
#: Links not to follow: they act (sign out) or are files, not pages.
SKIP = re.compile(r"^/(signout|static/|api/|matches/[^/]+/record)")


@pytest.fixture(scope="module")
def authors_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Authors]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('every-page') / 'arena.sqlite3'}"
    authors = seed_authors(url)
    with session_scope(url) as s:  # a Swiss tournament with long names: its tables are the widest
        vids = [add_bot(s, f"{name}_with_a_long_name", owner=f"{name}-keeper").id
                for name in ("ant", "bee", "cricket", "dragonfly", "earwig")]
        t = tournaments.create_tournament(s, "toy", vids, 2, rounds=3, seed=1, format="swiss",
                                          name="Insect Swiss", sandbox=False)
        t.status = "running"
        tid = t.id
        tournaments.create_tournament(s, "toy", vids[:3], 2, rounds=1, seed=2, name="Insect Cup",
                                      sandbox=False)
    with session_scope(url) as s:
        first = [m.id for m in s.scalars(select(Match).where(Match.tournament_id == tid))]
    for mid in first:
        with session_scope(url) as s:
            recording.record_result(s, mid, {"result": {"ranks": [1, 2], "scores": [2, 1]}, "forfeits": []})
    yield url, authors
    dispose_all()


@pytest.fixture(scope="module")
def server(authors_site) -> Iterator[str]:  # noqa: ANN001
    with serving(create_app(authors_site[0])) as url:
        yield url


def _shape(path: str) -> str:
    """A route's shape: numbers and match ids become ``#`` (one visit per shape)."""
    return re.sub(r"/(\d+|[0-9a-f]{8,})(?=/|$)", "/#", path)


#: The widths over the page's own: the document's, and each table wrapper's that overflows.
OVERFLOW_JS = """() => {
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth + 1) out.push('page ' + doc.scrollWidth);
  document.querySelectorAll('.table-wrap').forEach((w) => {
    if (w.scrollWidth > w.clientWidth + 1) {
      const t = w.querySelector('table');
      out.push('table ' + (t && (t.id || (t.caption && t.caption.textContent.slice(0, 40))) || '?')
               + ' ' + w.scrollWidth + '>' + w.clientWidth + ' cells: '
               + [...w.querySelectorAll('tr:last-child > *')].map(
                   (c) => (c.getBoundingClientRect().width | 0) + ' ' + c.textContent.trim().slice(0, 20)).join(' | '));
    }
  });
  return out;
}"""


def test_every_linked_page_answers_and_fits_a_phone(browser, server, authors_site) -> None:  # noqa: ANN001
    _url, authors = authors_site
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    try:
        _sign_in(page, server, authors.tokens["alice"])
        todo, shapes, problems, visited = ["/", "/me"], set(), [], 0
        while todo and visited < MAX_PAGES:
            path = todo.pop(0)
            if _shape(path) in shapes:
                continue
            shapes.add(_shape(path))
            response = page.goto(server + path)
            visited += 1
            if response is None or response.status >= 400:
                problems.append(f"{path}: {response.status if response else 'no answer'}")
                continue
            problems += [f"{path}: {o}" for o in page.evaluate(OVERFLOW_JS)]
            links = page.eval_on_selector_all(
                "a[href]", "as => as.map(a => [a.href, a.hasAttribute('download')])")
            for href, download in links:
                parts = urlsplit(href)
                if parts.netloc != urlsplit(server).netloc or SKIP.match(parts.path):
                    continue
                if download:  # a file (a tournament's CSV or JSON): it answers, it is no page
                    if _shape(parts.path) not in shapes:
                        shapes.add(_shape(parts.path))
                        answer = page.request.get(href)
                        if answer.status >= 400:
                            problems.append(f"{parts.path}: {answer.status}")
                    continue
                todo.append(parts.path + (f"?{parts.query}" if parts.query.startswith("game=") else ""))
        assert visited >= 15, shapes  # the crawl did reach the site
        assert {"/me", "/me/bots/#", "/matches/#", "/tournaments/#"} <= shapes
        assert not problems, "\n".join(problems)
    finally:
        context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_tournament_pages_screenshots(browser, server, width: int, tmp_path) -> None:  # noqa: ANN001
    """The tournament list (each format named) at both widths: docs/screenshots when asked
    (``ARENA_UPDATE_SCREENSHOTS=1``), else a scratch folder; and it fits."""
    context = browser.new_context(viewport={"width": width, "height": 900}, is_mobile=width < 500)
    page = context.new_page()
    try:
        page.goto(f"{server}/tournaments")
        assert page.locator("[data-format=swiss]").first.inner_text() == "Swiss"
        assert page.locator("[data-format=round_robin]").first.inner_text() == "Round-robin"
        assert page.evaluate(OVERFLOW_JS) == []
        shots = SHOTS if os.environ.get("ARENA_UPDATE_SCREENSHOTS") == "1" else tmp_path
        page.screenshot(path=str(shots / f"tournaments{'-phone' if width < 500 else ''}.png"), full_page=True)
    finally:
        context.close()
