"""Markup checks on every page: balanced tags, unique ids, labelled controls, table headers,
alt-free images, and the command that serves the site."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest
from sqlalchemy import insert

from arena.db import Match, session_scope

VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}
#: Elements whose end tag HTML lets you omit; the templates always close them anyway, except
#: these two that the SVG/HTML mix never needs closed explicitly.
SVG_SELF_CLOSING = {"path", "circle", "rect", "line", "polygon"}


class Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, int]] = []
        self.errors: list[str] = []
        self.ids: dict[str, int] = {}
        self.labels_for: set[str] = set()
        self.controls: list[tuple[str, str | None, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if "id" in a and a["id"]:
            self.ids[a["id"]] = self.ids.get(a["id"], 0) + 1
        if tag == "label" and a.get("for"):
            self.labels_for.add(a["for"])
        if tag in ("input", "select", "textarea") and a.get("type") != "hidden":
            self.controls.append((tag, a.get("id"), "aria-label" in a))
        if tag not in VOID:
            self.stack.append((tag, self.getpos()[0]))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID and tag not in SVG_SELF_CLOSING:
            self.errors.append(f"self-closed <{tag}/> at line {self.getpos()[0]}")

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack:
            self.errors.append(f"stray </{tag}> at line {self.getpos()[0]}")
            return
        open_tag, line = self.stack.pop()
        if open_tag != tag:
            self.errors.append(
                f"</{tag}> at line {self.getpos()[0]} closes <{open_tag}> of line {line}"
            )


def check_page(html: str) -> Checker:
    c = Checker()
    c.feed(html)
    c.close()
    assert html.lstrip().lower().startswith("<!doctype html>")
    assert not c.errors, c.errors[:5]
    assert not c.stack or c.stack == [], c.stack
    dupes = [i for i, n in c.ids.items() if n > 1]
    assert not dupes, dupes
    for tag, control_id, aria in c.controls:
        assert aria or (control_id and control_id in c.labels_for), (tag, control_id)
    return c


def pages(seeded) -> list[str]:  # noqa: ANN001
    return [
        "/",
        "/games/toy",
        "/games/solenia",
        f"/bots/{seeded.bot_ids['alpha']}",
        "/matches",
        "/matches?outcome=win",
        f"/matches/{seeded.match_ids[0]}",
        f"/matches/{seeded.forfeit_match}?step=9",
        "/tournaments",
        f"/tournaments/{seeded.tournament_id}",
        "/seasons",
        "/bots/424242",
    ]


def test_pages_are_well_formed(client, seeded) -> None:
    for path in pages(seeded):
        html = client.get(path).data.decode()
        check_page(html)
        assert "<table" not in html or '<th scope="col"' in html, path


def test_replay_fragments_are_well_formed(client, seeded) -> None:
    for step in range(0, 12):
        html = client.get(f"/matches/{seeded.match_ids[1]}/steps/{step}").data.decode()
        c = Checker()
        c.feed(html)
        assert not c.errors and not c.stack, (step, c.errors, c.stack)


def test_a_match_of_an_engine_that_is_gone_still_has_a_page(client, site) -> None:
    url, _ = site
    with session_scope(url) as s:
        s.execute(
            insert(Match).values(
                id="c" * 32,
                game="chess",
                variant="classic",
                players=2,
                seed=1,
                status="done",
                record={
                    "game": "chess",
                    "players": 2,
                    "seed": 1,
                    "decisions": [{"seat": 0, "option": "e4"}],
                },
            )
        )
    r = client.get("/matches/" + "c" * 32)
    assert r.status_code == 200
    assert "cannot be replayed" in r.data.decode() and "unknown game" in r.data.decode()
    api = client.get(f"/api/matches/{'c' * 32}/replay")
    assert api.status_code == 500 and "unknown game" in api.get_json()["message"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_arena_web_command_serves_the_site(site) -> None:
    url, _ = site
    port = _free_port()
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "web", "--port", str(port), "--database", url],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games", timeout=2) as r:
                    body = r.read().decode()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(
                        f"arena web did not start: {proc.stdout.read() if proc.stdout else ''}"
                    )
                time.sleep(0.2)
        assert '"solenia"' in body
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
            assert r.status == 200 and "Tabletop Arena" in r.read().decode()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_arena_web_reports_a_busy_port_clearly(site) -> None:
    url, _ = site
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        root = Path(__file__).resolve().parents[2]
        out = subprocess.run(
            [sys.executable, "-m", "arena", "web", "--port", str(port), "--database", url],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert str(port) in out.stderr + out.stdout


def test_an_empty_database_renders_every_page(tmp_path) -> None:
    from web.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'empty.sqlite3'}")
    client = app.test_client()
    for path in (
        "/",
        "/games/solenia",
        "/games/black_angel",
        "/matches",
        "/tournaments",
        "/seasons",
        "/api/games",
        "/api/matches",
        "/api/tournaments",
        "/api/ladders",
    ):
        r = client.get(path)
        assert r.status_code == 200, path
    assert "No bots play this game yet" in client.get("/games/solenia").data.decode()
    assert "No matches." in client.get("/matches").data.decode()
    assert "No tournament is running" in client.get("/").data.decode()
    assert client.get("/api/games/solenia/leaderboard").get_json()["rows"] == []
