"""The leaderboard's win counts stay exact as matches are rated after the first page view."""

from __future__ import annotations

from sqlalchemy import select

from arena.db import BotVersion, session_scope
from arena.records.recording import create_match, record_result
from tests.web.seed import play_record, seed_site
from web.app import create_app
from web.db import db
from web.queries.leaderboard import WinCache, _seat_totals


def _rows(client) -> dict[str, tuple[int, int]]:  # noqa: ANN001
    rows = client.get("/api/games/toy/leaderboard").get_json()["rows"]
    return {r["bot_name"]: (r["matches"], r["wins"]) for r in rows}


def test_new_results_are_added_to_the_cached_counts(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    seed_site(url, matches=4)
    app = create_app(url)
    client = app.test_client()
    before = _rows(client)
    assert sum(n for n, _ in before.values()) == 8
    with session_scope(url) as s:
        vids = s.scalars(select(BotVersion.id).order_by(BotVersion.id)).all()[:3]
    for i, seats in enumerate(([vids[0], vids[1]], [vids[2], vids[0], vids[1]])):
        with session_scope(url) as s:
            match_id = create_match(s, "toy", "base", seats, seed=77 + i, sandbox=False).id
        record = play_record(match_id, [f"s{j}" for j in range(len(seats))], 77 + i)
        with session_scope(url) as s:
            record_result(s, match_id, record.to_dict())
        after = _rows(client)
        with app.app_context():
            fresh = WinCache().get(db(), "toy")
            assert app.extensions["arena_wins"].get(db(), "toy") == fresh
            assert fresh == _seat_totals(db(), "toy", None, None)
    assert sum(n for n, _ in after.values()) == 8 + 2 + 3
    assert after["alpha"][0] == before["alpha"][0] + 2
    assert app.extensions["arena_wins"]._data["toy"][0] == 6  # filed under the newest sequence


def _page_matches(client) -> int:  # noqa: ANN001
    """The sum of the Matches column of the rendered leaderboard page."""
    html = client.get("/games/toy").get_data(as_text=True)
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return sum(int(row.split('class="num opt-narrow">', 1)[1].split("<", 1)[0])
               for row in body.split("<tr")[1:] if 'opt-narrow">' in row)


def test_the_rendered_page_is_reused_until_a_match_is_rated(tmp_path, monkeypatch) -> None:
    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    seed_site(url, matches=4)
    app = create_app(url)
    client = app.test_client()
    import web.pages

    renders = []
    real = web.pages.render_template
    monkeypatch.setattr(web.pages, "render_template",
                        lambda name, **kw: renders.append(name) or real(name, **kw))
    assert _page_matches(client) == 8
    assert _page_matches(client) == 8
    assert renders.count("leaderboard.html") == 1  # the second view reused the page
    with session_scope(url) as s:
        vids = s.scalars(select(BotVersion.id).order_by(BotVersion.id)).all()[:2]
        match_id = create_match(s, "toy", "base", vids, seed=91, sandbox=False).id
    with session_scope(url) as s:
        record_result(s, match_id, play_record(match_id, ["s0", "s1"], 91).to_dict())
    assert _page_matches(client) == 10  # rated: the very next view is rebuilt
    assert renders.count("leaderboard.html") == 2


def test_a_deactivated_bot_shows_retired_on_the_very_next_view(tmp_path) -> None:
    from sqlalchemy import update

    from arena.db import Bot

    url = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    seed_site(url, matches=4)
    client = create_app(url).test_client()
    assert "retired" not in client.get("/games/toy").get_data(as_text=True)
    with session_scope(url) as s:  # e.g. through the API, another process
        s.execute(update(Bot).where(Bot.name == "alpha").values(active=False))
    assert client.get("/games/toy").get_data(as_text=True).count('<span class="badge">retired</span>') == 1
