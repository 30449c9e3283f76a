"""Issue #35 on the website, through Flask's test client on a real SQLite database: a refused
upload's failure text on its qualification match page (page and JSON) only for its author and
organisers — the public reads the reason word; the organisers' collusion report page (who may
see it, the planted pair flagged, the form's numbers never echoed); ``/play``'s ``?error=``
never shown. The API side (GetMatch, BotVersion.refusal) is checked here too, on the same data."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from arena.db import dispose_all, session_scope
from arena.db.accounts import Submission, User
from arena.server import convert, results
from tests.web.authors_seed import QUALIFICATION_ID, REFUSAL_LOG, Site, seed
from tests.web.test_signin import sign_in
from web.app import create_app

#: The text of seed_authors' other refused upload (no record: the server's message is its error).
CRASH_TEXT = "the bot process exited with code 1 before StartMatch"
NO_RECORD_ID = "feedbeef" * 4


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Site]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('authors') / 'arena.sqlite3'}"
    yield url, seed(url)
    dispose_all()


@pytest.fixture(scope="module")
def app(site: tuple[str, Site]) -> Flask:
    application = create_app(site[0])
    application.config["TESTING"] = True
    return application


def _as(app: Flask, site: Site, who: str | None) -> FlaskClient:
    client = app.test_client()
    if who == "carol":
        assert sign_in(client, site.organiser_token).status_code == 303
    elif who is not None:
        assert sign_in(client, site.authors.tokens[who]).status_code == 303
    return client


@pytest.mark.parametrize(("who", "sees"), [(None, False), ("bob", False), ("alice", True), ("carol", True)])
def test_a_refusals_text_is_its_authors_and_the_public_reads_the_reason(app, site, who, sees) -> None:  # noqa: ANN001
    client = _as(app, site[1], who)
    page = client.get(f"/matches/{QUALIFICATION_ID}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "illegal_option" in html
    assert ("ALICE-REFUSAL-TEXT" in html) is sees
    assert REFUSAL_LOG not in html  # the stderr tail is on her own pages only
    api = client.get(f"/api/matches/{QUALIFICATION_ID}").get_data(as_text=True)
    assert ("ALICE-REFUSAL-TEXT" in api) is sees and "illegal_option" in api
    # the upload the server could not play: its error is the text, the public reads the kind
    other = client.get(f"/matches/{NO_RECORD_ID}").get_data(as_text=True)
    assert (CRASH_TEXT in other) is sees
    assert "crash" in other
    # the replay's steps are shared by everyone: never the text
    step = client.get(f"/matches/{QUALIFICATION_ID}/steps/3").get_data(as_text=True)
    assert "ALICE-REFUSAL-TEXT" not in step
    if who is not None:
        assert "no-store" in page.headers["Cache-Control"]


@pytest.mark.parametrize(("who", "sees"), [(None, False), ("bob", False), ("alice", True), ("carol", True)])
def test_the_api_keeps_the_text_for_its_author_and_organisers(site, who, sees) -> None:  # noqa: ANN001
    url = site[0]
    with session_scope(url) as s:
        viewer = s.query(User).filter(User.name == who).one() if who else None
        _, match = results.get_match(s, QUALIFICATION_ID, viewer)
        record = json.loads(match.record_json)
        assert [f["reason"] for f in record["forfeits"]] == ["illegal_option"]
        assert ("ALICE-REFUSAL-TEXT" in match.record_json) is sees
        _, failed = results.get_match(s, NO_RECORD_ID, viewer)
        assert json.loads(failed.record_json)["error"] == (CRASH_TEXT if sees else "crash")
        sub = s.query(Submission).filter(Submission.match_id == QUALIFICATION_ID).one()
        version = convert.version(sub, None, logs=sees)
        assert version.refusal.kind == "illegal_option"
        assert ("ALICE-REFUSAL-TEXT" in version.refusal.message) is sees
        assert (version.refusal.log_tail == REFUSAL_LOG) is sees


def test_only_organisers_see_the_collusion_report(app, site) -> None:  # noqa: ANN001
    anonymous = _as(app, site[1], None).get("/organiser/collusion?game=toy")
    assert anonymous.status_code == 403 and 'name="token"' in anonymous.get_data(as_text=True)
    author = _as(app, site[1], "bob").get("/organiser/collusion?game=toy")
    assert author.status_code == 403 and "Only organisers" in author.get_data(as_text=True)
    carol = _as(app, site[1], "carol")
    page = carol.get("/organiser/collusion?game=toy")
    html = page.get_data(as_text=True).replace("<wbr>", "")
    assert page.status_code == 200 and "no-store" in page.headers["Cache-Control"]
    rows = html.split('<tbody>')[1].split('</tbody>')[0].split("<tr")[1:]
    flagged = [r for r in rows if 'class="flagged"' in r]
    assert len(flagged) == 1 and "mallory" in flagged[0] and "trent" in flagged[0]
    assert "mole v1" in flagged[0] and "tick v1" in flagged[0]
    text = " ".join(html.split())
    assert "1 flagged." in text and "1345 rated matches" in text, text[text.find("<p>1"):][:400]
    # the organiser's own page links to it; an author's does not
    assert "/organiser/collusion" in carol.get("/me").get_data(as_text=True)
    assert "/organiser/collusion" not in _as(app, site[1], "alice").get("/me").get_data(as_text=True)


def test_the_reports_form_never_echoes_what_the_query_said(app, site) -> None:  # noqa: ANN001
    carol = _as(app, site[1], "carol")
    evil = "<script>alert(1)</script>EVIL-TEXT"
    html = carol.get("/organiser/collusion", query_string={"game": evil, "min_games": evil,
                                                            "threshold": "nan"}).get_data(as_text=True)
    assert "EVIL-TEXT" not in html and "<script>alert" not in html
    assert "That game is not played here" in html
    assert "The minimum number of games is a whole number" in html and "The threshold is a significance" in html
    strict = carol.get("/organiser/collusion?game=toy&threshold=1e-12&min_games=60").get_data(as_text=True)
    assert "0 flagged." in strict  # 48 games a pair: none is tested at 60


def test_play_never_shows_the_query_strings_text(app) -> None:  # noqa: ANN001
    """Whatever ``?error=`` says, the seat page does not show it (a refused move's message
    comes through the signed session: the browser test clicks one)."""
    client = app.test_client()
    page = client.get("/play/" + "0" * 32 + "?error=EVIL-TEXT-the-site-says-send-your-token")
    assert "EVIL-TEXT" not in page.get_data(as_text=True)
