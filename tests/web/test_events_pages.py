"""The organisers' event pages (web/events.py) over HTTP: olga, an organiser, creates an event, runs
it (entries, start, pause, resume, withdrawal, deadline) and every step lands in its audit log;
otto, another organiser, and alice, a plain author, are refused on the server (403) however they
post, and the event is unchanged; alice enters and withdraws only her own bot. The browser half
walks the same pages in Chromium at 1280 and 390 px (no sideways scroll) and saves screenshots."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from arena.db import Match, Tournament, TournamentAudit, dispose_all, session_scope
from arena.db.accounts import ROLE_ORGANISER
from arena.play import events
from arena.records import recording
from arena.server.accounts import register_user, set_role
from tests.web.conftest import serving
from tests.web.seed import add_bot
from tests.web.test_browser import _save_screenshot
from web.app import create_app


@dataclass
class Site:
    url: str
    tokens: dict[str, str] = field(default_factory=dict)
    bots: dict[str, int] = field(default_factory=dict)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    url = f"sqlite:///{tmp_path_factory.mktemp('events') / 'arena.sqlite3'}"
    out = Site(url)
    for name in ("olga", "otto", "alice", "bob", "carl"):
        out.tokens[name] = register_user(name, url)[1]
    set_role("olga", ROLE_ORGANISER, url)
    set_role("otto", ROLE_ORGANISER, url)
    with session_scope(url) as s:
        for owner in ("alice", "bob", "carl"):
            out.bots[owner] = add_bot(s, f"{owner}-bot", owner=owner).bot_id
    yield out
    dispose_all()


@pytest.fixture(scope="module")
def app(site: Site) -> Flask:
    application = create_app(site.url)
    application.config["TESTING"] = True
    return application


def _csrf(client: FlaskClient, path: str = "/signin") -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', client.get(path).get_data(as_text=True))
    assert found
    return found.group(1)


def _client(app: Flask, site: Site, who: str | None) -> FlaskClient:
    client = app.test_client()
    if who is not None:
        reply = client.post("/signin", data={"token": site.tokens[who], "csrf_token": _csrf(client), "next": ""})
        assert reply.status_code == 303
    return client


def _post(client: FlaskClient, path: str, **data: str):  # noqa: ANN202
    return client.post(path, data={"csrf_token": _csrf(client, "/me"), **data})


def _event(site: Site, tid: int) -> tuple[str, bool, int]:
    with session_scope(site.url) as s:
        t = s.get(Tournament, tid)
        return t.status, bool(t.entries_open), len(t.entries)


def _audit(site: Site, tid: int) -> list[tuple[str, str]]:
    with session_scope(site.url) as s:
        return [(a.actor, a.action) for a in s.query(TournamentAudit).filter_by(tournament_id=tid).order_by(
            TournamentAudit.id)]


def test_organiser_runs_an_event_and_nobody_else_can(app: Flask, site: Site) -> None:
    nobody, alice, otto, olga = (_client(app, site, w) for w in (None, "alice", "otto", "olga"))
    assert nobody.get("/organiser/events").status_code == 403  # the sign-in form
    assert alice.get("/organiser/events").status_code == 403
    form = {"name": "Winter cup", "game": "toy", "format": "swiss", "players": "2", "rounds": "2"}
    assert _post(alice, "/organiser/events", **form).status_code == 403
    refused = _post(olga, "/organiser/events", **{**form, "rounds": "0"})
    assert refused.status_code == 409 and "Rounds is a whole number from 1" in refused.get_data(as_text=True)
    made = _post(olga, "/organiser/events", **form)
    assert made.status_code == 303
    tid = int(re.search(r"/organiser/events/(\d+)", made.headers["Location"]).group(1))
    assert "Event created." in olga.get(made.headers["Location"]).get_data(as_text=True)
    assert olga.get("/organiser/events").get_data(as_text=True).count("Winter cup") == 1
    # otto is an organiser too, but not this event's: every page and step is refused
    assert otto.get(f"/organiser/events/{tid}").status_code == 403
    for action in ("start", "pause", "resume", "close", "deadline", "enter", "withdraw", "correct"):
        reply = _post(otto, f"/organiser/events/{tid}/{action}", bot=str(site.bots["alice"]), reason="x",
                      deadline="5", ranks="1,2", match="x")
        assert reply.status_code == 403, (action, reply.status_code)
        assert _post(alice, f"/organiser/events/{tid}/{action}").status_code == 403
    assert _event(site, tid) == ("open", True, 0)
    # authors enter their own bots from the public page; nobody enters another's
    page = alice.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert 'id="my-entry"' in page and "Enter your bot" in page
    assert _post(alice, f"/tournaments/{tid}/enter", bot=str(site.bots["bob"])).status_code == 403
    assert _post(alice, f"/tournaments/{tid}/enter", bot=str(site.bots["alice"])).status_code == 303
    assert _post(alice, f"/tournaments/{tid}/enter", bot=str(site.bots["alice"])).status_code == 409
    # the organiser enters any bot by OWNER/NAME, sets a deadline and starts
    assert _post(olga, f"/organiser/events/{tid}/enter", bot="bob/bob-bot").status_code == 303
    assert _post(olga, f"/organiser/events/{tid}/enter", bot="carl/carl-bot").status_code == 303
    assert _post(olga, f"/organiser/events/{tid}/deadline", deadline="900").status_code == 303
    assert _post(olga, f"/organiser/events/{tid}/start").status_code == 303
    assert _event(site, tid) == ("scheduled", False, 3)  # the website plays nothing: arena serve starts it
    assert _post(olga, f"/organiser/events/{tid}/pause", reason="lunch").status_code == 303
    assert _event(site, tid)[0] == "paused"
    assert _post(olga, f"/organiser/events/{tid}/resume").status_code == 303
    # a withdrawal needs a reason; the author may withdraw their own bot
    no_reason = _post(olga, f"/organiser/events/{tid}/withdraw", bot=str(site.bots["carl"]))
    assert no_reason.status_code == 409 and "say why" in no_reason.get_data(as_text=True)
    assert _post(alice, f"/tournaments/{tid}/withdraw", bot=str(site.bots["bob"]), reason="x").status_code == 403
    assert _post(alice, f"/tournaments/{tid}/withdraw", bot=str(site.bots["alice"]),
                 reason="my bot is broken").status_code == 303
    shown = olga.get(f"/organiser/events/{tid}").get_data(as_text=True)
    assert "by alice: my bot is broken" in shown and "lunch" in shown
    assert _audit(site, tid) == [
        ("olga", "create"), ("alice", "enter"), ("olga", "enter"), ("olga", "enter"), ("olga", "deadline"),
        ("olga", "start"), ("olga", "pause"), ("olga", "resume"), ("alice", "withdraw"), ("system", "forfeit")]
    public = nobody.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert 'id="withdrawn"' in public and "900 s a match" in public
    # a result (played, or alice's forfeit), then corrected by the organiser (not by otto), with a reason
    with session_scope(site.url) as s:
        mid, status = s.execute(select(Match.id, Match.status).where(Match.tournament_id == tid)).one()
    if status == "pending":
        with session_scope(site.url) as s:
            recording.record_result(s, mid, {"result": {"ranks": [1, 2], "scores": [1, 0]}, "forfeits": []})
    assert re.search(r"R1 T1: \S+-bot v1 #[12] – \S+-bot v1 #[12]", olga.get(f"/organiser/events/{tid}").get_data(as_text=True))
    assert _post(otto, f"/organiser/events/{tid}/correct", match=mid, ranks="2,1", reason="x").status_code == 403
    bad = _post(olga, f"/organiser/events/{tid}/correct", match=mid, ranks="two", reason="x")
    assert bad.status_code == 409 and "e.g. 2,1" in bad.get_data(as_text=True)
    assert _post(olga, f"/organiser/events/{tid}/correct", match=mid, ranks="2,1",
                 reason="illegal move missed").status_code == 303
    with session_scope(site.url) as s:
        assert [x.rank for x in sorted(s.get(Match, mid).seats, key=lambda x: x.seat)] == [2, 1]
    assert _audit(site, tid)[-1] == ("olga", "correct")
    assert "illegal move missed" in olga.get(f"/organiser/events/{tid}").get_data(as_text=True)


@pytest.mark.browser
def test_event_pages_in_a_browser(browser, app: Flask, site: Site, tmp_path: Path) -> None:  # noqa: ANN001
    with serving(app) as base:
        for width, suffix in ((1280, ""), (390, "-phone")):
            context = browser.new_context(viewport={"width": width, "height": 900})
            page = context.new_page()
            page.goto(f"{base}/signin")
            page.get_by_label("API token").fill(site.tokens["olga"])
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url(f"{base}/me")
            page.get_by_role("link", name="your events").click()
            page.wait_for_url(f"{base}/organiser/events")
            page.get_by_label("Name").fill(f"Browser cup {width}")
            page.get_by_label("Game").select_option("toy")
            page.get_by_label("Rounds").fill("3")
            page.get_by_label("Round deadline (s)").fill("600")
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            _save_screenshot(page, f"organiser-events{suffix}.png", tmp_path)
            page.get_by_role("button", name="Create and open entries").click()
            page.wait_for_url(re.compile(r".*/organiser/events/\d+\?done=created"))
            for who in ("alice", "bob", "carl"):
                page.get_by_label("Enter a bot (id or OWNER/NAME)").fill(f"{who}/{who}-bot")
                page.get_by_role("button", name="Enter", exact=True).click()
                page.wait_for_load_state()
                assert page.locator("#step-error").count() == 0, page.locator("#step-error").inner_text()
                page.wait_for_selector("#done")
            page.get_by_role("button", name="Close entries and start").click()
            page.wait_for_selector("text=Entries closed; the event has started.")
            page.get_by_role("button", name="Pause").click()
            page.wait_for_selector("text=Paused: matches not yet started wait.")
            assert page.locator("#audit tbody tr").count() == 6  # create, 3 entries, start, pause
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            _save_screenshot(page, f"organiser-event{suffix}.png", tmp_path)
            page.get_by_role("link", name="standings, pairings, crosstable, downloads").click()
            page.wait_for_selector("#entries-state")
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            _save_screenshot(page, f"event-tournament{suffix}.png", tmp_path)
            context.close()
        # an author sees the entry form on an open event's page, enters and then may withdraw
        tid, _ = events.create(site.url, events.Actor("olga", ROLE_ORGANISER), game="toy", players=2, rounds=2,
                               name="Open for entries", plays_matches=False)
        for width, suffix in ((1280, ""), (390, "-phone")):
            context = browser.new_context(viewport={"width": width, "height": 900})
            page = context.new_page()
            page.goto(f"{base}/signin")
            page.get_by_label("API token").fill(site.tokens["bob"])
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url(f"{base}/me")
            page.goto(f"{base}/tournaments/{tid}")
            if width == 1280:
                page.get_by_role("button", name="Enter").click()
                page.wait_for_selector("#withdraw-bot")
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            _save_screenshot(page, f"event-entry{suffix}.png", tmp_path)
            context.close()
