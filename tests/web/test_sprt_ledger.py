"""The bot page's fairness ledger and SPRT history (HTML, JSON and in Chromium)."""

from __future__ import annotations

from arena.db import BotVersion, Rating, session_scope
from arena.db.models import SprtTest
from tests.web.seed import add_bot


def _sprt(bot_id: int, cand: int, base: int, status: str, replaced: bool, llr: float, elo: float) -> SprtTest:
    return SprtTest(
        bot_id=bot_id, candidate_version_id=cand, baseline_version_id=base, game="toy", variant="base",
        elo0=0.0, elo1=50.0, alpha=0.05, beta=0.05, max_pairs=200, replace="accept", status=status,
        llr=llr, lower=-2.944, upper=2.944, games=24, pairs=12, score=0.75 if elo > 0 else 0.25,
        elo=elo, elo_error=80.5, pentanomial=[0, 1, 4, 3, 4] if elo > 0 else [4, 3, 4, 1, 0],
        trinomial=[6, 0, 18] if elo > 0 else [18, 0, 6], replaced=replaced, message="",
    )


def _seed_tested_bot(url: str, name: str) -> int:
    """Bot ``name``: v1, v2 (accepted, plays, with a ledger), v3 (rejected, held)."""
    with session_scope(url) as s:
        v1 = add_bot(s, name)
        bot_id = v1.bot_id
        ids = [v1.id]
        for number, held in ((2, False), (3, True)):
            v = BotVersion(bot_id=bot_id, number=number, kind="hosted", source=f"/bots/d{number}", digest=f"d{number}",
                           initial_mu=25.0, initial_sigma=25 / 3, predecessor_id=ids[-1], held=held)
            s.add(v)
            s.flush()
            ids.append(v.id)
            s.add(Rating(bot_version_id=v.id, game="toy", mu=27.5 if number == 2 else 25.0, sigma=4.0,
                         provisional=True, games_played=5 if number == 2 else 0,
                         distinct_opponents=2 if number == 2 else 0,
                         opponent_counts={"1": 3, "2": 2} if number == 2 else {},
                         seat_counts={"2": {"0": 3, "1": 2}} if number == 2 else {},
                         player_counts={"2": 5} if number == 2 else {}))
        s.add(_sprt(bot_id, ids[1], ids[0], "accepted", True, 3.01, 190.8))
        s.flush()
        s.add(_sprt(bot_id, ids[2], ids[1], "rejected", False, -2.97, -190.8))
    return bot_id


def test_bot_page_shows_ledger_and_sprt_history(client, site) -> None:  # noqa: ANN001
    url, _ = site
    bot_id = _seed_tested_bot(url, "delta")
    html = client.get(f"/bots/{bot_id}").data.decode()
    assert "(v2)</dd>" in html  # the playing version, not the held v3
    ledger = html.split('id="ledger">')[1].split("</dd>")[0]
    assert "5 games against 2 opponents (spread" in ledger
    assert "2 players: 5 games, by seat 0: 3, 1: 2" in ledger
    table = html.split('id="sprt-table"')[1].split("</table>")[0]
    rows = table.split("<tbody>")[1].split("</tr>")[:2]
    assert "v3 vs v2" in rows[0] and "rejected, v2 kept" in rows[0] and "-2.97" in rows[0] and "-190.8 ± 80.5" in rows[0]
    assert "v2 vs v1" in rows[1] and "accepted, replaced v1" in rows[1] and "3.01" in rows[1] and "+190.8" in rows[1]
    assert "held by its test" in html
    data = client.get(f"/api/bots/{bot_id}").get_json()
    assert [(t["candidate"], t["status"], t["replaced"]) for t in data["sprt"]] == [(3, "rejected", False), (2, "accepted", True)]
    assert data["current"]["number"] == 2 and data["current"]["seat_counts"] == {"2": {"0": 3, "1": 2}}


def test_sprt_history_in_chromium(page, live_server, site) -> None:  # noqa: ANN001
    url, _ = site
    bot_id = _seed_tested_bot(url, "echo")
    page.goto(f"{live_server}/bots/{bot_id}")
    rows = page.locator("#sprt-table tbody tr")
    assert rows.count() == 2
    assert rows.nth(1).locator("td").nth(1).inner_text().strip() == "accepted, replaced v1"
    assert "2 players: 5 games" in page.locator("#ledger").inner_text()


def test_leaderboard_marks_house_bots(client, site) -> None:  # noqa: ANN001
    url, _ = site
    with session_scope(url) as s:
        add_bot(s, "house-random", owner="house")
    html = client.get("/games/toy").data.decode()
    row = next(r for r in html.split("<tr") if "house-random" in r)
    assert 'class="badge house"' in row
    assert sum('class="badge house" title' in r for r in html.split("<tr")) == 1  # only the house bot
