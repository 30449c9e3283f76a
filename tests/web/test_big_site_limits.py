"""What keeps big pages small: the tournament schedule in parts of ``SCHEDULE_PAGE`` tables,
the bot page's most frequent opponents (all counted), and the forfeit filter's index walk
giving the same matches as a plain scan (see docs/web.md, "Speed")."""

from __future__ import annotations

from sqlalchemy import select

from arena.db import Match, MatchSeat, session_scope
from web.queries import bots as bot_q
from web.queries import tournaments as tour_q


def test_tournament_schedule_comes_in_parts(client, seeded, monkeypatch) -> None:
    whole = client.get(f"/api/tournaments/{seeded.tournament_id}").get_json()
    assert len(whole["schedule"]) == 8 and whole["schedule_next_url"] is None
    monkeypatch.setattr(tour_q, "SCHEDULE_PAGE", 3)
    seen, url = [], f"/api/tournaments/{seeded.tournament_id}"
    while url:
        part = client.get(url).get_json()
        assert len(part["schedule"]) <= 3 and len(part["standings"]) == 4
        seen += [m["id"] for m in part["schedule"]]
        url = part["schedule_next_url"]
    assert seen == [m["id"] for m in whole["schedule"]]  # same order, nothing twice or lost
    html = client.get(f"/tournaments/{seeded.tournament_id}?from=3").data.decode()
    assert "Tables 4–6 of 8" in html and "Earlier tables" in html and "Later tables" in html


def test_bot_page_lists_the_most_frequent_opponents(client, seeded, monkeypatch) -> None:
    bot_id = next(iter(seeded.bot_ids.values()))
    every = client.get(f"/api/bots/{bot_id}").get_json()
    assert every["opponents_met"] == len(every["by_opponent"]) >= 2
    monkeypatch.setattr(bot_q, "OPPONENTS", 1)
    top = client.get(f"/api/bots/{bot_id}").get_json()
    assert top["opponents_met"] == every["opponents_met"]
    assert top["by_opponent"] == every["by_opponent"][:1]
    assert "met most often, of" in client.get(f"/bots/{bot_id}").data.decode()


def test_forfeit_filter_finds_every_forfeited_match(client, site) -> None:
    url, _ = site
    with session_scope(url) as s:
        expected = set(s.scalars(select(MatchSeat.match_id).where(MatchSeat.forfeit.is_not(None))))
        done = set(s.scalars(select(Match.id).where(Match.status == "done")))
    assert expected  # the seeded site has forfeits
    listed = {m["id"] for m in client.get("/api/matches?outcome=forfeit&limit=200").get_json()["matches"]}
    assert listed == expected
    listed_done = {
        m["id"]
        for m in client.get("/api/matches?outcome=forfeit&status=done&limit=200").get_json()["matches"]
    }
    assert listed_done == expected & done
