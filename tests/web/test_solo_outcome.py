"""A solo match ranks the bot against the automaton on the match page (issue 15, item 2)."""

from __future__ import annotations

from arena.db import Match, session_scope
from tests.web.seed import add_engine_match


def test_solo_match_page_says_beat_or_lost_to_the_virtual_player(client, site) -> None:
    url, _ = site
    match_id = add_engine_match(url, "solenia", 1, 5)  # random play, solo summer
    with session_scope(url) as s:
        m = s.get(Match, match_id)
        details = m.record["result"]["details"]
        rank = m.seats[0].rank
    words = details["outcome"]
    assert details["automaton"] == "the virtual player"
    assert rank == (1 if details["beat_automaton"] else 2)  # a loss is stored as rank 2
    html = client.get(f"/matches/{match_id}").data.decode()
    assert f"{words}</p>" in html and 'id="solo-outcome"' in html
