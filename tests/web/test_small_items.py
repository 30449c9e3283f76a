"""Issue #37, item 7, through Flask's test client on the seeded toy site: wrong ``/play`` form
values answer 400 naming what is allowed (never a 404 or a traceback, never a game started);
``/tournaments`` names each format and each game as its rulebook writes it; seats read
"player 1..N"; a person who resigned reads "resigned", never ``bot_error``."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from arena.db import Match, Tournament, session_scope
from arena.play.human import RESIGNED
from tests.web.test_signin import _csrf

GOOD = {"game": "black_angel", "players": "2", "variant": "", "seat": "1", "opponent1": "random"}


def _post(client: FlaskClient, **changes: str) -> tuple[int, str]:
    form = {**GOOD, **changes, "csrf_token": _csrf(client, "/play?game=black_angel")}
    response = client.post("/play", data=form)
    return response.status_code, response.get_data(as_text=True)


@pytest.mark.parametrize(
    ("changes", "allowed"),
    [
        ({"players": "9"}, "is played by 1, 2, 3, 4 player(s), not “9”"),
        ({"players": "two"}, "not “two”"),
        ({"players": ""}, "is played by 1, 2, 3, 4"),
        ({"game": "chess"}, "there is no game “chess”: choose one of black_angel, orbital, solenia"),
        ({"variant": "turbo"}, "has the variants"),
        ({"seat": "7"}, "your seat is player 1 to 2 or random, not “7”"),
        ({"seat": "0"}, "your seat is player 1 to 2"),
    ],
)
def test_wrong_play_form_values_answer_400_with_what_is_allowed(client, site, changes, allowed) -> None:  # noqa: ANN001
    with session_scope(site[0]) as s:
        before = s.scalar(select(Match.id).where(Match.kind == "human").limit(1))
    status, html = _post(client, **changes)
    assert status == 400, html[:300]
    assert allowed.replace("“", "&#8220;") in html or allowed in html, html[html.find("play-error") - 20:][:400]
    assert 'id="play-error"' in html and "Traceback" not in html
    with session_scope(site[0]) as s:  # no game was started
        assert s.scalar(select(Match.id).where(Match.kind == "human").limit(1)) == before


def test_wrong_play_links_answer_400_with_the_form(client) -> None:  # noqa: ANN001
    r = client.get("/play?game=orbital&players=9")
    html = r.get_data(as_text=True)
    assert r.status_code == 400 and "Orbital" in html and "is played by" in html
    assert 'id="p-start"' in html  # the form is there to fix the mistake
    r = client.get("/play?game=nope")
    assert r.status_code == 400 and "choose one of black_angel, orbital, solenia" in r.get_data(as_text=True)


def test_tournaments_name_the_format_and_the_game_as_written(client, site) -> None:  # noqa: ANN001
    with session_scope(site[0]) as s:
        t = s.scalars(select(Tournament)).first()
        swiss = Tournament(name="Swiss Open", game="black_angel", variant=t.variant, players=2,
                           rounds=3, status="pending", format="swiss", seed=1)
        s.add(swiss)
    html = client.get("/tournaments").get_data(as_text=True)
    assert "Round-robin tournaments" not in html
    assert 'data-format="swiss">Swiss<' in html and 'data-format="round_robin">Round-robin<' in html
    assert "Black Angel" in html and "black angel" not in html


def test_seats_read_player_one_to_n(client, seeded) -> None:  # noqa: ANN001
    html = client.get(f"/matches/{seeded.match_ids[0]}").get_data(as_text=True)
    assert '<th scope="col" class="num">Player</th>' in html
    assert "seat 0" not in html.replace("--seat 0", "")  # the CLI's flag counts as the protocol does
    new = client.get("/play?game=black_angel&players=3").get_data(as_text=True)
    assert "player 1 (moves first)" in new and "player 3" in new and "seat 0" not in new


def test_a_person_who_resigned_reads_resigned(app: Flask) -> None:
    word = app.jinja_env.filters["forfeit_word"]
    assert word("bot_error", f"seat 1: {RESIGNED}") == "resigned"
    assert word("bot_error", "the bot process exited") == "bot_error"
    assert word("bot_error", None, True) == "resigned"  # a person's seat in a list of matches
    assert word("timeout", None, True) == "timeout"
